// The Redis rate-limit store (RateLimitStore): fixed windows shared by every instance. Key layout, under the
// prefix (default 'svc:'):
//   rate-limit:<key>   hash {count, resetAt}; TTL windowMs from the hit that started the window
// `lease` reserves several hits in one script, so an instance pays one round trip per lease, not per request.
// Unlike the memory store it has no capacity bound, so `limit` is not needed (Redis evicts by its own policy).
import type { RateLimitHit, RateLimitLease, RateLimitStore } from '../../edge/rate-limit/store.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { arrayReply } from './hash.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

// KEYS: bucket. ARGV: now, now + windowMs, windowMs. Replies {count, resetAt}.
const HIT = new RedisScript(`
local resetAt = redis.call('HGET', KEYS[1], 'resetAt')
if resetAt and tonumber(resetAt) > tonumber(ARGV[1]) then
  return {redis.call('HINCRBY', KEYS[1], 'count', 1), resetAt}
end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'count', 1, 'resetAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return {1, ARGV[2]}
`);

// KEYS: bucket. ARGV: now, now + windowMs, windowMs, limit, want. Replies {granted, count, resetAt}. Never
// counts past the limit: what it grants is reserved, so every instance's grants together stay within it.
const LEASE = new RedisScript(`
local count = 0
local resetAt = redis.call('HGET', KEYS[1], 'resetAt')
if resetAt and tonumber(resetAt) > tonumber(ARGV[1]) then
  count = tonumber(redis.call('HGET', KEYS[1], 'count'))
else
  resetAt = ARGV[2]
  redis.call('DEL', KEYS[1])
  redis.call('HSET', KEYS[1], 'count', 0, 'resetAt', resetAt)
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
local granted = math.min(tonumber(ARGV[5]), math.max(0, tonumber(ARGV[4]) - count))
if granted > 0 then count = redis.call('HINCRBY', KEYS[1], 'count', granted) end
return {granted, count, resetAt}
`);

export interface RedisRateLimitStoreOptions extends RedisStoreOptions {
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of RedisRateLimitStoreOptions, its parent's included. */
const STORE_OPTIONS = optionKeys<RedisRateLimitStoreOptions>({
  prefix: true,
  now: true,
});

export class RedisRateLimitStore implements RateLimitStore {
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(
    private readonly client: RedisClient,
    options: RedisRateLimitStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'RedisRateLimitStore');
    this.prefix = `${prefixOf(options)}rate-limit:`;
    this.now = options.now ?? Date.now;
  }

  async hit(key: string, windowMs: number, _limit: number): Promise<RateLimitHit> {
    const now = this.now();
    const reply = await HIT.run(this.client, [this.prefix + key], [now, now + windowMs, windowMs]);
    const [count, resetAt] = arrayReply(reply);
    return { count: Number(count), resetAt: Number(resetAt) };
  }

  async lease(key: string, windowMs: number, limit: number, want: number): Promise<RateLimitLease> {
    const now = this.now();
    const reply = await LEASE.run(
      this.client,
      [this.prefix + key],
      [now, now + windowMs, windowMs, limit, want],
    );
    const [granted, count, resetAt] = arrayReply(reply);
    return { granted: Number(granted), count: Number(count), resetAt: Number(resetAt) };
  }
}
