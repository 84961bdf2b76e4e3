// The rate-limit store contract: one atomic increment per request. It is async so a shared
// store (Redis, SQL) can implement it and every svc instance counts into the same buckets.

/** The state of one bucket right after a hit. */
export interface RateLimitHit {
  /** Hits counted in the current window, this one included; above the limit means the request is refused. */
  count: number;
  /** When the current window ends, in epoch milliseconds. */
  resetAt: number;
}

export interface RateLimitStore {
  /**
   * Counts one hit on `key` atomically and answers the bucket's state. A bucket whose window ended starts a
   * new fixed window of `windowMs`. `limit` lets a bounded store know which buckets are used up.
   */
  hit(key: string, windowMs: number, limit: number): Promise<RateLimitHit>;
}
