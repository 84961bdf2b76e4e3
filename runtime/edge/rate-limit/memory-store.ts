// The in-memory rate-limit store (seed 001 "Limits"): fixed windows, at most `maxEntries` buckets. When full,
// expired buckets are swept, then the bucket with the oldest window that still has hits left is evicted. A
// used-up bucket is never evicted before its window ends: evicting it would hand its client a fresh limit.
import { positiveWholeNumber } from '../../config/whole-number.js';
import type { RateLimitHit, RateLimitStore } from './store.js';

export const DEFAULT_RATE_LIMIT_MAX_ENTRIES = 100_000;

export interface MemoryRateLimitStoreOptions {
  /** Most buckets kept at once. Default 100000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

interface Bucket {
  count: number;
  resetAt: number;
  limit: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  readonly maxEntries: number;
  private readonly now: () => number;
  /** Insertion order is window-start order: a bucket that starts a new window is re-inserted at the end. */
  private readonly buckets = new Map<string, Bucket>();
  /** No bucket ends its window before this (a lower bound), so a sweep before it would free nothing. */
  private nextExpiry = Number.POSITIVE_INFINITY;
  /** Set when every bucket was used up: no room can appear before this time. */
  private fullUntil = Number.NEGATIVE_INFINITY;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    this.maxEntries = positiveWholeNumber(
      options.maxEntries,
      DEFAULT_RATE_LIMIT_MAX_ENTRIES,
      'MemoryRateLimitStore',
      'maxEntries',
    );
    this.now = options.now ?? Date.now;
  }

  /** Buckets currently held (expired ones included until swept). */
  get size(): number {
    return this.buckets.size;
  }

  hit(key: string, windowMs: number, limit: number): Promise<RateLimitHit> {
    return Promise.resolve(this.hitNow(key, windowMs, limit));
  }

  private hitNow(key: string, windowMs: number, limit: number): RateLimitHit {
    const now = this.now();
    const bucket = this.buckets.get(key);
    if (bucket !== undefined && bucket.resetAt > now) {
      bucket.count += 1;
      return { count: bucket.count, resetAt: bucket.resetAt };
    }
    if (bucket !== undefined) {
      this.buckets.delete(key);
    } else if (this.buckets.size >= this.maxEntries && !this.makeRoom(now)) {
      // Fail closed: letting an unknown client through uncounted would turn a full store into no limit.
      return { count: limit + 1, resetAt: this.fullUntil };
    }
    const fresh: Bucket = { count: 1, resetAt: now + windowMs, limit };
    this.buckets.set(key, fresh);
    if (fresh.resetAt < this.nextExpiry) this.nextExpiry = fresh.resetAt;
    return { count: 1, resetAt: fresh.resetAt };
  }

  /** Frees one slot or more; false when every bucket is used up and its window still runs. */
  private makeRoom(now: number): boolean {
    if (now < this.fullUntil) return false;
    if (now >= this.nextExpiry) this.sweep(now);
    if (this.buckets.size < this.maxEntries) return true;
    for (const [key, bucket] of this.buckets) {
      if (bucket.count < bucket.limit) {
        this.buckets.delete(key);
        return true;
      }
    }
    this.fullUntil = this.nextExpiry;
    return false;
  }

  private sweep(now: number): void {
    let nextExpiry = Number.POSITIVE_INFINITY;
    for (const [key, bucket] of this.buckets) {
      if (bucket.resetAt <= now) this.buckets.delete(key);
      else if (bucket.resetAt < nextExpiry) nextExpiry = bucket.resetAt;
    }
    this.nextExpiry = nextExpiry;
  }
}
