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
import { arrayReply, optionalNumber, prefixOf, toNumber, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

// KEYS: entry. ARGV: now, now + windowMs, maxAttempts. Replies {count, windowEndsAt, lockedUntil or ''}.
// The same steps as MemoryThrottleStore.hit.
const HIT = new RedisScript(`
local now = tonumber(ARGV[1])
local entry = redis.call('HMGET', KEYS[1], 'count', 'windowEndsAt', 'lockedUntil')
local count, windowEndsAt, lockedUntil = tonumber(entry[1]), entry[2], entry[3]
if count and math.max(tonumber(windowEndsAt), tonumber(lockedUntil or '0')) <= now then
  count = nil
end
if not count then
  redis.call('DEL', KEYS[1])
  count, windowEndsAt, lockedUntil = 0, ARGV[2], false
elseif tonumber(windowEndsAt) <= now then
  -- The window ended while a lock still held: a new window starts counting from zero.
  count, windowEndsAt = 0, ARGV[2]
end
count = count + 1
if count >= tonumber(ARGV[3]) and not (lockedUntil and tonumber(lockedUntil) > now) then
  lockedUntil = ARGV[2]
end
redis.call('HSET', KEYS[1], 'count', count, 'windowEndsAt', windowEndsAt)
if lockedUntil then redis.call('HSET', KEYS[1], 'lockedUntil', lockedUntil) end
local ttl = math.max(tonumber(windowEndsAt), tonumber(lockedUntil or '0')) - now
redis.call('PEXPIRE', KEYS[1], math.max(ttl, 1))
return {count, windowEndsAt, lockedUntil or ''}
`);

function entryOf(count: unknown, windowEndsAt: unknown, lockedUntil: unknown): ThrottleEntry {
  const entry: ThrottleEntry = { count: toNumber(count), windowEndsAt: toNumber(windowEndsAt) };
  const locked = optionalNumber(lockedUntil);
  if (locked !== undefined) entry.lockedUntil = locked;
  return entry;
}

export class RedisThrottleStore implements ThrottleStore {
  private readonly prefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    this.prefix = `${prefixOf(options)}throttle:`;
  }

  async get(key: string, now: number): Promise<ThrottleEntry | undefined> {
    const [count, windowEndsAt, lockedUntil] = await redisCall(() =>
      this.client.hmget(this.prefix + key, 'count', 'windowEndsAt', 'lockedUntil'),
    );
    if (count === null || count === undefined) return undefined;
    const entry = entryOf(count, windowEndsAt, lockedUntil);
    return entryExpiresAt(entry) <= now ? undefined : entry;
  }

  async hit(key: string, { windowMs, maxAttempts, now }: ThrottleHit): Promise<ThrottleEntry> {
    const reply = await HIT.run(this.client, [this.prefix + key], [now, now + windowMs, maxAttempts]);
    const [count, windowEndsAt, lockedUntil] = arrayReply(reply);
    return entryOf(count, windowEndsAt, lockedUntil);
  }

  async clear(key: string): Promise<void> {
    await redisCall(() => this.client.del(this.prefix + key));
  }
}
