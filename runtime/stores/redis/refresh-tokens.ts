// The Redis refresh-token store (RefreshTokenStore). Key layout, under the prefix (default 'svc:'):
//   refresh:<tokenHash>              hash {userId, familyId, amr (JSON), createdAt, expiresAt, usedAt?,
//                                    revokedAt?}; TTL expiresAt - createdAt
//   refresh-family:<familyId>        set of tokenHash; TTL that of its longest-lived token
//   refresh-user:<userId>            set of tokenHash; TTL that of its longest-lived token
//   refresh-family-revoked:<family>  hash {revokedAt, expiresAt}: tokens created in the family before
//                                    expiresAt are born revoked; TTL expiresAt - now
//   refresh-user-revoked:<userId>    string revokedAt: tokens of the user dated at or before it are born
//                                    revoked; TTL USER_REVOCATION_MARK_TTL_MS
// Expiry is checked against the caller's `now` (the stored expiresAt); key TTLs only reclaim memory.
import type { RefreshTokenRecord, RefreshTokenStore } from '../../auth/stores/refresh-tokens.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { HashRecord } from './hash.js';
import { prefixOf, REDIS_STORE_OPTIONS, type RedisStoreOptions } from './keys.js';
import { LUA_RECORDS, RedisScript } from './script.js';

/**
 * How long a revokeUser mark lasts (24 h). It only has to outlive the sign-ins and rotations in flight when the
 * password was reset (seconds), since only tokens dated at or before the mark are born revoked by it.
 */
export const USER_REVOCATION_MARK_TTL_MS = 86_400_000;

const TOKEN = new HashRecord<RefreshTokenRecord>({
  userId: 'string',
  familyId: 'string',
  amr: 'json',
  createdAt: 'number',
  expiresAt: 'number',
  usedAt: 'number?',
  revokedAt: 'number?',
});

// KEYS: token, family index, user index, family mark, user mark. ARGV: tokenHash, createdAt, expiresAt, then
// the record's fields. The record's createdAt is the clock: a rotation racing a revocation is born revoked.
const CREATE = new RedisScript(`${LUA_RECORDS}
local now, expiresAt = tonumber(ARGV[2]), tonumber(ARGV[3])
local ttl = expiresAt - now
local revokedAt = false
local mark = redis.call('HMGET', KEYS[4], 'revokedAt', 'expiresAt')
if mark[1] then
  if tonumber(mark[2]) <= now then
    redis.call('DEL', KEYS[4])
  else
    revokedAt = mark[1]
    -- The mark outlives every token created in the family while it holds.
    if expiresAt > tonumber(mark[2]) then
      redis.call('HSET', KEYS[4], 'expiresAt', ARGV[3])
      redis.call('PEXPIRE', KEYS[4], ttl)
    end
  end
end
local userMark = redis.call('GET', KEYS[5])
if not revokedAt and userMark and now <= tonumber(userMark) then revokedAt = userMark end
if not put_record(KEYS[1], ttl, 4) then return 0 end
-- A revokedAt the record came with stays.
if revokedAt then redis.call('HSETNX', KEYS[1], 'revokedAt', revokedAt) end
index_add(KEYS[2], ARGV[1], ttl)
index_add(KEYS[3], ARGV[1], ttl)
return 1
`);

// KEYS: token. ARGV: now. The compare-and-swap: 1 for the one call that found the token live and unspent.
const MARK_USED = new RedisScript(`
local token = redis.call('HMGET', KEYS[1], 'expiresAt', 'usedAt', 'revokedAt')
if not token[1] or tonumber(token[1]) <= tonumber(ARGV[1]) or token[2] or token[3] then return 0 end
redis.call('HSET', KEYS[1], 'usedAt', ARGV[1])
return 1
`);

// KEYS: family index, family mark. ARGV: now, until, token key prefix, familyId.
const REVOKE_FAMILY = new RedisScript(`${LUA_RECORDS}
local now = tonumber(ARGV[1])
local lastExpiry = tonumber(ARGV[2])
index_each(KEYS[1], ARGV[3], 'familyId', ARGV[4], function(key)
  redis.call('HSETNX', key, 'revokedAt', ARGV[1])
  lastExpiry = math.max(lastExpiry, tonumber(redis.call('HGET', key, 'expiresAt')))
end)
local markEnds = redis.call('HGET', KEYS[2], 'expiresAt')
if markEnds and tonumber(markEnds) > now then
  if lastExpiry <= tonumber(markEnds) then return 1 end
  redis.call('HSET', KEYS[2], 'expiresAt', lastExpiry)
elseif lastExpiry > now then
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], 'revokedAt', ARGV[1], 'expiresAt', lastExpiry)
else
  return 0
end
redis.call('PEXPIRE', KEYS[2], lastExpiry - now)
return 1
`);

// KEYS: user index, user mark. ARGV: now, token key prefix, userId, mark TTL.
const REVOKE_USER = new RedisScript(`${LUA_RECORDS}
index_each(KEYS[1], ARGV[2], 'userId', ARGV[3], function(key)
  redis.call('HSETNX', key, 'revokedAt', ARGV[1])
end)
-- Of two resets, the later mark covers both.
local mark = redis.call('GET', KEYS[2])
if mark and tonumber(mark) >= tonumber(ARGV[1]) then
  redis.call('PEXPIRE', KEYS[2], ARGV[4])
else
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[4])
end
return 1
`);

export class RedisRefreshTokenStore implements RefreshTokenStore {
  private readonly tokenPrefix: string;
  private readonly familyPrefix: string;
  private readonly userPrefix: string;
  private readonly familyMarkPrefix: string;
  private readonly userMarkPrefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    rejectUnknownOptions(options, REDIS_STORE_OPTIONS, 'RedisRefreshTokenStore');
    const prefix = prefixOf(options);
    this.tokenPrefix = `${prefix}refresh:`;
    this.familyPrefix = `${prefix}refresh-family:`;
    this.userPrefix = `${prefix}refresh-user:`;
    this.familyMarkPrefix = `${prefix}refresh-family-revoked:`;
    this.userMarkPrefix = `${prefix}refresh-user-revoked:`;
  }

  async create(tokenHash: string, record: RefreshTokenRecord): Promise<void> {
    await CREATE.run(
      this.client,
      [
        this.tokenPrefix + tokenHash,
        this.familyPrefix + record.familyId,
        this.userPrefix + record.userId,
        this.familyMarkPrefix + record.familyId,
        this.userMarkPrefix + record.userId,
      ],
      [tokenHash, record.createdAt, record.expiresAt, ...TOKEN.args(record)],
    );
  }

  async get(tokenHash: string, now: number): Promise<RefreshTokenRecord | undefined> {
    const record = TOKEN.read(await redisCall(() => this.client.hgetall(this.tokenPrefix + tokenHash)));
    return record !== undefined && record.expiresAt > now ? record : undefined;
  }

  async markUsed(tokenHash: string, now: number): Promise<boolean> {
    return (await MARK_USED.run(this.client, [this.tokenPrefix + tokenHash], [now])) === 1;
  }

  async revokeFamily(familyId: string, now: number, until: number): Promise<void> {
    await REVOKE_FAMILY.run(
      this.client,
      [this.familyPrefix + familyId, this.familyMarkPrefix + familyId],
      [now, until, this.tokenPrefix, familyId],
    );
  }

  async revokeUser(userId: string, now: number): Promise<void> {
    await REVOKE_USER.run(
      this.client,
      [this.userPrefix + userId, this.userMarkPrefix + userId],
      [now, this.tokenPrefix, userId, USER_REVOCATION_MARK_TTL_MS],
    );
  }
}
