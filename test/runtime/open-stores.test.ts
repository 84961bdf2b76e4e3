// openStores (docs/stores.md): what `stores.database` and `stores.redis` select, what refuses to boot, and how
// the module builders take the stores it opens.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  MemoryIdempotencyStore,
  MemoryMcpSessionStore,
  RedisIdempotencyStore,
  RedisMcpSessionStore,
  RedisRateLimitStore,
  RedisSessionStore,
  SqlIdempotencyStore,
  SqlMcpSessionStore,
  SqlSessionStore,
  SqlUserSource,
  databaseKind,
  idempotencyPlugins,
  openStores,
} from 'svckit';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

async function bootError(action: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await action;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe('openStores', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-open-stores-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps everything in memory without a database or Redis', async () => {
    for (const database of [undefined, 'memory']) {
      const stores = await openStores({ database });
      expect(stores.database).toBe('memory');
      expect(stores.redis).toBe(false);
      expect([
        stores.users,
        stores.sessions,
        stores.refreshTokens,
        stores.throttle,
        stores.rateLimit,
      ]).toEqual([undefined, undefined, undefined, undefined, undefined]);
      const idempotency = stores.idempotency(1234);
      expect(idempotency).toBeInstanceOf(MemoryIdempotencyStore);
      expect((idempotency as MemoryIdempotencyStore).ttlMs).toBe(1234);
      expect(stores.mcpSessions({ ttlMs: 1000, maxSessions: 5 })).toBeInstanceOf(MemoryMcpSessionStore);
      expect(stores.healthChecks).toEqual({});
      await stores.close();
    }
  });

  it('refuses a database or Redis URL it cannot use with CONFIG_INVALID naming the setting', async () => {
    for (const database of ['mysql://127.0.0.1/x', 'pglite:', 'postgres:/nohost', 'sqlite:db']) {
      expect(() => databaseKind(database)).toThrow(/stores\.database/);
      expect((await bootError(openStores({ database }))).code).toBe('CONFIG_INVALID');
    }
    const redis = await bootError(openStores({ redis: 'http://127.0.0.1:6379' }));
    expect(redis.code).toBe('CONFIG_INVALID');
    expect(redis.message).toContain('stores.redis');
  });

  it('puts everything in a PGlite directory, relative to the project, once migrated', async () => {
    const refused = await bootError(openStores({ database: 'pglite:data' }, { projectDir: dir }));
    expect(refused.code).toBe('STORE_SCHEMA_MISMATCH');
    expect(refused.message).toContain('svc db:migrate');

    const stores = await openStores({ database: 'pglite:data' }, { projectDir: dir, migrate: true });
    try {
      expect(existsSync(join(dir, 'data'))).toBe(true);
      expect(stores.database).toBe('pglite');
      expect(stores.users).toBeInstanceOf(SqlUserSource);
      expect(stores.sessions).toBeInstanceOf(SqlSessionStore);
      expect(stores.idempotency(1000)).toBeInstanceOf(SqlIdempotencyStore);
      const mcpSessions = stores.mcpSessions({ ttlMs: 60_000, maxSessions: 5 });
      expect(mcpSessions).toBeInstanceOf(SqlMcpSessionStore);
      await mcpSessions.open({ id: 'm', caller: 'c', protocolVersion: '2025-06-18' });
      // Without an owner of its own, a session's owner is its caller.
      expect(await mcpSessions.use('m', 'c')).toEqual({
        id: 'm',
        caller: 'c',
        owner: 'c',
        protocolVersion: '2025-06-18',
      });
      expect(Object.keys(stores.healthChecks)).toEqual(['database']);
      expect(await stores.healthChecks.database!()).toEqual({ ok: true });
      const user = await stores.users!.create({ email: 'Pat@Example.com', passwordHash: 'h' });
      expect((await stores.users!.findByEmail('pat@example.com'))?.id).toBe(user.id);
    } finally {
      await stores.close();
    }
  }, 30_000);

  it('moves the hot stores to Redis and keeps users in the database', async () => {
    const stores = await openStores(
      { database: 'pglite:memory', redis: REDIS_URL },
      { migrate: true, redisPrefix: `svc-open-${Date.now()}:`, sweepIntervalMs: 0 },
    );
    try {
      expect(stores.redis).toBe(true);
      expect(stores.users).toBeInstanceOf(SqlUserSource);
      expect(stores.sessions).toBeInstanceOf(RedisSessionStore);
      expect(stores.rateLimit).toBeInstanceOf(RedisRateLimitStore);
      expect(stores.idempotency(1000)).toBeInstanceOf(RedisIdempotencyStore);
      const mcpSessions = stores.mcpSessions({ ttlMs: 60_000, maxSessions: 5 });
      expect(mcpSessions).toBeInstanceOf(RedisMcpSessionStore);
      await mcpSessions.open({ id: 'm', caller: 'c', protocolVersion: '2025-06-18' });
      // Without an owner of its own, a session's owner is its caller.
      expect(await mcpSessions.use('m', 'c')).toEqual({
        id: 'm',
        caller: 'c',
        owner: 'c',
        protocolVersion: '2025-06-18',
      });
      expect(Object.keys(stores.healthChecks).sort()).toEqual(['database', 'redis']);
      expect(await stores.healthChecks.redis!()).toEqual({ ok: true });
    } finally {
      await stores.close();
    }
  }, 30_000);
});

describe('idempotencyPlugins with a shared store', () => {
  it('makes the store with the configured retention, and refuses a bad one', () => {
    const asked: number[] = [];
    const store = (ttlMs: number) => {
      asked.push(ttlMs);
      return new MemoryIdempotencyStore({ ttlMs });
    };
    expect(idempotencyPlugins(true, { store })).toHaveLength(1);
    expect(idempotencyPlugins({ ttlMs: 60_000 }, { store })).toHaveLength(1);
    expect(asked).toEqual([86_400_000, 60_000]);
    expect(() => idempotencyPlugins({ ttlMs: -1 }, { store })).toThrow(/ttlMs/);
  });
});
