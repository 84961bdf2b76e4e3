// The Redis idempotency store (IdempotencyStore). Key layout, under the prefix (default 'svc:'):
//   idempotency:<key>   hash {state ('pending' | 'done'), expiresAt, status?, body?, contentType?,
//                       fingerprint?}; a key
//                       lives `ttlMs` from its last write (setPending or complete), which is also its TTL
// Expiry is checked against the store's clock (`now`, the stored expiresAt); the TTL only reclaims memory.
import type { IdempotencyRecord, IdempotencyStore } from '../../idempotency/store.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../idempotency/memory-store.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { HashRecord } from './hash.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { LUA_RECORDS, RedisScript } from './script.js';

const RECORD = new HashRecord<IdempotencyRecord>({
  status: 'number',
  body: 'string',
  contentType: 'string?',
  fingerprint: 'string?',
});

// KEYS: entry. ARGV: now, ttlMs, then the entry's fields. The check-and-set: 1 when the key was free (or
// expired).
const SET_PENDING = new RedisScript(`${LUA_RECORDS}
local expiresAt = redis.call('HGET', KEYS[1], 'expiresAt')
if expiresAt and tonumber(expiresAt) > tonumber(ARGV[1]) then return 0 end
put_record(KEYS[1], tonumber(ARGV[2]), 3)
return 1
`);

// KEYS: entry. ARGV: ttlMs, then the entry's fields. Replaces the entry in one step.
const COMPLETE = new RedisScript(`${LUA_RECORDS}
put_record(KEYS[1], tonumber(ARGV[1]), 2)
return 1
`);

export interface RedisIdempotencyStoreOptions extends RedisStoreOptions {
  /** How long a pending or completed key is kept, in ms. Default 86400000 (24 h). */
  ttlMs?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of RedisIdempotencyStoreOptions, its parent's included. */
const STORE_OPTIONS = optionKeys<RedisIdempotencyStoreOptions>({
  prefix: true,
  ttlMs: true,
  now: true,
});

export class RedisIdempotencyStore implements IdempotencyStore {
  readonly ttlMs: number;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(
    private readonly client: RedisClient,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'RedisIdempotencyStore');
    this.ttlMs = positiveWholeNumber(
      options.ttlMs,
      DEFAULT_IDEMPOTENCY_TTL_MS,
      'RedisIdempotencyStore',
      'ttlMs',
    );
    this.prefix = `${prefixOf(options)}idempotency:`;
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<IdempotencyRecord | 'pending' | undefined> {
    const fields = await redisCall(() => this.client.hgetall(this.prefix + key));
    if (fields.expiresAt === undefined || Number(fields.expiresAt) <= this.now()) return undefined;
    return fields.state === 'pending' ? 'pending' : RECORD.read(fields);
  }

  async setPending(key: string): Promise<boolean> {
    const now = this.now();
    const entry = ['state', 'pending', 'expiresAt', now + this.ttlMs];
    return (await SET_PENDING.run(this.client, [this.prefix + key], [now, this.ttlMs, ...entry])) === 1;
  }

  async complete(key: string, record: IdempotencyRecord): Promise<void> {
    const entry = ['state', 'done', 'expiresAt', this.now() + this.ttlMs, ...RECORD.args(record)];
    await COMPLETE.run(this.client, [this.prefix + key], [this.ttlMs, ...entry]);
  }

  async release(key: string): Promise<void> {
    await redisCall(() => this.client.del(this.prefix + key));
  }
}
