// The Redis session store (SessionStore). Key layout, under the prefix (default 'svc:'):
//   session:<idHash>        hash {userId, amr (JSON), createdAt, expiresAt}; TTL expiresAt - createdAt
//   session-user:<userId>   set of idHash; TTL that of its longest-lived session
// Expiry is checked against the caller's `now` (the stored expiresAt); the key TTL only reclaims memory.
import type { SessionRecord, SessionStore } from '../../auth/stores/sessions.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { prefixOf, toNumber, type RedisStoreOptions } from './keys.js';
import { LUA_INDEX_ADD, RedisScript } from './script.js';

// KEYS: session, user index. ARGV: idHash, userId, amr, createdAt, expiresAt.
const CREATE = new RedisScript(`${LUA_INDEX_ADD}
redis.call('DEL', KEYS[1])
local ttl = tonumber(ARGV[5]) - tonumber(ARGV[4])
if ttl <= 0 then return 0 end
redis.call('HSET', KEYS[1], 'userId', ARGV[2], 'amr', ARGV[3], 'createdAt', ARGV[4], 'expiresAt', ARGV[5])
redis.call('PEXPIRE', KEYS[1], ttl)
index_add(KEYS[2], ARGV[1], ttl)
return 1
`);

// KEYS: session. ARGV: idHash, user index key prefix.
const DELETE = new RedisScript(`
local userId = redis.call('HGET', KEYS[1], 'userId')
if not userId then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[2] .. userId, ARGV[1])
return 1
`);

// KEYS: user index. ARGV: userId, session key prefix. Counts the sessions still stored (expired keys are gone).
const DELETE_BY_USER = new RedisScript(`
local ended = 0
for _, idHash in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[2] .. idHash
  if redis.call('HGET', key, 'userId') == ARGV[1] then
    redis.call('DEL', key)
    ended = ended + 1
  end
end
redis.call('DEL', KEYS[1])
return ended
`);

export class RedisSessionStore implements SessionStore {
  private readonly sessionPrefix: string;
  private readonly userPrefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    const prefix = prefixOf(options);
    this.sessionPrefix = `${prefix}session:`;
    this.userPrefix = `${prefix}session-user:`;
  }

  async create(idHash: string, record: SessionRecord): Promise<void> {
    await CREATE.run(
      this.client,
      [this.sessionPrefix + idHash, this.userPrefix + record.userId],
      [idHash, record.userId, JSON.stringify(record.amr), record.createdAt, record.expiresAt],
    );
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const fields = await redisCall(() => this.client.hgetall(this.sessionPrefix + idHash));
    if (fields.userId === undefined || fields.expiresAt === undefined) return undefined;
    const expiresAt = toNumber(fields.expiresAt);
    if (expiresAt <= now) return undefined;
    return {
      userId: fields.userId,
      amr: JSON.parse(fields.amr ?? '[]') as string[],
      createdAt: toNumber(fields.createdAt),
      expiresAt,
    };
  }

  async delete(idHash: string): Promise<void> {
    await DELETE.run(this.client, [this.sessionPrefix + idHash], [idHash, this.userPrefix]);
  }

  /** Counts every session of the user still stored, expired ones Redis has not dropped yet included. */
  async deleteByUser(userId: string): Promise<number> {
    const ended = await DELETE_BY_USER.run(
      this.client,
      [this.userPrefix + userId],
      [userId, this.sessionPrefix],
    );
    return toNumber(ended);
  }
}
