// Local buckets over a shared store that leases (RateLimitStore.lease): the process reserves a few hits of a
// bucket at once and spends them without a round trip, asking again only when they ran out. Reserved before
// they are spent, the hits of every process together never exceed the limit; what leasing costs is on the
// refusing side: hits a process reserved and did not spend before the window ended are lost (fewer than one
// lease per process and bucket), and X-RateLimit-Remaining is this process's view.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type { RateLimitHit, RateLimitLease } from './store.js';

/** Local buckets kept per process by default; the oldest is dropped past it. */
export const DEFAULT_LEASED_BUCKETS = 10_000;
/** A lease reserves 1/LEASE_DIVISOR of the limit, rounded up, between 1 and MAX_LEASE hits. */
export const LEASE_DIVISOR = 20;
export const MAX_LEASE = 1000;

/**
 * Hits one lease asks for: a twentieth of the limit, so a bucket costs about 20 round trips per window
 * whatever its size, and limits up to 20 (sign-in: 5 per 15 minutes) lease one hit: they count exactly.
 */
export function leaseSize(limit: number): number {
  return Math.min(MAX_LEASE, Math.max(1, Math.ceil(limit / LEASE_DIVISOR)));
}

export type LeaseFunction = (
  key: string,
  windowMs: number,
  limit: number,
  want: number,
) => Promise<RateLimitLease>;

export interface LeasedBucketsOptions {
  /** Most local buckets kept at once. Default 10000. */
  maxEntries?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of LeasedBucketsOptions; any other is refused. */
const OPTIONS = optionKeys<LeasedBucketsOptions>({ maxEntries: true, now: true });

interface Waiter {
  resolve(hit: RateLimitHit): void;
  reject(error: unknown): void;
}

interface LocalBucket {
  /** Leased hits not spent yet; valid until resetAt only. */
  tokens: number;
  /** The store's count after the last lease: hits every process reserved in this window. */
  leasedCount: number;
  resetAt: number;
  /** The last lease granted nothing: refused here, without a round trip, until resetAt. */
  usedUp: boolean;
  /** Requests waiting for the lease in flight, in arrival order. */
  waiters: Waiter[];
  /** One lease in flight per bucket: the others wait for it rather than asking too. */
  leasing: boolean;
}

/** A hit the limiter reads as refused: above the limit. */
function refused(limit: number, resetAt: number): RateLimitHit {
  return { count: limit + 1, resetAt };
}

/** Spends one leased hit; the count shown is what this process knows: every reservation, minus its unspent ones. */
function spend(bucket: LocalBucket): RateLimitHit {
  bucket.tokens -= 1;
  return { count: bucket.leasedCount - bucket.tokens, resetAt: bucket.resetAt };
}

export class LeasedBuckets {
  /**
   * A bucket lives until its window ends, and never while its lease is in flight (its waiters are served
   * either way). Past maxEntries the oldest window goes first: its unspent hits are lost, which only refuses
   * more; a used-up bucket dropped is asked again and stays refused.
   */
  private readonly buckets: ExpiringMap<LocalBucket>;
  private readonly now: () => number;

  constructor(
    private readonly lease: LeaseFunction,
    options: LeasedBucketsOptions = {},
  ) {
    rejectUnknownOptions(options, OPTIONS, 'LeasedBuckets');
    this.now = options.now ?? Date.now;
    this.buckets = new ExpiringMap<LocalBucket>({
      owner: 'LeasedBuckets',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_LEASED_BUCKETS,
      expiresAt: (bucket) => (bucket.leasing ? Number.POSITIVE_INFINITY : bucket.resetAt),
      evictable: (bucket) => !bucket.leasing,
      now: this.now,
    });
  }

  /** Local buckets held now. */
  get size(): number {
    return this.buckets.size;
  }

  /**
   * Takes one hit of `key`: synchronously from leased hits or a used-up bucket, otherwise after a lease. Rejects
   * with the store's error (STORE_UNAVAILABLE) when the lease this request waits for fails.
   */
  take(key: string, windowMs: number, limit: number): RateLimitHit | Promise<RateLimitHit> {
    // A bucket whose window ended reads as missing: hits reserved then are worth nothing now, and the new
    // one is stored as the newest, so the buckets in use stay and the idle ones are dropped first.
    const bucket = this.buckets.get(key, this.now()) ?? this.add(key);
    if (!bucket.leasing) {
      if (bucket.usedUp) return refused(limit, bucket.resetAt);
      if (bucket.tokens > 0) return spend(bucket);
    }
    const taken = new Promise<RateLimitHit>((resolve, reject) => bucket.waiters.push({ resolve, reject }));
    if (!bucket.leasing) void this.fill(bucket, key, windowMs, limit);
    return taken;
  }

  /** Leases until every waiter has a hit or the bucket is used up. Never rejects: waiters get the failure. */
  private async fill(bucket: LocalBucket, key: string, windowMs: number, limit: number): Promise<void> {
    bucket.leasing = true;
    try {
      while (bucket.waiters.length > 0) {
        // Enough for everyone waiting, so a burst costs one round trip; the hits left over after serving them
        // are still fewer than one lease.
        const want = Math.min(limit, Math.max(leaseSize(limit), bucket.waiters.length));
        let lease: RateLimitLease;
        try {
          lease = await this.lease(key, windowMs, limit, want);
        } catch (error) {
          for (const waiter of bucket.waiters.splice(0)) waiter.reject(error);
          return;
        }
        bucket.tokens = lease.granted;
        bucket.leasedCount = lease.count;
        bucket.resetAt = lease.resetAt;
        bucket.usedUp = lease.granted === 0;
        const served = Math.min(bucket.tokens, bucket.waiters.length);
        for (const waiter of bucket.waiters.splice(0, served)) waiter.resolve(spend(bucket));
        if (bucket.usedUp) {
          for (const waiter of bucket.waiters.splice(0)) waiter.resolve(refused(limit, bucket.resetAt));
        }
      }
    } finally {
      bucket.leasing = false;
      // No longer held by its lease: it now expires with its window.
      this.buckets.changed(key);
    }
  }

  private add(key: string): LocalBucket {
    const bucket: LocalBucket = {
      tokens: 0,
      leasedCount: 0,
      resetAt: 0,
      usedUp: false,
      waiters: [],
      leasing: false,
    };
    this.buckets.set(key, bucket, this.now());
    return bucket;
  }
}
