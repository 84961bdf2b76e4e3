// `new LoginThrottle({ maxAttempts, windowMs, store, namespace, clock })` (seed 000 "Limits", the login-throttle
// rows of "States and transitions"): failed sign-ins are counted per email and per IP; the failure that reaches
// the limit locks that key for a window and answers AUTH_LOCKED (429), as does every attempt while it is
// locked, right password or not; a successful sign-in clears the account's counter (not the IP's, so signing
// in to one's own account cannot reset the counter an attacker builds from the same address).
import { errors } from '../../../generated/modules/errors.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { MemoryThrottleStore } from './memory-store.js';
import { isLocked, type ThrottleEntry, type ThrottleStore } from './store.js';

export const DEFAULT_LOGIN_MAX_ATTEMPTS = 5;
export const DEFAULT_LOGIN_WINDOW_MS = 15 * 60 * 1000;
/** Failures one IP may make across all accounts: an office behind one address has more than one user. */
export const DEFAULT_LOGIN_MAX_ATTEMPTS_PER_IP = 50;
/** The key of requests whose address is unknown: they share one counter, as they share one rate-limit bucket. */
export const UNKNOWN_IP_KEY = 'unknown';

export interface LoginThrottleOptions {
  /** Failures per email within `windowMs` before the account is locked. Default 5. */
  maxAttempts?: number;
  /** Failures per IP within `windowMs` before the address is locked. Default 50. */
  maxAttemptsPerIp?: number;
  /** Length of the counting window and of a lock, in ms. Default 15 minutes. */
  windowMs?: number;
  /** Where counters live. Default a MemoryThrottleStore (100000 keys). */
  store?: ThrottleStore;
  /** Prefix of every key, so several throttles can share one store. Default 'login'. */
  namespace?: string;
  /** Unix ms now; injectable for tests. Default Date.now. */
  clock?: () => number;
}

export interface LoginAttempt {
  email: string;
  /** The client's address as the adapter reports it; undefined shares the unknown-address counter. */
  ip: string | undefined;
}

export class LoginThrottle {
  readonly maxAttempts: number;
  readonly maxAttemptsPerIp: number;
  readonly windowMs: number;
  private readonly store: ThrottleStore;
  private readonly namespace: string;
  private readonly clock: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    this.maxAttempts = positiveWholeNumber(
      options.maxAttempts,
      DEFAULT_LOGIN_MAX_ATTEMPTS,
      'LoginThrottle',
      'maxAttempts',
    );
    this.maxAttemptsPerIp = positiveWholeNumber(
      options.maxAttemptsPerIp,
      DEFAULT_LOGIN_MAX_ATTEMPTS_PER_IP,
      'LoginThrottle',
      'maxAttemptsPerIp',
    );
    this.windowMs = positiveWholeNumber(
      options.windowMs,
      DEFAULT_LOGIN_WINDOW_MS,
      'LoginThrottle',
      'windowMs',
    );
    const namespace = options.namespace ?? 'login';
    if (typeof namespace !== 'string' || namespace === '') {
      throw new TypeError('LoginThrottle: namespace must be a non-empty string.');
    }
    this.namespace = namespace;
    this.store = options.store ?? new MemoryThrottleStore();
    this.clock = options.clock ?? Date.now;
  }

  /** Throws AUTH_LOCKED when the email or the address is locked; call before checking the password. */
  async assertOpen(attempt: LoginAttempt): Promise<void> {
    const now = this.clock();
    const [account, address] = await Promise.all([
      this.store.get(this.emailKey(attempt.email), now),
      this.store.get(this.ipKey(attempt.ip), now),
    ]);
    if (isLocked(account, now) || isLocked(address, now)) throw this.locked([account, address], now);
  }

  /**
   * Counts a failed sign-in for the email and the address. The failure that reaches a limit answers
   * AUTH_LOCKED (thrown) instead of the caller's own error; any other failure returns normally.
   */
  async recordFailure(attempt: LoginAttempt): Promise<void> {
    const now = this.clock();
    const [account, address] = await Promise.all([
      this.store.hit(this.emailKey(attempt.email), {
        windowMs: this.windowMs,
        maxAttempts: this.maxAttempts,
        now,
      }),
      this.store.hit(this.ipKey(attempt.ip), {
        windowMs: this.windowMs,
        maxAttempts: this.maxAttemptsPerIp,
        now,
      }),
    ]);
    if (isLocked(account, now) || isLocked(address, now)) throw this.locked([account, address], now);
  }

  /** A successful sign-in: the account's counter starts over; the address keeps its count. */
  async recordSuccess(attempt: Pick<LoginAttempt, 'email'>): Promise<void> {
    await this.store.clear(this.emailKey(attempt.email));
  }

  private emailKey(email: string): string {
    // Email identity is case-insensitive (seed 000 "User records").
    return `${this.namespace}:email:${email.trim().toLowerCase()}`;
  }

  private ipKey(ip: string | undefined): string {
    return `${this.namespace}:ip:${ip === undefined || ip === '' ? UNKNOWN_IP_KEY : ip}`;
  }

  private locked(entries: (ThrottleEntry | undefined)[], now: number): Error {
    const until = Math.max(...entries.map((entry) => (isLocked(entry, now) ? (entry?.lockedUntil ?? 0) : 0)));
    return errors.AUTH_LOCKED({
      details: { retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) },
    });
  }
}
