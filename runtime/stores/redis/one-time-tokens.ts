// The Redis verification/reset token store (OneTimeTokenStore). Key layout, under the prefix (default 'svc:'):
//   one-time:<tokenHash>     hash {purpose, userId, email, createdAt, expiresAt, usedAt?}; TTL expiresAt -
//                            createdAt. A consumed token is deleted at once: it can never work again.
//   one-time-user:<userId>   set of tokenHash; TTL that of its longest-lived token
import type {
  OneTimeTokenPurpose,
  OneTimeTokenRecord,
  OneTimeTokenStore,
} from '../../auth/stores/one-time-tokens.js';
import type { RedisClient } from './client.js';
import { arrayReply, prefixOf, toNumber, type RedisStoreOptions } from './keys.js';
import { LUA_INDEX_ADD, RedisScript } from './script.js';

// KEYS: token, user index. ARGV: tokenHash, purpose, userId, email, createdAt, expiresAt, usedAt or ''.
const CREATE = new RedisScript(`${LUA_INDEX_ADD}
redis.call('DEL', KEYS[1])
local ttl = tonumber(ARGV[6]) - tonumber(ARGV[5])
if ttl <= 0 then return 0 end
redis.call('HSET', KEYS[1], 'purpose', ARGV[2], 'userId', ARGV[3], 'email', ARGV[4], 'createdAt', ARGV[5],
  'expiresAt', ARGV[6])
if ARGV[7] ~= '' then redis.call('HSET', KEYS[1], 'usedAt', ARGV[7]) end
redis.call('PEXPIRE', KEYS[1], ttl)
index_add(KEYS[2], ARGV[1], ttl)
return 1
`);

// KEYS: token. ARGV: tokenHash, purpose, now, user index key prefix. The compare-and-swap: the one call that
// finds the token with its purpose and unused deletes it, and gets the record unless it expired.
const CONSUME = new RedisScript(`
local token = redis.call('HMGET', KEYS[1], 'purpose', 'userId', 'email', 'createdAt', 'expiresAt', 'usedAt')
if not token[1] or token[1] ~= ARGV[2] or token[6] then return false end
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[4] .. token[2], ARGV[1])
if tonumber(token[5]) <= tonumber(ARGV[3]) then return false end
return {token[1], token[2], token[3], token[4], token[5]}
`);

// KEYS: user index. ARGV: userId, purpose, token key prefix.
const DELETE_BY_USER = new RedisScript(`
for _, tokenHash in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  local key = ARGV[3] .. tokenHash
  local token = redis.call('HMGET', key, 'userId', 'purpose')
  if token[1] ~= ARGV[1] then
    -- Expired (or replaced) since it was indexed.
    redis.call('SREM', KEYS[1], tokenHash)
  elseif token[2] == ARGV[2] then
    redis.call('DEL', key)
    redis.call('SREM', KEYS[1], tokenHash)
  end
end
return 1
`);

export class RedisOneTimeTokenStore implements OneTimeTokenStore {
  private readonly tokenPrefix: string;
  private readonly userPrefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    const prefix = prefixOf(options);
    this.tokenPrefix = `${prefix}one-time:`;
    this.userPrefix = `${prefix}one-time-user:`;
  }

  async create(tokenHash: string, record: OneTimeTokenRecord): Promise<void> {
    await CREATE.run(
      this.client,
      [this.tokenPrefix + tokenHash, this.userPrefix + record.userId],
      [
        tokenHash,
        record.purpose,
        record.userId,
        record.email,
        record.createdAt,
        record.expiresAt,
        record.usedAt ?? '',
      ],
    );
  }

  async consume(
    tokenHash: string,
    purpose: OneTimeTokenPurpose,
    now: number,
  ): Promise<OneTimeTokenRecord | undefined> {
    const reply = await CONSUME.run(
      this.client,
      [this.tokenPrefix + tokenHash],
      [tokenHash, purpose, now, this.userPrefix],
    );
    if (reply === null) return undefined;
    const [storedPurpose, userId, email, createdAt, expiresAt] = arrayReply(reply);
    return {
      purpose: storedPurpose as OneTimeTokenPurpose,
      userId: String(userId),
      email: String(email),
      createdAt: toNumber(createdAt),
      expiresAt: toNumber(expiresAt),
      usedAt: now,
    };
  }

  async deleteByUser(userId: string, purpose: OneTimeTokenPurpose): Promise<void> {
    await DELETE_BY_USER.run(this.client, [this.userPrefix + userId], [userId, purpose, this.tokenPrefix]);
  }
}
