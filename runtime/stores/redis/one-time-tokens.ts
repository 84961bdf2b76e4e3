// The Redis verification/reset token store (OneTimeTokenStore). Key layout, under the prefix (default 'svc:'):
//   one-time:<tokenHash>     hash {purpose, userId, email, createdAt, expiresAt, usedAt?}; TTL expiresAt -
//                            createdAt. A consumed token is deleted at once: it can never work again.
//   one-time-user:<userId>   set of tokenHash; TTL that of its longest-lived token
import type {
  OneTimeTokenPurpose,
  OneTimeTokenRecord,
  OneTimeTokenStore,
} from '../../auth/stores/one-time-tokens.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { HashRecord } from './hash.js';
import { prefixOf, REDIS_STORE_OPTIONS, type RedisStoreOptions } from './keys.js';
import { LUA_RECORDS, PUT_INDEXED, RedisScript } from './script.js';

const TOKEN = new HashRecord<OneTimeTokenRecord>({
  purpose: 'string',
  userId: 'string',
  email: 'string',
  createdAt: 'number',
  expiresAt: 'number',
  usedAt: 'number?',
});

// KEYS: token. ARGV: tokenHash, purpose, now, user index key prefix. The compare-and-swap: the one call that
// finds the token with its purpose and unused deletes it, and gets the record (HGETALL) unless it expired.
const CONSUME = new RedisScript(`
local token = redis.call('HMGET', KEYS[1], 'purpose', 'userId', 'expiresAt', 'usedAt')
if token[1] ~= ARGV[2] or token[4] then return false end
local record = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1])
redis.call('SREM', ARGV[4] .. token[2], ARGV[1])
if tonumber(token[3]) <= tonumber(ARGV[3]) then return false end
return record
`);

// KEYS: user index. ARGV: userId, purpose, token key prefix.
const DELETE_BY_USER = new RedisScript(`${LUA_RECORDS}
index_each(KEYS[1], ARGV[3], 'userId', ARGV[1], function(key, tokenHash)
  if redis.call('HGET', key, 'purpose') == ARGV[2] then
    redis.call('DEL', key)
    redis.call('SREM', KEYS[1], tokenHash)
  end
end)
return 1
`);

export class RedisOneTimeTokenStore implements OneTimeTokenStore {
  private readonly tokenPrefix: string;
  private readonly userPrefix: string;

  constructor(
    private readonly client: RedisClient,
    options: RedisStoreOptions = {},
  ) {
    rejectUnknownOptions(options, REDIS_STORE_OPTIONS, 'RedisOneTimeTokenStore');
    const prefix = prefixOf(options);
    this.tokenPrefix = `${prefix}one-time:`;
    this.userPrefix = `${prefix}one-time-user:`;
  }

  async create(tokenHash: string, record: OneTimeTokenRecord): Promise<void> {
    await PUT_INDEXED.run(
      this.client,
      [this.tokenPrefix + tokenHash, this.userPrefix + record.userId],
      [tokenHash, record.expiresAt - record.createdAt, ...TOKEN.args(record)],
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
    const record = TOKEN.readReply(reply);
    return record === undefined ? undefined : { ...record, usedAt: now };
  }

  async deleteByUser(userId: string, purpose: OneTimeTokenPurpose): Promise<void> {
    await DELETE_BY_USER.run(this.client, [this.userPrefix + userId], [userId, purpose, this.tokenPrefix]);
  }
}
