// In-memory login-throttle store: at most `maxEntries` (100000) keys. When full, a new key
// first sweeps expired entries, then evicts the oldest unlocked one; the oldest locked entry is dropped only
// when every entry is locked. Per process and lost on restart: use a shared store behind a load balancer.
// Every method decides synchronously, so each is atomic on the event loop.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
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
  private readonly entries: ExpiringMap<ThrottleEntry>;

  constructor(options: MemoryThrottleStoreOptions = {}) {
    rejectUnknownOptions(options, OPTION_NAMES, 'MemoryThrottleStore');
    this.entries = new ExpiringMap<ThrottleEntry>({
      owner: 'MemoryThrottleStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_THROTTLE_MAX_ENTRIES,
      expiresAt: entryExpiresAt,
      // A locked key goes last: evicting it would lift its lock early.
      evictable: (entry, now) => !isLocked(entry, now),
      whenFull: 'evict-oldest',
    });
  }

  get maxEntries(): number {
    return this.entries.maxEntries;
  }

  /** Keys currently held (expired ones included until swept). */
  get size(): number {
    return this.entries.size;
  }

  get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const entry = this.entries.get(key, now);
    return Promise.resolve(entry === undefined ? undefined : { ...entry });
  }

  reserve(key: string, { windowMs, maxAttempts, now }: ThrottleReservation): Promise<ThrottleReserved> {
    let entry = this.entries.get(key, now);
    if (isLocked(entry, now)) return refused(entry);
    if (entry === undefined) {
      entry = { count: 0, windowEndsAt: now + windowMs };
      this.entries.set(key, entry, now);
    } else if (entry.windowEndsAt <= now) {
      entry.count = 0;
      entry.windowEndsAt = now + windowMs;
    }
    // Not locked here: a lock that ended stays behind no longer.
    delete entry.lockedUntil;
    this.entries.changed(key);
    if (entry.count >= maxAttempts) return refused(entry);
    entry.count += 1;
    if (entry.count >= maxAttempts) entry.lockedUntil = now + windowMs;
    return Promise.resolve({ granted: true, entry: { ...entry } });
  }

  refund(key: string, { windowEndsAt, maxAttempts, now }: ThrottleRefund): Promise<void> {
    const entry = this.entries.get(key, now);
    if (entry !== undefined && entry.windowEndsAt === windowEndsAt) {
      entry.count = Math.max(entry.count - 1, 0);
      if (entry.count < maxAttempts) delete entry.lockedUntil;
      this.entries.changed(key);
    }
    return Promise.resolve();
  }

  clear(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
  }
}

function refused(entry: ThrottleEntry | undefined): Promise<ThrottleReserved> {
  return Promise.resolve({ granted: false, entry: entry === undefined ? undefined : { ...entry } });
}
