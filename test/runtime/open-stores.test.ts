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
  openSqlClient,
  openStores,
} from 'svckit';
import { formatBootFailure } from 'svckit/core';
import type { CachedSessionStore } from '../../runtime/stores/cache/cached-sessions.js';
import type { CachedUserSource } from '../../runtime/stores/cache/cached-users.js';
import { createDatabase } from '../backends.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/** DATABASE_URL's server with another user, password and database. */
function serverUrl(change: { user?: string; password: string; database?: string }): string {
  const url = new URL(DATABASE_URL);
  if (change.user !== undefined) url.username = change.user;
  url.password = change.password;
  if (change.database !== undefined) url.pathname = `/${change.database}`;
  return url.toString();
}

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

  it('never shows the password of a URL it refuses: *** instead, the query cut', async () => {
    const refused: [string, string, RegExp][] = [
      [
        'database',
        'postgress://admin:hunter2@db.internal/app',
        /got "postgress:\/\/admin:\*\*\*@db\.internal\/app"$/,
      ],
      ['database', 'mysql://db.internal/app?password=hunter2#x', /got "mysql:\/\/db\.internal\/app\?…"$/],
      ['database', 'postgres:admin:hunter2@db.internal', /got a "postgres:" value without \/\/host$/],
      ['database', 'admin:hunter2@db.internal', /got a "admin:" value without \/\/host$/],
      ['database', 'hunter2@db.internal', /got a value that is not a URL$/],
      ['database', 'memroy', /got "memroy"$/],
      [
        'redis',
        'http://:hunter2@cache.internal:6379',
        /^stores\.redis: .* got "http:\/\/:\*\*\*@cache\.internal:6379\/"$/,
      ],
    ];
    for (const [setting, url, shown] of refused) {
      const error = await bootError(openStores({ [setting]: url }));
      expect(error.code).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(shown);
      expect(formatBootFailure(error)).not.toContain('hunter2');
    }
  });

  it('refuses to start on a database that does not exist, or a user the server refuses, saying which', async () => {
    const missing = `svc_missing_${Date.now().toString(36)}`;
    for (const migrate of [true, false]) {
      // With migrate, the migration's transaction connects first; without, the schema check.
      const error = await bootError(
        openStores(
          { database: serverUrl({ password: 'hunter2', database: missing }) },
          { migrate, appMigrations: false },
        ),
      );
      expect(error).toMatchObject({
        code: 'STORE_DATABASE_REFUSED',
        message: `PostgreSQL refused the connection: database "${missing}" does not exist.`,
        hint: `create the database (createdb ${missing}), or correct the database name in stores.database (DATABASE_URL)`,
        details: { sqlState: '3D000' },
      });
      const report = formatBootFailure(error);
      expect(report).toMatch(/^Refused to start \(STORE_DATABASE_REFUSED\)/);
      expect(report).not.toContain('hunter2');
      expect(report).not.toMatch(/\n\s+at /); // no stack
    }
    const role = await bootError(
      openStores(
        { database: serverUrl({ user: 'svc_no_such_role', password: 'hunter2' }) },
        { migrate: true, appMigrations: false },
      ),
    );
    expect(role).toMatchObject({
      code: 'STORE_DATABASE_REFUSED',
      message: 'PostgreSQL refused the connection: role "svc_no_such_role" does not exist.',
      details: { sqlState: '28000' },
    });
    expect(formatBootFailure(role)).not.toContain('hunter2');
  });

  it('closes once: a second close, at once or later, answers as the first (PostgreSQL and Redis)', async () => {
    const database = await createDatabase();
    try {
      const stores = await openStores(
        { database: database.url, redis: REDIS_URL },
        { migrate: true, appMigrations: false, sweepIntervalMs: 0 },
      );
      const first = stores.close();
      expect(stores.close()).toBe(first); // the same close, not a second one
      await first;
      await stores.close();
      await expect(stores.sql!.query('SELECT 1')).rejects.toThrow();
      // The pool underneath too: pg's own pool throws when ended twice.
      const client = await openSqlClient(database.url);
      await Promise.all([client.close(), client.close()]);
      await client.close();
    } finally {
      await database.drop();
    }
  }, 30_000);

  it('puts everything in a PGlite directory, relative to the project, once migrated', async () => {
    const refused = await bootError(openStores({ database: 'pglite:data' }, { projectDir: dir }));
    expect(refused.code).toBe('STORE_SCHEMA_MISMATCH');
    expect(refused.message).toContain('svc db:migrate');

    const stores = await openStores({ database: 'pglite:data' }, { projectDir: dir, migrate: true });
    try {
      expect(existsSync(join(dir, 'data'))).toBe(true);
      expect(stores.database).toBe('pglite');
      // Wrapped in the hot cache (one process owns the directory: an in-process bus).
      expect((stores.users as CachedUserSource).inner).toBeInstanceOf(SqlUserSource);
      expect((stores.sessions as CachedSessionStore).inner).toBeInstanceOf(SqlSessionStore);
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
      expect((stores.users as CachedUserSource).inner).toBeInstanceOf(SqlUserSource);
      expect((stores.sessions as CachedSessionStore).inner).toBeInstanceOf(RedisSessionStore);
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
