// `new LoginThrottle({ maxAttempts, windowMs, store, namespace, clock })` (docs/auth.md, "Login throttle"):
// sign-in attempts are counted per email and per IP. Each attempt reserves
// its place in both counters before its password is checked, so however many arrive at once, at most
// `maxAttempts` passwords are checked per email and `maxAttemptsPerIp` per IP in a window. A failure keeps its
// reservation; the one that reached a limit answers AUTH_LOCKED (429), as does every attempt while a key is
// locked, right password or not. A success clears the account's counter and gives its IP reservation back
// (not the IP's whole counter, so signing in to one's own account cannot reset the counter an attacker builds
// from the same address, and an office behind one address does not spend its budget by signing in).
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { MemoryThrottleStore } from './memory-store.js';
import { isLocked, type ThrottleEntry, type ThrottleStore } from './store.js';
import { invalidOption } from '../../config/option-errors.js';

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

const OPTION_NAMES = optionKeys<LoginThrottleOptions>({
  maxAttempts: true,
  maxAttemptsPerIp: true,
  windowMs: true,
  store: true,
  namespace: true,
  clock: true,
});

export interface LoginAttempt {
  email: string;
  /** The client's address as the adapter reports it; undefined shares the unknown-address counter. */
  ip: string | undefined;
}

/** One granted place in one counter. */
export interface LoginKeyReservation {
  readonly key: string;
  /** The window it was granted in: giving it back never touches a later window. */
  readonly windowEndsAt: number;
  /** This reservation reached the key's limit (and locked the key). */
  readonly reachedLimit: boolean;
}

/** An attempt's places in the account's and the address's counters, from `reserve`. */
export interface LoginReservation {
  readonly account: LoginKeyReservation;
  readonly address: LoginKeyReservation;
}

export class LoginThrottle {
  readonly maxAttempts: number;
  readonly maxAttemptsPerIp: number;
  readonly windowMs: number;
  private readonly store: ThrottleStore;
  private readonly namespace: string;
  private readonly clock: () => number;

  constructor(options: LoginThrottleOptions = {}) {
    rejectUnknownOptions(options, OPTION_NAMES, 'LoginThrottle');
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
      throw invalidOption('LoginThrottle', 'namespace', 'a non-empty string');
    }
    this.namespace = namespace;
    this.store = options.store ?? new MemoryThrottleStore();
    this.clock = options.clock ?? Date.now;
  }

  /**
   * Reserves the attempt in the address's counter, then the account's; call before checking the password.
   * Throws AUTH_LOCKED (details.retryAfterSeconds) when either refuses, having given the other back. The
   * address goes first: an address already locked never touches, even for a moment, an account's counter.
   */
  async reserve(attempt: LoginAttempt): Promise<LoginReservation> {
    const now = this.clock();
    const address = await this.reserveKey(this.ipKey(attempt.ip), this.maxAttemptsPerIp, now);
    let account: LoginKeyReservation;
    try {
      account = await this.reserveKey(this.emailKey(attempt.email), this.maxAttempts, now);
    } catch (refused) {
      await this.refund(address, this.maxAttemptsPerIp);
      throw refused;
    }
    return { account, address };
  }

  /**
   * A failed attempt (wrong password, missing or wrong second factor) keeps its reservations. The one whose
   * reservation reached a limit answers AUTH_LOCKED (thrown) instead of the caller's own error, unless the
   * key has opened meanwhile (a success in between cleared it); any other returns normally.
   */
  async recordFailure(reservation: LoginReservation): Promise<void> {
    const reached = [reservation.account, reservation.address].filter((key) => key.reachedLimit);
    if (reached.length === 0) return;
    const now = this.clock();
    const entries = await Promise.all(reached.map((key) => this.store.get(key.key, now)));
    const locked = entries.filter((entry) => isLocked(entry, now));
    if (locked.length > 0) throw this.locked(locked, now);
  }

  /**
   * A successful sign-in: the account's counter starts over; the address gets this attempt's reservation
   * back and keeps the failures it counted.
   */
  async recordSuccess(reservation: LoginReservation): Promise<void> {
    await Promise.all([
      this.store.clear(reservation.account.key),
      this.refund(reservation.address, this.maxAttemptsPerIp),
    ]);
  }

  /** Gives both reservations back, for an attempt that checked no password (its user lookup failed). */
  async release(reservation: LoginReservation): Promise<void> {
    await Promise.all([
      this.refund(reservation.account, this.maxAttempts),
      this.refund(reservation.address, this.maxAttemptsPerIp),
    ]);
  }

  private async reserveKey(key: string, maxAttempts: number, now: number): Promise<LoginKeyReservation> {
    const reserved = await this.store.reserve(key, { windowMs: this.windowMs, maxAttempts, now });
    if (!reserved.granted) throw this.locked([reserved.entry], now);
    const { entry } = reserved;
    return { key, windowEndsAt: entry.windowEndsAt, reachedLimit: entry.count >= maxAttempts };
  }

  private refund(reservation: LoginKeyReservation, maxAttempts: number): Promise<void> {
    return this.store.refund(reservation.key, {
      windowEndsAt: reservation.windowEndsAt,
      maxAttempts,
      now: this.clock(),
    });
  }

  private emailKey(email: string): string {
    // Email identity is case-insensitive.
    return `${this.namespace}:email:${email.trim().toLowerCase()}`;
  }

  private ipKey(ip: string | undefined): string {
    return `${this.namespace}:ip:${ip === undefined || ip === '' ? UNKNOWN_IP_KEY : ip}`;
  }

  /** AUTH_LOCKED, retrying once the latest of the refusing entries opens (at least a second from now). */
  private locked(entries: (ThrottleEntry | undefined)[], now: number): Error {
    const opensAt = Math.max(...entries.map((entry) => (entry === undefined ? now : reopensAt(entry, now))));
    return errors.AUTH_LOCKED({
      details: { retryAfterSeconds: Math.max(1, Math.ceil((opensAt - now) / 1000)) },
    });
  }
}

/** When a refusing entry takes attempts again: its lock's end, or else (window used up) its window's end. */
function reopensAt(entry: ThrottleEntry, now: number): number {
  return isLocked(entry, now) ? (entry.lockedUntil ?? now) : entry.windowEndsAt;
}
