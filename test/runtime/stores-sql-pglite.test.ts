// The SQL stores on PGlite (embedded PostgreSQL): every store contract and SQL rule (contracts/sql-stores.ts),
// then migrations, schema checks, the sweeper's timer, and what only PGlite needs (one process per data
// directory: the lock file). One in-memory PGlite serves the whole file (it takes ~2 s to start); each
// contract test gets empty tables.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SvcError, type AuthUser } from 'svckit';
import {
  checkSchema,
  migrate,
  migrations,
  openSqlClient,
  pgliteLocation,
  SqlMembershipStore,
  SqlMfaStore,
  SqlSessionStore,
  SqlSweeper,
  SqlUserSource,
  type SqlClient,
} from '../../runtime/stores/sql/index.js';
import { resetSqlTables, sqlStoreContracts } from './contracts/sql-stores.js';
import { emptyMembershipTables, membershipStoreContract } from './contracts/membership-store.js';
import { emptyMfaTable, mfaStoreContract } from './contracts/mfa-store.js';

const T0 = 1_700_000_000_000;
const SQL_INDEX = fileURLToPath(new URL('../../runtime/stores/sql/index.ts', import.meta.url));

let client: SqlClient;
let firstMigration: { applied: number[] };

beforeAll(async () => {
  client = await openSqlClient('pglite:memory');
  firstMigration = await migrate(client);
});

afterAll(async () => {
  await client?.close();
});

sqlStoreContracts('PGlite', () => client);
membershipStoreContract('SqlMembershipStore (PGlite)', async (clock) => {
  await emptyMembershipTables(client);
  return new SqlMembershipStore(client, { now: clock.now });
});
mfaStoreContract('SqlMfaStore (PGlite)', async () => {
  await emptyMfaTable(client);
  return new SqlMfaStore(client);
});

describe('SQL migrations (PGlite)', () => {
  it('applies every migration once, in order, and nothing the second time', async () => {
    expect(client.kind).toBe('pglite');
    expect(firstMigration.applied).toEqual(migrations.map((migration) => migration.id));
    expect(await migrate(client)).toEqual({ applied: [] });
    const { rows } = await client.query<{ id: number; name: string; applied_at: number }>(
      'SELECT id, name, applied_at FROM svc_migrations ORDER BY id',
    );
    expect(rows.map((row) => [row.id, row.name])).toEqual(migrations.map((m) => [m.id, m.name]));
    expect(typeof rows[0]?.applied_at).toBe('number');
    await checkSchema(client);
  });

  it('checkSchema refuses a database that is behind, and one holding a migration it does not know', async () => {
    const last = migrations[migrations.length - 1]!;
    await client.query('DELETE FROM svc_migrations WHERE id = $1', [last.id]);
    try {
      const behind = await schemaError(client);
      expect(behind.code).toBe('STORE_SCHEMA_MISMATCH');
      expect(behind.message).toContain(`${last.id} (${last.name})`);
      expect(behind.message).toContain('svc db:migrate');
      expect(behind.details).toEqual({ missing: [last.id], unknown: [] });
    } finally {
      await client.query('INSERT INTO svc_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
        last.id,
        last.name,
        T0,
      ]);
    }
    await client.query(`INSERT INTO svc_migrations (id, name, applied_at) VALUES (9999, '9999-future', $1)`, [
      T0,
    ]);
    try {
      const ahead = await schemaError(client);
      expect(ahead.code).toBe('STORE_SCHEMA_MISMATCH');
      expect(ahead.message).toContain('9999');
      expect(ahead.message).toContain('newer svckit');
      expect(ahead.details).toEqual({ missing: [], unknown: [9999] });
    } finally {
      await client.query('DELETE FROM svc_migrations WHERE id = 9999');
    }
    await checkSchema(client);
  });

  it('checkSchema refuses a database never migrated, naming every migration', async () => {
    // An empty schema first on the search path reads as a database never migrated: none of svckit's tables
    // are found there. (A second PGlite would cost seconds to start.)
    await client.query('CREATE SCHEMA never_migrated; SET search_path TO never_migrated;');
    try {
      const error = await schemaError(client);
      expect(error.details).toEqual({ missing: migrations.map((m) => m.id), unknown: [] });
    } finally {
      await client.query('RESET search_path; DROP SCHEMA never_migrated;');
    }
    await checkSchema(client);
  });
});

