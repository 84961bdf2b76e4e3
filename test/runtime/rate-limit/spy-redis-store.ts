// The Redis rate-limit store the leased-limit tests run on: a real Redis (REDIS_URL) under a key prefix of the
// test file's own, removed after the file, behind a spy that counts the store calls and can be made to fail
// as an unreachable store.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll } from 'vitest';
import { errors } from '../../../generated/modules/errors.js';
import type { RateLimitLease } from '../../../runtime/edge/rate-limit/index.js';
import type { RateLimitHit, RateLimitStore } from '../../../runtime/edge/rate-limit/store.js';
import {
  closeRedis,
  openRedis,
  RedisRateLimitStore,
  type RedisClient,
} from '../../../runtime/stores/redis/index.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

export class SpyRateLimitStore implements Required<RateLimitStore> {
  hits = 0;
  /** The `want` of each lease asked for, in order. */
  leases: number[] = [];
  failing = false;

  constructor(private readonly inner: RedisRateLimitStore) {}

  get calls(): number {
    return this.hits + this.leases.length;
  }

  hit(key: string, windowMs: number, limit: number): Promise<RateLimitHit> {
    this.hits += 1;
    if (this.failing) return Promise.reject(errors.STORE_UNAVAILABLE());
    return this.inner.hit(key, windowMs, limit);
  }

  lease(key: string, windowMs: number, limit: number, want: number): Promise<RateLimitLease> {
    this.leases.push(want);
    if (this.failing) return Promise.reject(errors.STORE_UNAVAILABLE());
    return this.inner.lease(key, windowMs, limit, want);
  }
}

/**
 * Opens Redis for the calling test file and answers a maker of spy stores, each on a bucket space of its own
 * (`now`: the store's clock, a fake one in most tests). Call at the top level of the file.
 */
export function spyStoresOnRedis(name: string): (now?: () => number) => SpyRateLimitStore {
  const prefix = `svc-test:${name}:${randomUUID()}:`;
  let redis: RedisClient | undefined;
  beforeAll(async () => {
    redis = await openRedis(REDIS_URL);
  });
  afterAll(async () => {
    if (redis === undefined) return;
    const [, keys] = await redis.scan('0', 'MATCH', `${prefix}*`, 'COUNT', 10_000);
    if (keys.length > 0) await redis.del(...keys);
    await closeRedis(redis);
  });
  return (now) => {
    if (redis === undefined) throw new Error('spyStoresOnRedis: Redis is not open yet (call from a test)');
    const options = { prefix: `${prefix}${randomUUID()}:`, ...(now === undefined ? {} : { now }) };
    return new SpyRateLimitStore(new RedisRateLimitStore(redis, options));
  };
}
