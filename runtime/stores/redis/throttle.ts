// The Redis login-throttle store (ThrottleStore). Key layout, under the prefix (default 'svc:'):
//   throttle:<key>   hash {count, windowEndsAt, lockedUntil?}; TTL until the window and any lock ended
// `hit` is one script, so concurrent failures on one key each count once.
import {
  entryExpiresAt,
  type ThrottleEntry,
  type ThrottleHit,
  type ThrottleStore,
} from '../../auth/throttle/store.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { HashRecord } from './hash.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

const ENTRY = new HashRecord<ThrottleEntry>({
  count: 'number',
  windowEndsAt: 'number',
  lockedUntil: 'number?',
});

// KEYS: entry. ARGV: now, now + windowMs, maxAttempts. Replies the entry (HGETALL).
// The same steps as MemoryThrottleStore.hit; ends_at is entryExpiresAt.
const HIT = new RedisScript(`
local now, windowEnd = tonumber(ARGV[1]), tonumber(ARGV[2])
local entry = redis.call('HMGET', KEYS[1], 'count', 'windowEndsAt', 'lockedUntil')
local count, windowEndsAt, lockedUntil = tonumber(entry[1]), tonumber(entry[2]), tonumber(entry[3])
local function ends_at() return math.max(windowEndsAt, lockedUntil or 0) end
if count and ends_at() <= now then
  redis.call('DEL', KEYS[1])
  count = nil
end
if not count then
  count, windowEndsAt, lockedUntil = 0, windowEnd, nil
elseif windowEndsAt <= now then
  -- The window ended while a lock still held: a new window starts counting from zero.
  count, windowEndsAt = 0, windowEnd
end
count = count + 1
if count >= tonumber(ARGV[3]) and not (lockedUntil and lockedUntil > now) then lockedUntil = windowEnd end
redis.call('HSET', KEYS[1], 'count', count, 'windowEndsAt', windowEndsAt)
if lockedUntil then redis.call('HSET', KEYS[1], 'lockedUntil', lockedUntil) end
redis.call('PEXPIRE', KEYS[1], math.max(ends_at() - now, 1))
return redis.call('HGETALL', KEYS[1])
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

  async hit(key: string, { windowMs, maxAttempts, now }: ThrottleHit): Promise<ThrottleEntry> {
    const reply = await HIT.run(this.client, [this.prefix + key], [now, now + windowMs, maxAttempts]);
    const entry = ENTRY.readReply(reply);
    if (entry === undefined) throw new TypeError('RedisThrottleStore: the hit script wrote no entry.');
    return entry;
  }

  async clear(key: string): Promise<void> {
    await redisCall(() => this.client.del(this.prefix + key));
  }
}
