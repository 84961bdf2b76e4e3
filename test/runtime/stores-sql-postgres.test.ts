// The SQL stores on a real PostgreSQL (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test): every
// store contract and SQL rule (contracts/sql-stores.ts), then what only a server with many connections can
// show: concurrent migrators, compare-and-sets raced from two pools (two processes), creates racing
// revocations, and STORE_UNAVAILABLE while the server is unreachable, with recovery once it is back. The file
// works in a database of its own, dropped at the end, so it runs beside other test files.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpError, SvcError, type RefreshTokenRecord } from 'svckit';
import {
  checkSchema,
  migrate,
  migrations,
  openSqlClient,
  sqlStores,
  SqlRefreshTokenStore,
  SqlSessionStore,
  type SqlClient,
  type SqlClientOptions,
} from '../../runtime/stores/sql/index.js';
import {
  createDatabase as createTestDatabase,
  databaseServer,
  freePort,
  tcpProxy,
  throughProxy,
  type TestDatabase,
} from '../backends.js';
import { resetSqlTables, sqlStoreContracts } from './contracts/sql-stores.js';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

const databases: TestDatabase[] = [];

/** A fresh, empty database of this file; dropped afterAll. */
async function createDatabase(): Promise<string> {
  const database = await createTestDatabase();
  databases.push(database);
  return database.url;
}

const clients: SqlClient[] = [];

async function open(url: string, options?: SqlClientOptions): Promise<SqlClient> {
  const opened = await openSqlClient(url, options);
  clients.push(opened);
  return opened;
}

let url: string;
let client: SqlClient;
let firstMigration: { applied: number[] };

beforeAll(async () => {
  url = await createDatabase();
  client = await open(url);
  firstMigration = await migrate(client);
});

afterAll(async () => {
  for (const opened of clients) await opened.close();
  for (const database of databases) await database.drop();
});

sqlStoreContracts('PostgreSQL', () => client);

describe('SQL migrations (PostgreSQL)', () => {
  it('applies every migration once, and nothing the second time', async () => {
    expect(client.kind).toBe('postgres');
    expect(firstMigration.applied).toEqual(migrations.map((migration) => migration.id));
    expect(await migrate(client)).toEqual({ applied: [] });
    await checkSchema(client);
  });

  it('two migrators starting at once both succeed and apply each migration once', async () => {
    const fresh = await createDatabase();
    const [a, b] = [await open(fresh), await open(fresh)];
    const results = await Promise.all([migrate(a), migrate(b)]);
    expect(results.flatMap((result) => result.applied).sort((a, b) => a - b)).toEqual(
      migrations.map((m) => m.id),
    );
    const { rows } = await a.query<{ id: number }>('SELECT id FROM svc_migrations ORDER BY id');
    expect(rows.map((row) => row.id)).toEqual(migrations.map((m) => m.id));
    await checkSchema(b);
  });

  it('checkSchema refuses a database never migrated, one behind, and one ahead (STORE_SCHEMA_MISMATCH)', async () => {
    const db = await open(await createDatabase());
    expect((await schemaError(db)).details).toEqual({ missing: migrations.map((m) => m.id), unknown: [] });

    const first = migrations[0]!;
    await migrate(db, { migrations: [first] });
    const behind = await schemaError(db);
    const missing = migrations.slice(1);
    expect(behind.details).toEqual({ missing: missing.map((m) => m.id), unknown: [] });
    expect(behind.message).toContain(`${missing[0]!.id} (${missing[0]!.name})`);
    expect(behind.message).toContain('run svc db:migrate');

    await migrate(db);
    await checkSchema(db);
    await db.query(`INSERT INTO svc_migrations (id, name, applied_at) VALUES (9999, '9999-future', 0)`);
    const ahead = await schemaError(db);
    expect(ahead.details).toEqual({ missing: [], unknown: [9999] });
    expect(ahead.message).toContain('9999');
  });
});

