// The rate-limit store contract: one atomic increment per request. It is async so a shared
// store (Redis, SQL) can implement it and every svc instance counts into the same buckets. A shared store may
// also lease: hand a process several hits of a bucket at once, which it then spends without asking again.

/** The state of one bucket right after a hit. */
export interface RateLimitHit {
  /** Hits counted in the current window, this one included; above the limit means the request is refused. */
  count: number;
  /** When the current window ends, in epoch milliseconds. */
  resetAt: number;
}

/** What one lease reserved in a bucket. */
export interface RateLimitLease {
  /** Hits reserved for the caller, 0 to `want`; 0 means the bucket is used up until `resetAt`. */
  granted: number;
  /** Hits counted in the current window after the lease, the granted ones included (never above the limit). */
  count: number;
  /** When the current window ends, in epoch milliseconds; the granted hits are valid until then only. */
  resetAt: number;
}

export interface RateLimitStore {
  /**
   * Counts one hit on `key` atomically and answers the bucket's state. A bucket whose window ended starts a
   * new fixed window of `windowMs`. `limit` lets a bounded store know which buckets are used up.
   */
  hit(key: string, windowMs: number, limit: number): Promise<RateLimitHit>;
  /**
   * Reserves up to `want` hits of `key` atomically: the window restarts when it ended, then
   * `granted = min(want, max(0, limit - count))` and `count += granted`. Never counts past `limit`, so the sum
   * of every process's grants in a window stays within it. Optional: a store without it is hit per request.
   */
  lease?(key: string, windowMs: number, limit: number, want: number): Promise<RateLimitLease>;
}
