// In-memory login-throttle store (seed 000 "Limits"): at most `maxEntries` (100000) keys. When full, a new key
// first sweeps expired entries, then evicts the oldest unlocked one; the oldest locked entry is dropped only
// when every entry is locked. Per process and lost on restart: use a shared store behind a load balancer.
import { checkedMaxEntries } from '../stores/expiring-records.js';
import {
  entryExpiresAt,
  isLocked,
  type ThrottleEntry,
  type ThrottleHit,
  type ThrottleStore,
} from './store.js';

export const DEFAULT_THROTTLE_MAX_ENTRIES = 100_000;

export interface MemoryThrottleStoreOptions {
  /** Keys kept at most. Default 100000. */
  maxEntries?: number;
}

export class MemoryThrottleStore implements ThrottleStore {
  readonly maxEntries: number;
  /** Insertion order is age order: the first entry is the oldest. */
  private readonly entries = new Map<string, ThrottleEntry>();

  constructor(options: MemoryThrottleStoreOptions = {}) {
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
    const entry = this.entries.get(key);
    if (entry === undefined || entryExpiresAt(entry) <= now) return Promise.resolve(undefined);
    return Promise.resolve({ ...entry });
  }

  hit(key: string, { windowMs, maxAttempts, now }: ThrottleHit): Promise<ThrottleEntry> {
    let entry = this.entries.get(key);
    if (entry !== undefined && entryExpiresAt(entry) <= now) {
      this.entries.delete(key);
      entry = undefined;
    }
    if (entry === undefined) {
      if (this.entries.size >= this.maxEntries) this.makeRoom(now);
      entry = { count: 0, windowEndsAt: now + windowMs };
      this.entries.set(key, entry);
    } else if (entry.windowEndsAt <= now) {
      // The window ended while a lock still held: a new window starts counting from zero.
      entry.count = 0;
      entry.windowEndsAt = now + windowMs;
    }
    entry.count += 1;
    if (entry.count >= maxAttempts && !isLocked(entry, now)) entry.lockedUntil = now + windowMs;
    return Promise.resolve({ ...entry });
  }

  clear(key: string): Promise<void> {
    this.entries.delete(key);
    return Promise.resolve();
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
