// The application's own migrations (`migrations/NNNN-name.sql`) and its way into the database svckit's stores
// use (`stores.sql`): files named by the rule or refused, applied after svckit's in number order, each once
// even with two migrators at once, recorded apart in svc_app_migrations with a checksum that refuses an
// edited migration; without `migrate`, a pending one refuses to boot naming it. SVC_PGLITE_DIR moves a
// `pglite:<dir>` database, and with `stores.database: memory` the app's tables live in an in-memory PGlite.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  checkSchema,
  loadAppMigrations,
  migrate,
  migrationChecksum,
  migrations,
  openSqlClient,
  openStores,
  OptionError,
  resolvedDatabaseUrl,
  SvcError,
  type SqlClient,
} from 'svckit';
import { createDatabase, type TestDatabase } from '../backends.js';

const SVCKIT_IDS = migrations.map((migration) => migration.id);

/** A table and one row: a migration applied twice would fail (the table exists) or count two rows. */
const ITEMS = `CREATE TABLE items (id integer PRIMARY KEY, label text NOT NULL);
INSERT INTO items (id, label) VALUES (1, 'first');`;
const MORE = `ALTER TABLE items ADD COLUMN note text;
INSERT INTO items (id, label) VALUES (2, 'second');`;

const roots: string[] = [];
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-app-migrations-'));
  roots.push(dir);
  return dir;
}
afterAll(() => {
  for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true });
});

/** A migrations folder holding `files` (name → SQL). */
function folder(files: Record<string, string>, dir = tempDir()): string {
  fs.mkdirSync(dir, { recursive: true });
  for (const [name, sql] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), sql);
  return dir;
}

/** The error `attempt` fails with: a catalog error (SvcError) or an option error (OptionError). */
async function refusal(attempt: Promise<unknown> | (() => unknown)): Promise<SvcError | OptionError> {
  const run = typeof attempt === 'function' ? Promise.resolve().then(attempt) : attempt;
  const error = await run.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (error instanceof SvcError || error instanceof OptionError) return error;
  throw new Error(`expected a catalog error, got ${String(error)}`);
}

/**
 * The file's one in-memory PGlite (each costs seconds to start), emptied for each user as a new database would be:
 * its public schema, with every table, function and procedure in it, dropped and made again.
 */
let embedded: SqlClient | undefined;
async function emptyPglite(): Promise<SqlClient> {
  embedded ??= await openSqlClient('pglite:memory');
  await embedded.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
  return embedded;
}
afterAll(() => embedded?.close());

async function recorded(db: SqlClient | { query: SqlClient['query'] }) {
  const { rows } = await db.query<{ id: number; name: string; checksum: string }>(
    'SELECT id, name, checksum FROM svc_app_migrations ORDER BY id',
  );
  return rows;
}

describe('app migration files', () => {
  it('reads NNNN-name.sql files in number order, ignoring other files, with a checksum blind to CRLF', () => {
    const dir = folder({
      '0010-later.sql': 'SELECT 10;',
      '0002-create-items.sql': 'SELECT 2;\r\n',
      'README.md': '# migrations',
      '.gitkeep': '',
    });
    fs.mkdirSync(path.join(dir, '0003-a-folder.sql'));
    expect(loadAppMigrations(dir).map(({ id, name, file }) => ({ id, name, file }))).toEqual([
      { id: 2, name: 'create-items', file: '0002-create-items.sql' },
      { id: 10, name: 'later', file: '0010-later.sql' },
    ]);
    expect(loadAppMigrations(dir)[0]?.checksum).toBe(migrationChecksum('SELECT 2;\n'));
  });

  it.each([
    ['1-items.sql'],
    ['0001_items.sql'],
    ['0001-Items.sql'],
    ['0001-items.SQL'],
    ['00001-items.sql'],
    ['0001-items.sql.bak'],
    ['0001-.sql'],
    ['items.sql'],
  ])('refuses %s, which looks like a migration but is misnamed, naming it', (name) => {
    const dir = folder({ '0001-fine.sql': 'SELECT 1;', [name]: 'SELECT 1;' });
    const error = (() => {
      try {
        loadAppMigrations(dir);
      } catch (caught) {
        return caught as SvcError;
      }
      throw new Error('expected a refusal');
    })();
    expect(error.code).toBe('STORE_MIGRATION_INVALID');
    expect(error.message).toContain(name);
    expect(error.message).toContain('NNNN-name.sql');
  });

  it('refuses two files with one number, and number 0000', () => {
    const twins = folder({ '0001-a.sql': '', '0001-b.sql': '' });
    expect(() => loadAppMigrations(twins)).toThrow(/0001-a\.sql and 0001-b\.sql share the number 0001/);
    expect(() => loadAppMigrations(folder({ '0000-zero.sql': '' }))).toThrow(/numbered from 0001/);
  });
});

