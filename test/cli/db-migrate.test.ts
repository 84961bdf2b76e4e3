// svc db:migrate: applies the pending SQL migrations, svckit's then the application's own (here the reference
// service's migrations/, 0001-notes.sql onwards), to the database svc.config.yaml names (the reference service's
// `stores.database: ${DATABASE_URL:-pglite:.svc/data}`, moved by SVC_PGLITE_DIR), once, and reports both.
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { loadAppMigrations, migrations, openStores } from 'svckit';
import { createDatabase } from '../backends.js';
import { REPO_ROOT, runSvc, runSvcBinary, tempProject } from './run-svc.js';

const ALL_IDS = migrations.map((migration) => migration.id).join(', ');
/** The reference service's migration files, in the order they apply. */
const APP_FILES = loadAppMigrations(join(REPO_ROOT, 'migrations'))
  .map((migration) => migration.file)
  .join(', ');
const APPLIED = (kind: string) =>
  `svc db:migrate: svckit: applied ${ALL_IDS} to ${kind}.\n` +
  `svc db:migrate: app (migrations/): applied ${APP_FILES} to ${kind}.\n`;
const UP_TO_DATE = (kind: string) =>
  `svc db:migrate: svckit: ${kind} is up to date.\nsvc db:migrate: app (migrations/): ${kind} is up to date.\n`;

describe('svc db:migrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-db-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  // One new PGlite directory serves both tests (each new one costs an initdb): the first run migrates it where
  // SVC_PGLITE_DIR moved it, the second finds it up to date where DATABASE_URL names it.
  const configured = join(dir, 'configured');
  const moved = join(dir, 'moved');

  test("applies svckit's and the app's migrations to a new PGlite directory, the one SVC_PGLITE_DIR moves it to", async () => {
    const env = { DATABASE_URL: `pglite:${configured}`, SVC_PGLITE_DIR: moved };
    const first = await runSvcBinary(['db:migrate'], { env });
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(APPLIED('pglite'));
    expect(first.code).toBe(0);
    expect(existsSync(moved)).toBe(true);
    expect(existsSync(configured)).toBe(false);
  }, 60_000);

  test('then finds both up to date in the directory DATABASE_URL names; SVC_PGLITE_DIR=memory leaves nothing to migrate', async () => {
    const env = { DATABASE_URL: `pglite:${moved}`, SVC_PGLITE_DIR: undefined };
    const again = await runSvc(['db:migrate'], { env });
    expect(again.stdout).toBe(UP_TO_DATE('pglite'));
    // A service that does not migrate at start accepts the migrated directory, its notes table included.
    const stores = await openStores({ database: env.DATABASE_URL }, { sweepIntervalMs: 0, env: {} });
    expect(stores.database).toBe('pglite');
    expect((await stores.sql!.query('SELECT count(*)::int AS n FROM notes')).rows).toEqual([{ n: 0 }]);
    await stores.close();
    const memory = await runSvc(['db:migrate'], {
      env: { DATABASE_URL: `pglite:${configured}`, SVC_PGLITE_DIR: 'memory' },
    });
    expect(memory.code).toBe(0);
    expect(memory.stdout).toContain('stores.database is memory or not set; nothing to migrate');
  }, 60_000);

  test('refuses a misnamed migration file, naming it, before touching the database', async () => {
    const project = await tempProject({
      'svc.config.yaml':
        'svc: 1\nname: app\nversion: 1.0.0\nstores:\n  database: pglite:.svc/data\nroutes: {}\n',
      'migrations/0001-create-things.sql': 'CREATE TABLE things (id integer PRIMARY KEY);',
      'migrations/2-more-things.sql': 'SELECT 1;',
    });
    try {
      const run = await runSvc(['db:migrate', `--dir=${project}`], { env: { SVC_PGLITE_DIR: undefined } });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('2-more-things.sql is not named like a migration: expected NNNN-name.sql');
      expect(existsSync(join(project, '.svc'))).toBe(false);
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  });

  test('migrates a PostgreSQL database, and two runs at once apply each migration once', async () => {
    const database = await createDatabase();
    try {
      const env = { DATABASE_URL: database.url };
      const runs = await Promise.all([runSvc(['db:migrate'], { env }), runSvc(['db:migrate'], { env })]);
      expect(runs.map((run) => run.code)).toEqual([0, 0]);
      expect(runs.map((run) => run.stdout).sort()).toEqual([APPLIED('postgres'), UP_TO_DATE('postgres')]);
    } finally {
      await database.drop();
    }
  }, 60_000);

  test('has nothing to do when the stores are in memory', async () => {
    const run = await runSvc(['db:migrate'], { env: { DATABASE_URL: 'memory' } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('nothing to migrate');
  });

  test('refuses a database URL svc cannot use, naming the setting', async () => {
    const run = await runSvc(['db:migrate'], { env: { DATABASE_URL: 'mysql://127.0.0.1/test' } });
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('stores.database');
    expect(run.stderr).toContain('mysql://127.0.0.1/test');
  });

  test('--help prints its usage', async () => {
    const run = await runSvc(['db:migrate', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Usage: svc db:migrate');
  });
});
