// The Redis idempotency store (IdempotencyStore). Key layout, under the prefix (default 'svc:'):
//   idempotency:<key>   hash {state ('pending' | 'done'), expiresAt, status?, body?, contentType?}; a key
//                       lives `ttlMs` from its last write (setPending or complete), which is also its TTL
// Expiry is checked against the store's clock (`now`, the stored expiresAt); the TTL only reclaims memory.
import type { IdempotencyRecord, IdempotencyStore } from '../../idempotency/store.js';
import { DEFAULT_IDEMPOTENCY_TTL_MS } from '../../idempotency/memory-store.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { prefixOf, toNumber, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

// KEYS: entry. ARGV: now, now + ttlMs, ttlMs. The check-and-set: 1 when the key was free (or expired).
const SET_PENDING = new RedisScript(`
local expiresAt = redis.call('HGET', KEYS[1], 'expiresAt')
if expiresAt and tonumber(expiresAt) > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'pending', 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`);

// KEYS: entry. ARGV: now + ttlMs, ttlMs, status, body, '1' when there is a content type, content type.
// Replaces the entry in one step.
const COMPLETE = new RedisScript(`
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'state', 'done', 'expiresAt', ARGV[1], 'status', ARGV[3], 'body', ARGV[4])
if ARGV[5] == '1' then redis.call('HSET', KEYS[1], 'contentType', ARGV[6]) end
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return 1
`);

export interface RedisIdempotencyStoreOptions extends RedisStoreOptions {
  /** How long a pending or completed key is kept, in ms. Default 86400000 (24 h). */
  ttlMs?: number;
  /** Clock in epoch milliseconds; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

export class RedisIdempotencyStore implements IdempotencyStore {
  readonly ttlMs: number;
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(
    private readonly client: RedisClient,
    options: RedisIdempotencyStoreOptions = {},
  ) {
    const ttlMs = options.ttlMs ?? DEFAULT_IDEMPOTENCY_TTL_MS;
    if (!Number.isSafeInteger(ttlMs) || ttlMs < 1) {
      throw new TypeError('RedisIdempotencyStore: ttlMs must be a whole number, 1 or more.');
    }
    this.ttlMs = ttlMs;
    this.prefix = `${prefixOf(options)}idempotency:`;
    this.now = options.now ?? Date.now;
  }

  async get(key: string): Promise<IdempotencyRecord | 'pending' | undefined> {
    const fields = await redisCall(() => this.client.hgetall(this.prefix + key));
    if (fields.expiresAt === undefined || toNumber(fields.expiresAt) <= this.now()) return undefined;
    if (fields.state === 'pending') return 'pending';
    const record: IdempotencyRecord = { status: toNumber(fields.status), body: fields.body ?? '' };
    if (fields.contentType !== undefined) record.contentType = fields.contentType;
    return record;
  }

  async setPending(key: string): Promise<boolean> {
    const now = this.now();
    const reply = await SET_PENDING.run(
      this.client,
      [this.prefix + key],
      [now, now + this.ttlMs, this.ttlMs],
    );
    return toNumber(reply) === 1;
  }

  async complete(key: string, record: IdempotencyRecord): Promise<void> {
    await COMPLETE.run(
      this.client,
      [this.prefix + key],
      [
        this.now() + this.ttlMs,
        this.ttlMs,
        record.status,
        record.body,
        record.contentType === undefined ? '0' : '1',
        record.contentType ?? '',
      ],
    );
  }

  async release(key: string): Promise<void> {
    await redisCall(() => this.client.del(this.prefix + key));
  }
}