describe('resolvedDatabaseUrl and SVC_PGLITE_DIR', () => {
  const project = '/srv/app';

  it('replaces the directory of a pglite:<dir> database; memory, relative and absolute values', () => {
    const url = 'pglite:.svc/data';
    expect(resolvedDatabaseUrl(url, project, {})).toBe('pglite:/srv/app/.svc/data');
    expect(resolvedDatabaseUrl(url, project, { SVC_PGLITE_DIR: 'memory' })).toBe('memory');
    expect(resolvedDatabaseUrl(url, project, { SVC_PGLITE_DIR: '.svc/mcp-data' })).toBe(
      'pglite:/srv/app/.svc/mcp-data',
    );
    expect(resolvedDatabaseUrl(url, project, { SVC_PGLITE_DIR: '/tmp/other' })).toBe('pglite:/tmp/other');
    expect(resolvedDatabaseUrl(url, project, { SVC_PGLITE_DIR: '' })).toBe('pglite:/srv/app/.svc/data');
  });

  it('leaves PostgreSQL and pglite:memory as they are', () => {
    const env = { SVC_PGLITE_DIR: '/tmp/other' };
    expect(resolvedDatabaseUrl('postgres://db/app', project, env)).toBe('postgres://db/app');
    expect(resolvedDatabaseUrl('pglite:memory', project, env)).toBe('pglite:memory');
    // Checked as written: an empty directory must not become the project directory, moved or not.
    for (const moves of [{}, env]) {
      expect(() => resolvedDatabaseUrl('pglite:', project, moves)).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID' }),
      );
    }
  });
});

