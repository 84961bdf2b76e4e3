// svc db:migrate: applies svckit's pending SQL migrations to the database svc.config.yaml names (here the
// reference service's `stores.database: ${DATABASE_URL:-pglite:.svc/data}`), once, and reports what it did.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { migrations, openStores } from 'svckit';
import { createDatabase } from '../backends.js';
import { runSvc, runSvcBinary } from './run-svc.js';

const ALL_IDS = migrations.map((migration) => migration.id).join(', ');

describe('svc db:migrate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'svc-db-migrate-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test('applies every migration to a new PGlite directory, then finds it up to date', async () => {
    const env = { DATABASE_URL: `pglite:${join(dir, 'data')}` };
    const first = await runSvcBinary(['db:migrate'], { env });
    expect(first.stderr).toBe('');
    expect(first.stdout).toBe(`svc db:migrate: applied ${ALL_IDS} to pglite.\n`);
    expect(first.code).toBe(0);
    const again = await runSvc(['db:migrate'], { env });
    expect(again.stdout).toBe('svc db:migrate: pglite is up to date.\n');
    // A service that does not migrate at start accepts the migrated directory.
    const stores = await openStores({ database: env.DATABASE_URL }, { sweepIntervalMs: 0 });
    expect(stores.database).toBe('pglite');
    await stores.close();
  }, 60_000);

  test('migrates a PostgreSQL database, and two runs at once apply each migration once', async () => {
    const database = await createDatabase();
    try {
      const env = { DATABASE_URL: database.url };
      const runs = await Promise.all([runSvc(['db:migrate'], { env }), runSvc(['db:migrate'], { env })]);
      expect(runs.map((run) => run.code)).toEqual([0, 0]);
      expect(runs.map((run) => run.stdout).sort()).toEqual([
        `svc db:migrate: applied ${ALL_IDS} to postgres.\n`,
        'svc db:migrate: postgres is up to date.\n',
      ]);
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
