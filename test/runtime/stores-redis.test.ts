// The Redis stores (docs/stores.md): every store contract, then what only Redis promises: every key expires,
// prefixes isolate, concurrent calls from several clients stay atomic, and an unreachable Redis answers
// STORE_UNAVAILABLE (503) fast and recovers without a new client. Needs Redis at REDIS_URL (default
// redis://127.0.0.1:6379) and `redis-server` on the PATH (started on a free port for the outage tests).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeRedis,
  openRedis,
  pingRedis,
  redisFailure,
  redisStores,
  RedisIdempotencyStore,
  RedisMcpSessionStore,
  RedisOneTimeTokenStore,
  RedisRateLimitStore,
  RedisRefreshTokenStore,
  RedisSessionStore,
  RedisThrottleStore,
  USER_REVOCATION_MARK_TTL_MS,
  type RedisClient,
} from '../../runtime/stores/redis/index.js';
import { HttpError } from 'svckit';
import { idempotencyStoreContract } from './contracts/idempotency-store.js';
import { mcpSessionStoreContract } from './contracts/mcp-session-store.js';
import { oneTimeTokenStoreContract } from './contracts/one-time-token-store.js';
import { rateLimitStoreContract } from './contracts/rate-limit-store.js';
import { refreshTokenStoreContract } from './contracts/refresh-token-store.js';
import { rejectionOf } from './contracts/rejection.js';
import { sessionStoreContract } from './contracts/session-store.js';
import { throttleStoreContract } from './contracts/throttle-store.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

let client: RedisClient;
/** More clients on the same Redis, standing for other service instances in the concurrency tests. */
const others: RedisClient[] = [];
const prefixes: string[] = [];

