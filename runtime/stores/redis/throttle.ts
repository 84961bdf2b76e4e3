// The Redis login-throttle store (ThrottleStore). Key layout, under the prefix (default 'svc:'):
//   throttle:<key>   hash {count, windowEndsAt, lockedUntil?}; TTL until the window and any lock ended
// `reserve` and `refund` are one script each, so concurrent attempts on one key, from any number of
// processes, are decided one after the other.
import {
  entryExpiresAt,
  type ThrottleEntry,
  type ThrottleRefund,
  type ThrottleReservation,
  type ThrottleReserved,
  type ThrottleStore,
} from '../../auth/throttle/store.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { arrayReply, HashRecord } from './hash.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

const ENTRY = new HashRecord<ThrottleEntry>({
  count: 'number',
  windowEndsAt: 'number',
  lockedUntil: 'number?',
});

// KEYS: entry. ARGV: now, windowMs, maxAttempts. Replies {1 granted or 0 refused, the entry (HGETALL)}.
// The same steps as MemoryThrottleStore.reserve. A key past its window and lock counts as new whether or not
// Redis has expired it yet (its TTL runs on Redis's clock, the times on svc's).
const RESERVE = new RedisScript(`
local now, windowMs, maxAttempts = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local entry = redis.call('HMGET', KEYS[1], 'count', 'windowEndsAt', 'lockedUntil')
local count, windowEndsAt, lockedUntil = tonumber(entry[1]), tonumber(entry[2]), tonumber(entry[3])
if lockedUntil and lockedUntil > now then return {0, redis.call('HGETALL', KEYS[1])} end
if not count or windowEndsAt <= now then count, windowEndsAt = 0, now + windowMs end
redis.call('HDEL', KEYS[1], 'lockedUntil')
redis.call('HSET', KEYS[1], 'count', count, 'windowEndsAt', windowEndsAt)
local granted = 0
if count < maxAttempts then
  granted, count = 1, count + 1
  redis.call('HSET', KEYS[1], 'count', count)
  if count >= maxAttempts then
    lockedUntil = now + windowMs
    redis.call('HSET', KEYS[1], 'lockedUntil', lockedUntil)
  end
end
redis.call('PEXPIRE', KEYS[1], math.max(math.max(windowEndsAt, lockedUntil or 0) - now, 1))
return {granted, redis.call('HGETALL', KEYS[1])}
`);

// KEYS: entry. ARGV: windowEndsAt of the reservation, maxAttempts, now. Replies nothing useful.
const REFUND = new RedisScript(`
local entry = redis.call('HMGET', KEYS[1], 'count', 'windowEndsAt', 'lockedUntil')
local count, windowEndsAt, lockedUntil = tonumber(entry[1]), tonumber(entry[2]), tonumber(entry[3])
local now = tonumber(ARGV[3])
if not count or windowEndsAt ~= tonumber(ARGV[1]) or math.max(windowEndsAt, lockedUntil or 0) <= now then
  return 0
end
count = math.max(count - 1, 0)
redis.call('HSET', KEYS[1], 'count', count)
if lockedUntil and count < tonumber(ARGV[2]) then
  redis.call('HDEL', KEYS[1], 'lockedUntil')
  if windowEndsAt <= now then
    redis.call('DEL', KEYS[1])
  else
    redis.call('PEXPIRE', KEYS[1], windowEndsAt - now)
  end
end
return 1
`);

export class RedisThrottleStore implements ThrottleStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    this.prefix = `${prefixOf(options)}throttle:`;
  }

  async get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const entry = ENTRY.read(await redisCall(() => this.client.hgetall(this.prefix + key)));
    return entry !== undefined && entryExpiresAt(entry) > now ? entry : undefined;
  }

  async reserve(key: string, { windowMs, maxAttempts, now }: ThrottleReservation): Promise<ThrottleReserved> {
    const reply = arrayReply(
      await RESERVE.run(this.client, [this.prefix + key], [now, windowMs, maxAttempts]),
    );
    const entry = ENTRY.readReply(reply[1]);
    if (reply[0] === 1 && entry !== undefined) return { granted: true, entry };
    if (reply[0] === 1) throw new TypeError('RedisThrottleStore: the reserve script wrote no entry.');
    return { granted: false, entry };
  }

  async refund(key: string, { windowEndsAt, maxAttempts, now }: ThrottleRefund): Promise<void> {
    await REFUND.run(this.client, [this.prefix + key], [windowEndsAt, maxAttempts, now]);
  }

  async clear(key: string): Promise<void> {
    await redisCall(() => this.client.del(this.prefix + key));
  }
}
