// The Redis session store (SessionStore). Key layout, under the prefix (default 'svc:'):
//   session:<idHash>        hash {userId, amr (JSON), createdAt, expiresAt}; TTL expiresAt - createdAt
//   session-user:<userId>   set of idHash; TTL that of its longest-lived session
// Expiry is checked against the caller's `now` (the stored expiresAt); the key TTL only reclaims memory.
import type { SessionRecord, SessionStore } from '../../auth/stores/sessions.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { HashRecord } from './hash.js';
import { prefixOf, REDIS_STORE_OPTIONS, type RedisStoreOptions } from './keys.js';
import { LUA_RECORDS, PUT_INDEXED, RedisScript } from './script.js';

const SESSION = new HashRecord<SessionRecord>({
  userId: 'string',
  amr: 'json',
  createdAt: 'number',
  expiresAt: 'number',
});

// KEYS: session. ARGV: idHash, user index key prefix.
const DELETE = new RedisScript(`
local userId = redis.call('HGET', KEYS[1], 'userId')
if not userId then return 0 end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[2] .. userId, ARGV[1])
return 1
`);

// KEYS: user index. ARGV: userId, session key prefix. Counts the sessions still stored (expired keys are gone).
const DELETE_BY_USER = new RedisScript(`${LUA_RECORDS}
local ended = 0
index_each(KEYS[1], ARGV[2], 'userId', ARGV[1], function(key)
  redis.call('DEL', key)
  ended = ended + 1
end)
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
    rejectUnknownOptions(options, REDIS_STORE_OPTIONS, 'RedisSessionStore');
    const prefix = prefixOf(options);
    this.sessionPrefix = `${prefix}session:`;
    this.userPrefix = `${prefix}session-user:`;
  }

  async create(idHash: string, record: SessionRecord): Promise<void> {
    await PUT_INDEXED.run(
      this.client,
      [this.sessionPrefix + idHash, this.userPrefix + record.userId],
      [idHash, record.expiresAt - record.createdAt, ...SESSION.args(record)],
    );
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const record = SESSION.read(await redisCall(() => this.client.hgetall(this.sessionPrefix + idHash)));
    return record !== undefined && record.expiresAt > now ? record : undefined;
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
    return Number(ended);
  }
}
