// In-memory login-throttle store (seed 000 "Limits"): at most `maxEntries` (100000) keys. When full, a new key
// first sweeps expired entries, then evicts the oldest unlocked one; the oldest locked entry is dropped only
// when every entry is locked. Per process and lost on restart: use a shared store behind a load balancer.
// Every method decides synchronously, so each is atomic on the event loop.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { checkedMaxEntries } from '../stores/expiring-records.js';
import {
  entryExpiresAt,
  isLocked,
  type ThrottleEntry,
  type ThrottleRefund,
  type ThrottleReservation,
  type ThrottleReserved,
  type ThrottleStore,
} from './store.js';

export const DEFAULT_THROTTLE_MAX_ENTRIES = 100_000;

export interface MemoryThrottleStoreOptions {
  /** Keys kept at most. Default 100000. */
  maxEntries?: number;
}

const OPTION_NAMES = optionKeys<MemoryThrottleStoreOptions>({ maxEntries: true });

export class MemoryThrottleStore implements ThrottleStore {
  readonly maxEntries: number;
  /** Insertion order is age order: the first entry is the oldest. */
  private readonly entries = new Map<string, ThrottleEntry>();

  constructor(options: MemoryThrottleStoreOptions = {}) {
    rejectUnknownOptions(options, OPTION_NAMES, 'MemoryThrottleStore');
    this.maxEntries = checkedMaxEntries(
      options.maxEntries,
      DEFAULT_THROTTLE_MAX_ENTRIES,
      'MemoryThrottleStore',
    );
  }

  /** Keys currently held (expired ones included until swept). */
  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const entry = this.live(key, now);
    return Promise.resolve(entry === undefined ? undefined : { ...entry });
  }

  reserve(key: string, { windowMs, maxAttempts, now }: ThrottleReservation): Promise<ThrottleReserved> {
    let entry = this.live(key, now);
    if (isLocked(entry, now)) return refused(entry);
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.makeRoom(now);
      entry = { count: 0, windowEndsAt: now + windowMs };
      this.entries.set(key, entry);
    } else if (entry.windowEndsAt <= now) {
      entry.count = 0;
      entry.windowEndsAt = now + windowMs;
    }
    // Not locked here: a lock that ended stays behind no longer.
    delete entry.lockedUntil;
    if (entry.count >= maxAttempts) return refused(entry);
    entry.count += 1;
    if (entry.count >= maxAttempts) entry.lockedUntil = now + windowMs;
    return Promise.resolve({ granted: true, entry: { ...entry } });
  }

  refund(key: string, { windowEndsAt, maxAttempts, now }: ThrottleRefund): Promise<void> {
    const entry = this.live(key, now);
    if (entry !== undefined && entry.windowEndsAt === windowEndsAt) {
      entry.count = Math.max(entry.count - 1, 0);
      if (entry.count < maxAttempts) delete entry.lockedUntil;
    }
    return Promise.resolve();
  }

  clear(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }

  /** The key's entry while it matters; an expired one is dropped. */
  private live(key: string, now: number): ThrottleEntry | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined || entryExpiresAt(entry) > now) return entry;
    this.entries.delete(key);
    return undefined;
  }

  /** Frees one slot: expired entries first, then the oldest unlocked, then the oldest of all. */
  private makeRoom(now: number): void {
    for (const [key, entry] of this.entries) {
      if (entryExpiresAt(entry) <= now) this.entries.delete(key);
    }
    if (this.entries.size < this.maxEntries) return;
    for (const [key, entry] of this.entries) {
      if (!isLocked(entry, now)) {
        this.entries.delete(key);
        return;
      }
    }
    const oldest = this.entries.keys().next();
    if (oldest.done !== true) this.entries.delete(oldest.value);
  }
}

function refused(entry: ThrottleEntry | undefined): Promise<ThrottleReserved> {
  return Promise.resolve({ granted: false, entry: entry === undefined ? undefined : { ...entry } });
}