describe('compare-and-sets across two pools (two processes) on PostgreSQL', () => {
  const token = (familyId: string, overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord => ({
    userId: 'u1',
    familyId,
    amr: ['pwd'],
    createdAt: T0,
    expiresAt: T0 + DAY,
    ...overrides,
  });

  it('of 100 concurrent markUsed calls on one token, exactly one wins', async () => {
    await resetSqlTables(client);
    const other = await open(url);
    const [a, b] = [new SqlRefreshTokenStore(client), new SqlRefreshTokenStore(other)];
    await a.create('t', token('f'));
    const wins = await Promise.all(
      Array.from({ length: 100 }, (_, i) => (i % 2 ? a : b).markUsed('t', T0 + 1)),
    );
    expect(wins.filter(Boolean)).toHaveLength(1);
  });

  it('counts concurrent rate-limit hits exactly and reserves an idempotency key once', async () => {
    await resetSqlTables(client);
    const other = await open(url);
    const stores = [sqlStores(client, { now: () => T0 }), sqlStores(other, { now: () => T0 })] as const;
    const hits = await Promise.all(
      Array.from({ length: 60 }, (_, i) => stores[i % 2]!.rateLimit.hit('k', 1000, 10)),
    );
    expect(hits.map((hit) => hit.count).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    const reserved = await Promise.all(
      Array.from({ length: 60 }, (_, i) => stores[i % 2]!.idempotency(60_000).setPending('key')),
    );
    expect(reserved.filter(Boolean)).toHaveLength(1);
  });

  it('of 120 concurrent MCP session opens from two pools, exactly maxSessions stay live: the most recent', async () => {
    await resetSqlTables(client);
    const other = await open(url);
    let time = T0;
    const now = () => time;
    const limits = { ttlMs: DAY, maxSessions: 5 };
    const stores = [sqlStores(client, { now }), sqlStores(other, { now })].map((s) => s.mcpSessions(limits));
    const ids = Array.from({ length: 120 }, (_, i) => `s${String(i).padStart(3, '0')}`);
    await Promise.all(
      ids.map((id, i) => {
        // A caller each, so only the global cap evicts.
        const opened = stores[i % 2]!.open({ id, caller: `c${i}`, protocolVersion: '2025-06-18' });
        time += 1; // each open read the clock when called
        return opened;
      }),
    );
    const { rows } = await client.query<{ id: string }>(
      'SELECT id FROM svc_mcp_sessions WHERE expires_at > $1 ORDER BY id',
      [time],
    );
    expect(rows.map((row) => row.id)).toEqual(ids.slice(-5));
  });

  it('a token created while its family or its user is revoked is never left unrevoked', async () => {
    await resetSqlTables(client);
    const other = await open(url);
    const [a, b] = [new SqlRefreshTokenStore(client), new SqlRefreshTokenStore(other)];
    const rounds = 40;
    await Promise.all(
      Array.from({ length: rounds }, async (_, i) => {
        await Promise.all([
          a.create(`f${i}`, token(`family-${i}`)),
          b.revokeFamily(`family-${i}`, T0 + 1, T0 + DAY),
        ]);
        await Promise.all([
          a.create(`u${i}`, token(`other-${i}`, { userId: `user-${i}` })),
          b.revokeUser(`user-${i}`, T0 + 1),
        ]);
      }),
    );
    for (let i = 0; i < rounds; i += 1) {
      expect((await a.get(`f${i}`, T0 + 2))?.revokedAt, `family round ${i}`).toBe(T0 + 1);
      expect((await a.get(`u${i}`, T0 + 2))?.revokedAt, `user round ${i}`).toBe(T0 + 1);
    }
  });
});

describe('STORE_UNAVAILABLE (PostgreSQL)', () => {
  async function unavailable(action: Promise<unknown>): Promise<HttpError> {
    const started = Date.now();
    const error = await action.then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(Date.now() - started).toBeLessThan(3000);
    expect(error).toBeInstanceOf(HttpError);
    const httpError = error as HttpError;
    expect(httpError.code).toBe('STORE_UNAVAILABLE');
    expect(httpError.status).toBe(503);
    expect(httpError.details).toEqual({ store: 'database' });
    expect(httpError.message).toBe('PostgreSQL is unavailable.');
    expect(httpError.internalDetails).toEqual({ reason: expect.any(String) });
    return httpError;
  }

  it('refuses every call quickly when nothing listens on the port', async () => {
    const port = await freePort();
    const down = await open(`postgres://postgres@127.0.0.1:${port}/test`);
    const stores = sqlStores(down);
    const error = await unavailable(stores.sessions.get('s', T0));
    expect(error.internalDetails).toEqual({ reason: expect.stringContaining('ECONNREFUSED') });
    await unavailable(stores.users.findByEmail('a@example.com'));
    await unavailable(
      stores.refreshTokens.create('t', {
        userId: 'u',
        familyId: 'f',
        amr: [],
        createdAt: T0,
        expiresAt: T0 + 1,
      }),
    );
    await unavailable(stores.rateLimit.hit('k', 1000, 5));
    const mcpSessions = stores.mcpSessions({ ttlMs: 1000, maxSessions: 5 });
    await unavailable(mcpSessions.open({ id: 'm', caller: 'c', protocolVersion: '2025-06-18' }));
    await unavailable(mcpSessions.use('m', 'c'));
    await unavailable(mcpSessions.close('m', 'c'));
    await unavailable(down.ping());
  });

  it('refuses when the server does not answer in time (connect and query timeouts)', async () => {
    const silent = net.createServer(() => undefined); // accepts, never answers
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const port = (silent.address() as net.AddressInfo).port;
      const hung = await open(`postgres://postgres@127.0.0.1:${port}/test`, { connectionTimeoutMillis: 300 });
      await unavailable(hung.query('SELECT 1'));
    } finally {
      silent.close();
    }
    const slow = await open(url, { queryTimeoutMillis: 200 });
    await unavailable(slow.query('SELECT pg_sleep(1)'));
    // The timed-out connection is dropped, not reused: the next query runs.
    expect((await slow.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('answers STORE_UNAVAILABLE while the server is unreachable and works again once it is back', async () => {
    const proxy = await tcpProxy(databaseServer(url));
    const idleErrors: Error[] = [];
    const db = await open(throughProxy(url, proxy.port), { onIdleError: (error) => idleErrors.push(error) });
    const sessions = new SqlSessionStore(db);
    await sessions.create('s', { userId: 'u', amr: [], createdAt: T0, expiresAt: T0 + DAY });
    await proxy.cut(); // drops the pooled connection and refuses new ones
    // The idle connection's error reaches onIdleError instead of crashing the process.
    await expect.poll(() => idleErrors.length).toBeGreaterThan(0);
    await unavailable(sessions.get('s', T0));
    await unavailable(db.transaction((tx) => tx.query('SELECT 1')));
    await proxy.restore();
    expect(await sessions.get('s', T0)).toMatchObject({ userId: 'u' });
    await db.ping();
    await proxy.close();
  });
});

async function schemaError(db: SqlClient): Promise<SvcError> {
  const error = await checkSchema(db).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SvcError);
  expect((error as SvcError).code).toBe('STORE_SCHEMA_MISMATCH');
  return error as SvcError;
}
