// The in-memory rate-limit store: fixed windows, at most `maxEntries` buckets. When full,
// expired buckets are swept, then the bucket with the oldest window that still has hits left is evicted. A
// used-up bucket is never evicted before its window ends: evicting it would hand its client a fresh limit, so
// when every bucket is used up the store fails closed (a new key is refused until a window ends).
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type { RateLimitHit, RateLimitStore } from './store.js';

export const DEFAULT_RATE_LIMIT_MAX_ENTRIES = 100_000;

export interface MemoryRateLimitStoreOptions {
  /** Most buckets kept at once. Default 100000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of MemoryRateLimitStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemoryRateLimitStoreOptions>({ maxEntries: true, now: true });

interface Bucket {
  count: number;
  resetAt: number;
  limit: number;
}

export class MemoryRateLimitStore implements RateLimitStore {
  /** Age order is window-start order: a bucket that starts a new window is stored anew. */
  private readonly buckets: ExpiringMap<Bucket>;

  constructor(options: MemoryRateLimitStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryRateLimitStore');
    this.buckets = new ExpiringMap<Bucket>({
      owner: 'MemoryRateLimitStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_RATE_LIMIT_MAX_ENTRIES,
      expiresAt: (bucket) => bucket.resetAt,
      evictable: (bucket) => bucket.count < bucket.limit,
      whenFull: 'refuse',
      now: options.now,
    });
  }

  get maxEntries(): number {
    return this.buckets.maxEntries;
  }

  /** Buckets currently held (expired ones included until swept). */
  get size(): number {
    return this.buckets.size;
  }

  hit(key: string, windowMs: number, limit: number): Promise<RateLimitHit> {
    return Promise.resolve(this.hitNow(key, windowMs, limit));
  }

  private hitNow(key: string, windowMs: number, limit: number): RateLimitHit {
    const now = this.buckets.now();
    const bucket = this.buckets.get(key, now);
    if (bucket !== undefined) {
      bucket.count += 1;
      return { count: bucket.count, resetAt: bucket.resetAt };
    }
    const fresh: Bucket = { count: 1, resetAt: now + windowMs, limit };
    // Fail closed: letting an unknown client through uncounted would turn a full store into no limit.
    if (!this.buckets.set(key, fresh, now)) return { count: limit + 1, resetAt: this.buckets.roomAt };
    return { count: 1, resetAt: fresh.resetAt };
  }
}