describe('migrate() with the app migrations (PGlite)', () => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await emptyPglite();
  });

  it("applies svckit's then the app's, each once, records them apart; then refuses edits, late numbers and broken SQL", async () => {
    const dir = folder({ '0001-items.sql': ITEMS, '0003-more.sql': MORE });
    const pending = await refusal(checkSchema(client, { appMigrations: loadAppMigrations(dir) }));
    expect(pending.code).toBe('STORE_SCHEMA_MISMATCH');

    // Two migrators at once in one process: each migration still runs once.
    const runs = await Promise.all([
      migrate(client, { appMigrations: loadAppMigrations(dir), now: () => 1000 }),
      migrate(client, { appMigrations: loadAppMigrations(dir), now: () => 1000 }),
    ]);
    expect(runs).toEqual([
      { applied: SVCKIT_IDS, appApplied: ['0001-items.sql', '0003-more.sql'] },
      { applied: [], appApplied: [] },
    ]);
    expect((await client.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await recorded(client)).toEqual([
      { id: 1, name: 'items', checksum: migrationChecksum(ITEMS) },
      { id: 3, name: 'more', checksum: migrationChecksum(MORE) },
    ]);
    const svckit = await client.query<{ id: number }>('SELECT id FROM svc_migrations ORDER BY id');
    expect(svckit.rows.map((row) => row.id)).toEqual(SVCKIT_IDS);
    await checkSchema(client, { appMigrations: loadAppMigrations(dir) });

    // An applied migration edited afterwards: refused by migrate and by the schema check, naming it.
    fs.writeFileSync(path.join(dir, '0001-items.sql'), `${ITEMS}\n-- tweak`);
    for (const attempt of [
      migrate(client, { appMigrations: loadAppMigrations(dir) }),
      checkSchema(client, { appMigrations: loadAppMigrations(dir) }),
    ]) {
      const changed = await refusal(attempt);
      expect(changed.code).toBe('STORE_MIGRATION_CHANGED');
      expect(changed.message).toContain('0001-items.sql was applied on 1970-01-01T00:00:01.000Z');
      expect(changed.message).toContain('put the change in a new migration');
    }
    fs.writeFileSync(path.join(dir, '0001-items.sql'), ITEMS.replace(/\n/g, '\r\n')); // same text, CRLF

    // A migration numbered below one already applied would run out of order.
    fs.writeFileSync(path.join(dir, '0002-late.sql'), 'SELECT 1;');
    const late = await refusal(migrate(client, { appMigrations: loadAppMigrations(dir) }));
    expect(late.code).toBe('STORE_MIGRATION_INVALID');
    expect(late.message).toContain('0002-late.sql is numbered below 0003');
    fs.rmSync(path.join(dir, '0002-late.sql'));

    // SQL the database refuses: named, and nothing of the run is kept (0004 ran before 0005 failed).
    fs.writeFileSync(path.join(dir, '0004-fine.sql'), "INSERT INTO items (id, label) VALUES (4, 'four');");
    fs.writeFileSync(path.join(dir, '0005-broken.sql'), 'CREATE TABEL oops (id integer);');
    const broken = await refusal(migrate(client, { appMigrations: loadAppMigrations(dir) }));
    expect(broken.code).toBe('STORE_MIGRATION_FAILED');
    expect(broken.message).toMatch(
      /^Migration 0005-broken\.sql failed: .*syntax error.*Nothing was applied\.$/,
    );
    expect((await recorded(client)).map((row) => row.id)).toEqual([1, 3]);
    expect((await client.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
  });
});

describe('openStores(): stores.sql and the app migrations (PGlite)', () => {
  const project = tempDir();
  const data = path.join(project, '.svc', 'data');
  const appDir = folder({ '0001-items.sql': ITEMS }, path.join(project, 'migrations'));

  it("migrates at start and exposes the very client svckit's stores use, closed with them", async () => {
    const stores = await openStores(
      { database: 'pglite:.svc/data' },
      { migrate: true, projectDir: project, sweepIntervalMs: 0, env: {} },
    );
    const sql = stores.sql!;
    try {
      expect(sql.kind).toBe('pglite');
      expect('close' in sql).toBe(false);
      expect(await recorded(sql)).toEqual([{ id: 1, name: 'items', checksum: migrationChecksum(ITEMS) }]);
      // One database: a user the built-in store creates is a row the app's client reads.
      const user = await stores.users!.create({ email: 'one@example.com', passwordHash: 'h' });
      const seen = await sql.query('SELECT id FROM svc_users WHERE id = $1', [user.id]);
      expect(seen.rowCount).toBe(1);
      expect(fs.readFileSync(path.join(data, 'svc.lock'), 'utf8').trim()).toBe(String(process.pid));
    } finally {
      await stores.close();
    }
    await expect(sql.query('SELECT 1')).rejects.toThrow();
  });

  it('without migrate, a pending app migration refuses to boot naming it and saying what to run', async () => {
    fs.writeFileSync(path.join(appDir, '0002-more.sql'), MORE);
    try {
      const error = await refusal(
        openStores({ database: `pglite:${data}` }, { projectDir: project, sweepIntervalMs: 0, env: {} }),
      );
      expect(error.code).toBe('STORE_SCHEMA_MISMATCH');
      expect(error.message).toContain(
        "it lacks the application's migration 0002-more.sql: run svc db:migrate",
      );
      expect((error as SvcError).details).toMatchObject({ missing: [], appMissing: ['0002-more.sql'] });
      // Refused with the directory released: the next open succeeds.
      const stores = await openStores(
        { database: `pglite:${data}` },
        { sweepIntervalMs: 0, env: {}, appMigrations: false },
      );
      await stores.close();
    } finally {
      fs.rmSync(path.join(appDir, '0002-more.sql'));
    }
  });

  it('SVC_PGLITE_DIR moves the directory: memory (the stores in memory, app tables migrated on first use) or another folder', async () => {
    const inMemory = await openStores(
      { database: 'pglite:.svc/data' },
      { projectDir: project, sweepIntervalMs: 0, env: { SVC_PGLITE_DIR: 'memory' } },
    );
    try {
      // The stores in memory, the app's tables in an in-memory database of their own, migrated on first use.
      expect(inMemory.database).toBe('memory');
      expect(inMemory.users).toBeUndefined();
      expect((await inMemory.sql!.query('SELECT id FROM items')).rows).toEqual([{ id: 1 }]);
      expect(fs.existsSync(path.join(data, 'svc.lock'))).toBe(false);
    } finally {
      await inMemory.close();
    }
    // Another folder, holding a copy of the first test's database: opening it costs no second initdb.
    fs.cpSync(data, path.join(project, '.svc', 'mcp'), { recursive: true });
    const elsewhere = await openStores(
      { database: 'pglite:.svc/data' },
      { migrate: true, projectDir: project, sweepIntervalMs: 0, env: { SVC_PGLITE_DIR: '.svc/mcp' } },
    );
    try {
      expect(fs.existsSync(path.join(project, '.svc', 'mcp', 'svc.lock'))).toBe(true);
      expect(fs.existsSync(path.join(data, 'svc.lock'))).toBe(false);
    } finally {
      await elsewhere.close();
    }
  });

  it('with stores.database memory: an in-memory PGlite for the app when it has migrations, else no sql', async () => {
    const stores = await openStores({ database: 'memory' }, { projectDir: project });
    try {
      expect(stores.database).toBe('memory');
      expect(stores.users).toBeUndefined(); // svckit's stores stay in memory maps
      expect(stores.healthChecks).toEqual({});
      expect(stores.sql?.kind).toBe('pglite');
      // Made and migrated on the first query; concurrent first queries share it.
      const [rows, count] = await Promise.all([
        stores.sql!.query('SELECT label FROM items'),
        stores.sql!.query('SELECT count(*)::int AS n FROM svc_app_migrations'),
      ]);
      expect(rows.rows).toEqual([{ label: 'first' }]);
      expect(count.rows).toEqual([{ n: 1 }]);
    } finally {
      await stores.close();
    }
    await expect(stores.sql!.query('SELECT 1')).rejects.toThrow('The stores are closed');
    // Never queried: nothing to make, nothing to close. A broken migration then fails the first query.
    const broken = folder({ '0001-broken.sql': 'CREATE TABEL nope (id int);' });
    const unused = await openStores({ database: 'memory' }, { appMigrations: broken });
    await unused.close();
    const failing = await openStores({ database: 'memory' }, { appMigrations: broken });
    try {
      const error = await refusal(failing.sql!.query('SELECT 1'));
      expect(error.code).toBe('STORE_MIGRATION_FAILED');
      expect(error.message).toContain('0001-broken.sql');
    } finally {
      await failing.close();
    }
    const none = await openStores({}, { projectDir: project, appMigrations: false });
    expect(none.sql).toBeUndefined();
    await none.close();
    const noFolder = await openStores({ database: 'memory' }, { projectDir: tempDir() });
    expect(noFolder.sql).toBeUndefined();
    await noFolder.close();
  });

  it('refuses an appMigrations that is not a folder path, and a folder that does not exist, before opening', async () => {
    const wrong = await refusal(() =>
      openStores({ database: `pglite:${data}` }, { appMigrations: 42 as unknown as string }),
    );
    expect(wrong).toBeInstanceOf(OptionError);
    expect(wrong.message).toBe('openStores(): appMigrations must be a folder path or false.');
    const missing = await refusal(openStores({ database: `pglite:${data}` }, { appMigrations: 'nowhere' }));
    expect(missing.code).toBe('STORE_MIGRATION_INVALID');
    expect(missing.message).toContain(path.resolve('nowhere'));
    expect(fs.existsSync(path.join(data, 'svc.lock'))).toBe(false);
  });
});

describe('app migrations on PostgreSQL', () => {
  let database: TestDatabase;
  const clients: SqlClient[] = [];
  beforeAll(async () => {
    database = await createDatabase();
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await database?.drop();
  });

  it('two migrators on two pools at once apply each migration exactly once, under one lock', async () => {
    const [a, b] = [await openSqlClient(database.url), await openSqlClient(database.url)];
    clients.push(a, b);
    const appMigrations = loadAppMigrations(folder({ '0001-items.sql': ITEMS, '0002-more.sql': MORE }));
    const runs = await Promise.all([migrate(a, { appMigrations }), migrate(b, { appMigrations })]);
    expect(runs.map((run) => run.appApplied).sort()).toEqual([[], ['0001-items.sql', '0002-more.sql']]);
    expect(runs.flatMap((run) => run.applied).sort((x, y) => x - y)).toEqual(SVCKIT_IDS);
    expect((await a.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await recorded(b)).map((row) => row.id)).toEqual([1, 2]);
    await checkSchema(b, { appMigrations });
  });
});

describe.each([
  ['PGlite', async () => ({ client: await emptyPglite(), release: async () => undefined })],
  [
    'PostgreSQL',
    async () => {
      const database = await createDatabase();
      const client = await openSqlClient(database.url);
      return {
        client,
        release: async () => {
          await client.close();
          await database.drop();
        },
      };
    },
  ],
] as const)('a migration that ends the transaction, on %s', (_name, open) => {
  let client: SqlClient;
  let release: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    ({ client, release } = await open());
  });
  afterAll(async () => {
    await release?.();
  });

  const exists = async (table: string) =>
    (await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [table])).rows[0]?.t !=
    null;

  it('is refused naming the file, with all or none kept; COMMIT in strings, comments and bodies is fine', async () => {
    const dir = folder({
      '0001-items.sql': ITEMS,
      '0002-wrapped.sql':
        'BEGIN;\nCREATE TABLE early (id integer);\nCOMMIT;\nCREATE TABLE late (id integer);\n',
    });
    const committing = await refusal(migrate(client, { appMigrations: loadAppMigrations(dir) }));
    expect(committing.code).toBe('STORE_MIGRATION_FAILED');
    expect(committing.message).toBe(
      'Migration 0002-wrapped.sql ends the transaction (a COMMIT in it): svckit runs every pending migration in ' +
        'one transaction of its own, so a migration must not end the transaction: remove its BEGIN, COMMIT, END ' +
        'or ROLLBACK. Nothing was applied.',
    );
    // Truly nothing: not svckit's tables, not 0001, not what 0002 did before or after its COMMIT.
    for (const table of ['svc_migrations', 'svc_app_migrations', 'items', 'early', 'late']) {
      expect(await exists(table), table).toBe(false);
    }

    fs.writeFileSync(path.join(dir, '0002-wrapped.sql'), 'SET CONSTRAINTS ALL IMMEDIATE;\n');
    const immediate = await refusal(migrate(client, { appMigrations: loadAppMigrations(dir) }));
    expect(immediate.message).toMatch(/^Migration 0002-wrapped\.sql runs SET CONSTRAINTS ALL IMMEDIATE/);
    expect(await exists('items')).toBe(false);

    // The word alone ends nothing: in a string, a comment, a function body.
    fs.writeFileSync(
      path.join(dir, '0002-wrapped.sql'),
      `-- COMMIT;
/* ROLLBACK; */
CREATE FUNCTION word() RETURNS text LANGUAGE sql AS $$ SELECT 'COMMIT;' $$;
CREATE PROCEDURE tidy() LANGUAGE plpgsql AS $body$ BEGIN COMMIT; END $body$;
INSERT INTO items (id, label) VALUES (2, 'END; ROLLBACK;');`,
    );
    const run = await migrate(client, { appMigrations: loadAppMigrations(dir) });
    expect(run).toEqual({ applied: SVCKIT_IDS, appApplied: ['0001-items.sql', '0002-wrapped.sql'] });
    expect((await client.query('SELECT word() AS w')).rows).toEqual([{ w: 'COMMIT;' }]);

    // A ROLLBACK undoes the run; what follows it runs on its own and is kept, and the message says so.
    fs.writeFileSync(
      path.join(dir, '0003-rollback.sql'),
      "INSERT INTO items (id, label) VALUES (3, 'three');\nROLLBACK;\nCREATE TABLE kept (id integer);\n",
    );
    const rolledBack = await refusal(migrate(client, { appMigrations: loadAppMigrations(dir) }));
    expect(rolledBack.code).toBe('STORE_MIGRATION_FAILED');
    expect(rolledBack.message).toMatch(
      /^Migration 0003-rollback\.sql ends the transaction \(a ROLLBACK in it\): .* the statements after its ROLLBACK ran on their own and were kept\.$/,
    );
    expect((rolledBack as SvcError).hint).toContain('undo by hand what 0003-rollback.sql kept');
    expect((await client.query('SELECT id FROM items ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await recorded(client)).map((row) => row.id)).toEqual([1, 2]);
    expect(await exists('kept')).toBe(true);
  });
});