function freshPrefix(): string {
  const prefix = `svc-test:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
}

async function keysOf(redis: RedisClient, prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    cursor = next;
    keys.push(...batch);
  } while (cursor !== '0');
  return keys;
}

beforeAll(async () => {
  client = await openRedis(REDIS_URL);
  for (let i = 0; i < 2; i++) others.push(await openRedis(REDIS_URL));
  await pingRedis(client);
});

afterAll(async () => {
  if (client === undefined) return;
  for (const prefix of prefixes) {
    const keys = await keysOf(client, prefix);
    if (keys.length > 0) await client.del(...keys);
  }
  for (const redis of [client, ...others]) await closeRedis(redis);
});

sessionStoreContract('RedisSessionStore', () => new RedisSessionStore(client, { prefix: freshPrefix() }));
refreshTokenStoreContract(
  'RedisRefreshTokenStore',
  () => new RedisRefreshTokenStore(client, { prefix: freshPrefix() }),
);
oneTimeTokenStoreContract(
  'RedisOneTimeTokenStore',
  () => new RedisOneTimeTokenStore(client, { prefix: freshPrefix() }),
);
throttleStoreContract('RedisThrottleStore', () => new RedisThrottleStore(client, { prefix: freshPrefix() }));
rateLimitStoreContract(
  'RedisRateLimitStore',
  (now) => new RedisRateLimitStore(client, { prefix: freshPrefix(), now }),
);
idempotencyStoreContract(
  'RedisIdempotencyStore',
  ({ now, ttlMs }) => new RedisIdempotencyStore(client, { prefix: freshPrefix(), now, ttlMs }),
);
mcpSessionStoreContract(
  'RedisMcpSessionStore',
  (limits, clock) => new RedisMcpSessionStore(client, limits, { prefix: freshPrefix(), now: clock.now }),
);

describe('Redis stores: keys', () => {
  it('gives every key it writes a TTL relative to the caller’s clock', async () => {
    const prefix = freshPrefix();
    const stores = redisStores(client, { prefix, now: () => T0 });
    const { sessions, refreshTokens, oneTimeTokens, throttle, rateLimit } = stores;
    await sessions.create('s1', { userId: 'u1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + HOUR });
    await sessions.create('s2', { userId: 'u1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + DAY });
    await sessions.delete('s1');
    const token = { userId: 'u1', familyId: 'f1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + DAY };
    await refreshTokens.create('r1', token);
    await refreshTokens.markUsed('r1', T0 + 1);
    await refreshTokens.create('r2', { ...token, createdAt: T0 + 1 });
    await refreshTokens.revokeFamily('f1', T0 + 2, T0 + 2 * DAY);
    await refreshTokens.revokeFamily('never-seen', T0 + 2, T0 + DAY);
    await refreshTokens.revokeUser('u1', T0 + 3);
    await refreshTokens.create('r3', { ...token, familyId: 'f2', createdAt: T0 + 2 });
    const mail = { userId: 'u1', email: 'u1@example.com', createdAt: T0, expiresAt: T0 + HOUR };
    await oneTimeTokens.create('o1', { ...mail, purpose: 'verify-email' });
    await oneTimeTokens.create('o2', { ...mail, purpose: 'reset-password' });
    await oneTimeTokens.create('o3', { ...mail, purpose: 'reset-password' });
    await oneTimeTokens.consume('o2', 'reset-password', T0 + 1);
    for (let n = 0; n < 3; n++)
      await throttle.reserve('alice@example.com', { windowMs: 60_000, maxAttempts: 3, now: T0 });
    await rateLimit.hit('ip:1', 60_000, 10);
    const idempotency = stores.idempotency(HOUR);
    await idempotency.setPending('k1');
    await idempotency.setPending('k2');
    await idempotency.complete('k2', { status: 200, body: '{}' });

    const keys = await keysOf(client, prefix);
    const names = keys.map((key) => key.slice(prefix.length)).sort();
    expect(names).toEqual(
      [
        'idempotency:k1',
        'idempotency:k2',
        'one-time-user:u1',
        'one-time:o1',
        'one-time:o3',
        'rate-limit:ip:1',
        'refresh-family-revoked:f1',
        'refresh-family-revoked:never-seen',
        'refresh-family:f1',
        'refresh-family:f2',
        'refresh-user-revoked:u1',
        'refresh-user:u1',
        'refresh:r1',
        'refresh:r2',
        'refresh:r3',
        'session-user:u1',
        'session:s2',
        'throttle:alice@example.com',
      ].sort(),
    );
    for (const key of keys) {
      const ttl = await client.pttl(key);
      expect(ttl, key).toBeGreaterThan(0);
      expect(ttl, key).toBeLessThanOrEqual(2 * DAY);
    }
    // An index lives as long as its longest-lived member; a family mark as long as `until`.
    expect(await client.pttl(`${prefix}session-user:u1`)).toBeGreaterThan(DAY - 60_000);
    expect(await client.pttl(`${prefix}refresh-family-revoked:f1`)).toBeGreaterThan(2 * DAY - 60_000);
    expect(await client.pttl(`${prefix}refresh-user-revoked:u1`)).toBeGreaterThan(
      USER_REVOCATION_MARK_TTL_MS - 60_000,
    );
    // r3 was dated before the reset: born revoked.
    expect((await refreshTokens.get('r3', T0 + 4))?.revokedAt).toBe(T0 + 3);
  });

  it('MCP sessions: a hash per session and one recency set, each with a TTL of ttlMs renewed by use, and no member left behind', async () => {
    const prefix = freshPrefix();
    const clock = { time: T0 };
    const store = redisStores(client, { prefix, now: () => clock.time }).mcpSessions({
      ttlMs: HOUR,
      maxSessions: 2,
    });
    for (const id of ['a', 'b', 'c']) {
      await store.open({ id, caller: 'u1', protocolVersion: '2025-06-18' });
      clock.time += 1;
    }
    expect((await keysOf(client, prefix)).sort()).toEqual(
      [`${prefix}mcp:recent`, `${prefix}mcp:o:u1`, `${prefix}mcp:s:b`, `${prefix}mcp:s:c`].sort(),
    );
    expect(await client.zrange(`${prefix}mcp:recent`, '0', '-1', 'WITHSCORES')).toEqual([
      'b',
      String(T0 + 1),
      'c',
      String(T0 + 2),
    ]);
    expect(await client.hgetall(`${prefix}mcp:s:b`)).toEqual({
      caller: 'u1',
      owner: 'u1',
      version: '2025-06-18',
      lastSeen: String(T0 + 1),
    });
    await client.pexpire(`${prefix}mcp:s:b`, 1000);
    await client.pexpire(`${prefix}mcp:recent`, 1000);
    await store.use('b', 'u1');
    for (const key of await keysOf(client, prefix)) {
      const ttl = await client.pttl(key);
      expect(ttl, key).toBeGreaterThan(HOUR - 60_000);
      expect(ttl, key).toBeLessThanOrEqual(HOUR);
    }
    // A foreign use renews nothing; an owner's close removes the hash and the member.
    await client.pexpire(`${prefix}mcp:s:c`, 1000);
    expect(await store.use('c', 'u2')).toBeUndefined();
    expect(await client.pttl(`${prefix}mcp:s:c`)).toBeLessThanOrEqual(1000);
    expect(await store.close('c', 'u1')).toBe(true);
    expect(await client.exists(`${prefix}mcp:s:c`)).toBe(0);
    // Sessions idle for ttlMs leave the set (and their hashes go) when the next one opens.
    clock.time += HOUR;
    await store.open({ id: 'd', caller: 'u1', protocolVersion: '2025-06-18' });
    expect(await client.zrange(`${prefix}mcp:recent`, '0', '-1')).toEqual(['d']);
    expect(await client.smembers(`${prefix}mcp:o:u1`)).toEqual(['d']);
    expect((await keysOf(client, prefix)).sort()).toEqual(
      [`${prefix}mcp:recent`, `${prefix}mcp:o:u1`, `${prefix}mcp:s:d`].sort(),
    );
  });

  it('keeps stores under different prefixes apart', async () => {
    const a = redisStores(client, { prefix: freshPrefix(), now: () => T0 });
    const b = redisStores(client, { prefix: freshPrefix(), now: () => T0 });
    await a.sessions.create('s1', { userId: 'u1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + HOUR });
    expect(await b.sessions.get('s1', T0)).toBeUndefined();
    expect(await b.sessions.deleteByUser('u1')).toBe(0);
    expect(await a.sessions.get('s1', T0)).toBeDefined();
    await a.refreshTokens.revokeFamily('f1', T0, T0 + DAY);
    await b.refreshTokens.create('r1', {
      userId: 'u1',
      familyId: 'f1',
      amr: [],
      createdAt: T0 + 1,
      expiresAt: T0 + DAY,
    });
    expect(await b.refreshTokens.markUsed('r1', T0 + 2)).toBe(true);
    expect((await a.rateLimit.hit('ip', 1000, 5)).count).toBe(1);
    expect((await a.rateLimit.hit('ip', 1000, 5)).count).toBe(2);
    expect((await b.rateLimit.hit('ip', 1000, 5)).count).toBe(1);
    expect(await a.idempotency().setPending('k')).toBe(true);
    expect(await b.idempotency().setPending('k')).toBe(true);
  });
});

describe('Redis stores: indexes and marks', () => {
  // An index member whose key expired or now belongs to someone else (the same hash created again) is no
  // longer that owner's: the bulk operations must pass it by.
  it('bulk operations touch only the records that still belong to the index owner', async () => {
    const prefix = freshPrefix();
    const { sessions, refreshTokens, oneTimeTokens } = redisStores(client, { prefix });
    await sessions.create('s1', { userId: 'alice', amr: [], createdAt: T0, expiresAt: T0 + HOUR });
    await sessions.create('s1', { userId: 'bob', amr: [], createdAt: T0, expiresAt: T0 + HOUR });
    await sessions.create('s2', { userId: 'alice', amr: [], createdAt: T0, expiresAt: T0 + HOUR });
    await client.del(`${prefix}session:s2`); // as if it expired
    expect(await sessions.deleteByUser('alice')).toBe(0);
    expect((await sessions.get('s1', T0))?.userId).toBe('bob');

    const token = { userId: 'alice', familyId: 'fa', amr: [], createdAt: T0, expiresAt: T0 + DAY };
    await refreshTokens.create('r1', token);
    await refreshTokens.create('r1', { ...token, userId: 'bob', familyId: 'fb' });
    await refreshTokens.revokeFamily('fa', T0 + 1, T0 + DAY);
    await refreshTokens.revokeUser('alice', T0 + 1);
    expect(await refreshTokens.markUsed('r1', T0 + 2)).toBe(true);

    const mail = { email: 'a@example.com', createdAt: T0, expiresAt: T0 + HOUR };
    await oneTimeTokens.create('o1', { ...mail, userId: 'alice', purpose: 'reset-password' });
    await oneTimeTokens.create('o1', { ...mail, userId: 'bob', purpose: 'reset-password' });
    await oneTimeTokens.deleteByUser('alice', 'reset-password');
    expect((await oneTimeTokens.consume('o1', 'reset-password', T0 + 1))?.userId).toBe('bob');

    // Passed-by members leave the index.
    for (const index of [
      'session-user:alice',
      'refresh-family:fa',
      'refresh-user:alice',
      'one-time-user:alice',
    ]) {
      expect(await client.smembers(prefix + index), index).toEqual([]);
    }
  });

  it('keeps the optional fields a record is created with', async () => {
    const { refreshTokens, oneTimeTokens } = redisStores(client, { prefix: freshPrefix() });
    const token = { userId: 'u1', familyId: 'f1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + DAY };
    await refreshTokens.create('used', { ...token, usedAt: T0 + 1 });
    await refreshTokens.create('revoked', { ...token, revokedAt: T0 + 2 });
    expect(await refreshTokens.get('used', T0 + 3)).toEqual({ ...token, usedAt: T0 + 1 });
    expect(await refreshTokens.get('revoked', T0 + 3)).toEqual({ ...token, revokedAt: T0 + 2 });
    expect(await refreshTokens.markUsed('used', T0 + 3)).toBe(false);
    expect(await refreshTokens.markUsed('revoked', T0 + 3)).toBe(false);
    // A revokedAt of its own is not replaced by a family mark.
    await refreshTokens.revokeFamily('f1', T0 + 5, T0 + DAY);
    await refreshTokens.create('late', { ...token, createdAt: T0 + 6, revokedAt: T0 + 4 });
    expect((await refreshTokens.get('late', T0 + 7))?.revokedAt).toBe(T0 + 4);

    const mail = { userId: 'u1', email: 'u1@example.com', createdAt: T0, expiresAt: T0 + HOUR };
    await oneTimeTokens.create('spent', { ...mail, purpose: 'verify-email', usedAt: T0 + 1 });
    expect(await oneTimeTokens.consume('spent', 'verify-email', T0 + 2)).toBeUndefined();
  });

  it('a family mark outlives every token created in the family while it holds', async () => {
    const { refreshTokens } = redisStores(client, { prefix: freshPrefix() });
    await refreshTokens.revokeFamily('f1', T0, T0 + 100);
    const token = { userId: 'u1', familyId: 'f1', amr: [], createdAt: T0 + 10, expiresAt: T0 + 10 * DAY };
    await refreshTokens.create('racing', token);
    // Past the mark's own `until`, but within the racing token's life: the mark still holds.
    const later = T0 + 5 * DAY;
    await refreshTokens.create('later', { ...token, createdAt: later, expiresAt: later + DAY });
    expect((await refreshTokens.get('later', later + 1))?.revokedAt).toBe(T0);
  });

  it('writes nothing for a record already expired when created', async () => {
    const prefix = freshPrefix();
    const { sessions, refreshTokens, oneTimeTokens } = redisStores(client, { prefix });
    await sessions.create('s1', { userId: 'u1', amr: [], createdAt: T0, expiresAt: T0 });
    await refreshTokens.create('r1', { userId: 'u1', familyId: 'f1', amr: [], createdAt: T0, expiresAt: T0 });
    const mail = { userId: 'u1', email: 'u1@example.com', createdAt: T0, expiresAt: T0 };
    await oneTimeTokens.create('o1', { ...mail, purpose: 'verify-email' });
    expect(await keysOf(client, prefix)).toEqual([]);
  });
});

describe('Redis stores: atomic across instances', () => {
  /** The same store on each client, as if every call came from another service instance. */
  function onEveryClient<T>(make: (redis: RedisClient) => T): (index: number) => T {
    const stores = [client, ...others].map(make);
    return (index) => stores[index % stores.length] as T;
  }

  it('of 100 concurrent markUsed calls, exactly one wins', async () => {
    const prefix = freshPrefix();
    const store = onEveryClient((redis) => new RedisRefreshTokenStore(redis, { prefix }));
    await store(0).create('t', { userId: 'u', familyId: 'f', amr: [], createdAt: T0, expiresAt: T0 + DAY });
    const wins = await Promise.all(Array.from({ length: 100 }, (_, i) => store(i).markUsed('t', T0 + 1)));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('of 50 concurrent consume calls, exactly one gets the record', async () => {
    const prefix = freshPrefix();
    const store = onEveryClient((redis) => new RedisOneTimeTokenStore(redis, { prefix }));
    await store(0).create('t', {
      purpose: 'reset-password',
      userId: 'u',
      email: 'u@example.com',
      createdAt: T0,
      expiresAt: T0 + HOUR,
    });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) => store(i).consume('t', 'reset-password', T0 + 1)),
    );
    expect(results.filter((record) => record !== undefined)).toHaveLength(1);
  });

  it('counts 60 concurrent rate-limit hits exactly', async () => {
    const prefix = freshPrefix();
    const store = onEveryClient((redis) => new RedisRateLimitStore(redis, { prefix, now: () => T0 }));
    const hits = await Promise.all(Array.from({ length: 60 }, (_, i) => store(i).hit('ip', 60_000, 10)));
    expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    expect(new Set(hits.map((hit) => hit.resetAt))).toEqual(new Set([T0 + 60_000]));
  });

  it('of 30 concurrent MCP session opens from three clients, exactly maxSessions stay live', async () => {
    const prefix = freshPrefix();
    const limits = { ttlMs: HOUR, maxSessions: 5 };
    const store = onEveryClient(
      (redis) => new RedisMcpSessionStore(redis, limits, { prefix, now: () => T0 }),
    );
    const ids = Array.from({ length: 30 }, (_, i) => `s${i}`);
    await Promise.all(ids.map((id, i) => store(i).open({ id, caller: 'c', protocolVersion: '2025-06-18' })));
    const used = await Promise.all(ids.map((id, i) => store(i).use(id, 'c')));
    expect(used.filter((record) => record !== undefined)).toHaveLength(5);
    expect(await client.zcard(`${prefix}mcp:recent`)).toBe(5);
  });

  it('of 50 concurrent setPending calls, exactly one reserves the key', async () => {
    const prefix = freshPrefix();
    const store = onEveryClient((redis) => new RedisIdempotencyStore(redis, { prefix }));
    const wins = await Promise.all(Array.from({ length: 50 }, (_, i) => store(i).setPending('k')));
    expect(wins.filter(Boolean)).toHaveLength(1);
  });
});

describe('Redis stores: failure mapping', () => {
  it('maps connection failures and availability replies to STORE_UNAVAILABLE, and nothing else', () => {
    const reply = (message: string) => Object.assign(new Error(message), { name: 'ReplyError' });
    for (const failure of [
      new Error('Connection is closed.'),
      new Error("Stream isn't writeable and enableOfflineQueue options is false"),
      new Error('Command timed out'),
      reply('LOADING Redis is loading the dataset in memory'),
      reply('READONLY You can not write against a read only replica.'),
    ]) {
      const mapped = redisFailure(failure);
      expect(mapped).toBeInstanceOf(HttpError);
      expect(mapped).toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503, details: { store: 'redis' } });
      // The client sees a neutral message; the reason goes to the reporter only.
      expect((mapped as HttpError).message).toBe('Redis is unavailable.');
      expect((mapped as HttpError).internalDetails).toEqual({ reason: failure.message });
      expect((mapped as HttpError).cause).toBe(failure);
    }
    const scriptError = reply('ERR user_script:1: Script attempted to access nonexistent global variable');
    expect(redisFailure(scriptError)).toBe(scriptError);
  });
});

/** A port nothing listens on right now. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

describe('Redis stores: Redis unreachable', () => {
  const children = new Set<ChildProcess>();

  /** A private redis-server on `port`, resolved once it accepts connections. */
  async function startRedis(port: number): Promise<ChildProcess> {
    const child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    children.add(child);
    child.once('exit', () => children.delete(child));
    await new Promise<void>((resolve, reject) => {
      let output = '';
      const timer = setTimeout(() => reject(new Error(`redis-server did not start: ${output}`)), 5000);
      child.once('error', reject);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    return child;
  }

  async function stopRedis(child: ChildProcess): Promise<void> {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async function expectUnavailable(action: Promise<unknown>): Promise<number> {
    const started = Date.now();
    const error = await rejectionOf(action);
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.status).toBe(503);
    expect(error.details).toEqual({ store: 'redis' });
    expect(error.message).toBe('Redis is unavailable.');
    return Date.now() - started;
  }

  /** Retries `action` until it resolves (the client reconnects on its own), at most `ms`. */
  async function eventually<T>(action: () => Promise<T>, ms: number): Promise<T> {
    const deadline = Date.now() + ms;
    for (;;) {
      try {
        return await action();
      } catch (error) {
        if (Date.now() > deadline) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  }

  afterAll(async () => {
    for (const child of children) await stopRedis(child);
  });

  it('answers STORE_UNAVAILABLE at once while Redis is down, and recovers when it is back', async () => {
    const port = await freePort();
    let server = await startRedis(port);
    const redis = await openRedis(`redis://127.0.0.1:${port}`);
    try {
      const stores = redisStores(redis, { prefix: freshPrefix(), now: () => T0 });
      const session = { userId: 'u1', amr: ['pwd'], createdAt: T0, expiresAt: T0 + HOUR };
      await stores.sessions.create('s1', session);
      expect(await stores.sessions.get('s1', T0)).toEqual(session);
      await pingRedis(redis);

      await stopRedis(server);
      const calls: (() => Promise<unknown>)[] = [
        () => stores.sessions.get('s1', T0),
        () => stores.sessions.create('s2', session),
        () => stores.refreshTokens.markUsed('r1', T0),
        () => stores.oneTimeTokens.consume('o1', 'verify-email', T0),
        () => stores.throttle.reserve('k', { windowMs: 1000, maxAttempts: 3, now: T0 }),
        () => stores.throttle.refund('k', { windowEndsAt: T0 + 1000, maxAttempts: 3, now: T0 }),
        () => stores.rateLimit.hit('ip', 1000, 5),
        () => stores.idempotency().setPending('k'),
        () =>
          stores
            .mcpSessions({ ttlMs: 1000, maxSessions: 5 })
            .open({ id: 'm', caller: 'c', protocolVersion: '2025-06-18' }),
        () => stores.mcpSessions({ ttlMs: 1000, maxSessions: 5 }).use('m', 'c'),
        () => stores.mcpSessions({ ttlMs: 1000, maxSessions: 5 }).close('m', 'c'),
        () => pingRedis(redis),
      ];
      for (const call of calls) expect(await expectUnavailable(call())).toBeLessThan(3000);

      // Same port, new (empty) server: the client reconnects by itself, scripts are sent again (EVAL).
      server = await startRedis(port);
      await eventually(() => stores.sessions.create('s3', session), 5000);
      expect(await stores.sessions.get('s3', T0)).toEqual(session);
      expect(await stores.rateLimit.hit('ip', 1000, 5)).toEqual({ count: 1, resetAt: T0 + 1000 });
      // A script Redis ran and then forgot is sent whole again.
      await redis.script('FLUSH');
      expect(await stores.rateLimit.hit('ip', 1000, 5)).toEqual({ count: 2, resetAt: T0 + 1000 });
      expect(await stores.idempotency().setPending('k')).toBe(true);
    } finally {
      await closeRedis(redis);
      await stopRedis(server);
    }
  });

  it('times out a command Redis does not answer', async () => {
    const port = await freePort();
    const server = await startRedis(port);
    const redis = await openRedis(`redis://127.0.0.1:${port}`, { commandTimeoutMs: 300 });
    try {
      const store = new RedisRateLimitStore(redis, { prefix: freshPrefix(), now: () => T0 });
      await store.hit('ip', 1000, 5);
      server.kill('SIGSTOP');
      try {
        expect(await expectUnavailable(store.hit('ip', 1000, 5))).toBeLessThan(1500);
      } finally {
        server.kill('SIGCONT');
      }
    } finally {
      await closeRedis(redis);
      await stopRedis(server);
    }
  });

  it('openRedis on a dead port resolves at once, and stores answer STORE_UNAVAILABLE', async () => {
    const port = await freePort();
    const started = Date.now();
    const redis = await openRedis(`redis://127.0.0.1:${port}`);
    try {
      expect(Date.now() - started).toBeLessThan(3000);
      const stores = redisStores(redis, { prefix: freshPrefix() });
      await expectUnavailable(stores.sessions.get('s1', T0));
      await expectUnavailable(stores.refreshTokens.revokeUser('u1', T0));
      await expectUnavailable(pingRedis(redis));
    } finally {
      await closeRedis(redis);
    }
  });
});