describe('SqlSweeper', () => {
  it('SqlSweeper sweeps on its interval until stopped, and reports a failed sweep', async () => {
    await resetSqlTables(client);
    await new SqlSessionStore(client).create('old', {
      userId: 'u',
      amr: [],
      createdAt: T0,
      expiresAt: T0 + 1,
    });
    const sweeper = new SqlSweeper(client, { intervalMs: 20, now: () => T0 + 1 });
    try {
      await expect.poll(async () => (await client.query('SELECT 1 FROM svc_sessions')).rowCount).toBe(0);
    } finally {
      await sweeper.stop();
    }
    const failures: unknown[] = [];
    const failing = new SqlSweeper(
      { query: () => Promise.reject(new Error('boom')) },
      { intervalMs: 60_000, onError: (error) => failures.push(error) },
    );
    await failing.sweep();
    await failing.stop();
    expect(failures).toEqual([new Error('boom')]);
    expect(() => new SqlSweeper(client, { intervalMs: 0 })).toThrow(TypeError);
  });

  it('never overlaps a sweep still running, and sweeps no more once stopped', async () => {
    let queries = 0;
    let finish = () => {};
    const held = new Promise<void>((resolve) => (finish = resolve));
    const slow = {
      async query() {
        queries += 1;
        await held;
        return { rows: [], rowCount: 0 };
      },
    };
    const sweeper = new SqlSweeper(slow, { intervalMs: 5 });
    const first = sweeper.sweep();
    expect(sweeper.sweep()).toBe(first);
    await new Promise((resolve) => setTimeout(resolve, 30)); // several intervals pass while the DELETE hangs
    expect(queries).toBe(1);
    finish();
    await first;
    await sweeper.stop();
    const afterStop = queries;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(queries).toBe(afterStop);
  });
});

describe('pglite: data directories', () => {
  const dirs: string[] = [];
  const tempDir = () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-pglite-'));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves one process: a second open, here or in a child, is STORE_LOCKED; data survives close and reopen; a stale lock is taken over', async () => {
    const dir = path.join(tempDir(), 'nested', 'data'); // created if missing
    const lockFile = path.join(dir, 'svc.lock');
    const first = await openSqlClient(`pglite:${dir}`);
    let created: AuthUser;
    try {
      expect(first.kind).toBe('pglite');
      expect(fs.readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
      await migrate(first);
      created = await new SqlUserSource(first).create({ email: 'kept@example.com', passwordHash: 'h' });

      const here = await lockError(openSqlClient(`pglite:${dir}`));
      expect(here.message).toContain(dir);
      expect(here.message).toContain(String(process.pid));

      const child = await runChild(
        `const { openSqlClient } = await import(${JSON.stringify(SQL_INDEX)});
         try { await openSqlClient(${JSON.stringify(`pglite:${dir}`)}); console.log('opened'); }
         catch (error) { console.log(error.code, error.message); }`,
      );
      expect(child).toContain('STORE_LOCKED');
      expect(child).toContain(`pid ${process.pid}`);
    } finally {
      await first.close();
    }
    expect(fs.existsSync(lockFile)).toBe(false);

    // A crashed owner leaves its lock behind; its pid is gone, so the next open takes the directory over.
    fs.writeFileSync(lockFile, `${await deadPid()}\n`);
    const second = await openSqlClient(`pglite:${dir}`);
    try {
      expect(fs.readFileSync(lockFile, 'utf8').trim()).toBe(String(process.pid));
      await checkSchema(second);
      expect(await new SqlUserSource(second).findByEmail('KEPT@example.com')).toEqual(created);
    } finally {
      await second.close();
    }
  });

  it('refuses a directory locked by a live process, or by a lock file holding no pid', async () => {
    const dir = tempDir();
    const lockFile = path.join(dir, 'svc.lock');
    const sleeper = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30_000)'], { stdio: 'ignore' });
    try {
      fs.writeFileSync(lockFile, `${sleeper.pid}\n`);
      const error = await lockError(openSqlClient(`pglite:${dir}`));
      expect(error.message).toContain(`pid ${sleeper.pid}`);
      expect(fs.readFileSync(lockFile, 'utf8').trim()).toBe(String(sleeper.pid));
    } finally {
      sleeper.kill();
    }
    fs.writeFileSync(lockFile, '');
    expect((await lockError(openSqlClient(`pglite:${dir}`))).message).toContain('holds no pid');
  });

  it('resolves a relative directory against the working directory and refuses an unknown scheme', async () => {
    expect(pgliteLocation('pglite:.svc/data')).toBe(path.resolve(process.cwd(), '.svc/data'));
    expect(pgliteLocation('pglite:memory')).toBe('memory');
    await expect(openSqlClient('mysql://localhost/x')).rejects.toThrow(TypeError);
    await expect(openSqlClient('pglite:')).rejects.toThrow(TypeError);
  });
});

async function schemaError(db: SqlClient): Promise<SvcError> {
  const error = await checkSchema(db).then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(SvcError);
  return error as SvcError;
}

async function lockError(opening: Promise<SqlClient>): Promise<SvcError> {
  const outcome = await opening.then(
    async (opened) => {
      await opened.close();
      return undefined;
    },
    (caught: unknown) => caught,
  );
  expect(outcome).toBeInstanceOf(SvcError);
  expect((outcome as SvcError).code).toBe('STORE_LOCKED');
  return outcome as SvcError;
}

/** The pid of a process that has exited. */
function deadPid(): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
    child.on('error', reject);
    child.on('exit', () => resolve(child.pid!));
  });
}

/** Runs an ES module snippet in a child node (TypeScript through tsx) and answers its stdout. */
function runChild(source: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', source], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('exit', () => resolve(out));
  });
}
