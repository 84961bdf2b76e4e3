// Applies the numbered migrations (`svc db:migrate`, and the reference service on start-up), svckit's and
// then the application's, and checks that a database matches this svckit and this application before serving
// from it.
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { AppMigration } from './app-migrations.js';
import type { SqlClient, SqlQueryable } from './client.js';
import { databaseRefused } from './database-refused.js';
import { migrations as knownMigrations, type Migration } from './migrations/index.js';
import { isStoreUnavailable, sqlState } from './unavailable.js';

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS svc_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  applied_at bigint NOT NULL
)`;

/** The application's migrations, apart from svckit's: their numbers are the app's own. */
const CREATE_APP_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS svc_app_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  checksum text NOT NULL,
  applied_at bigint NOT NULL
)`;

/** The advisory-lock key of migrators; any bigint no other lock of svc uses. */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('svc:migrations', 0))`;

export interface MigrateOptions {
  /** The migrations to apply; default every migration of this svckit. */
  migrations?: readonly Migration[];
  /**
   * The application's migrations (loadAppMigrations), applied after svckit's in the same transaction and
   * recorded in svc_app_migrations. Default none.
   */
  appMigrations?: readonly AppMigration[];
  /** Recorded as applied_at. Default Date.now. */
  now?: () => number;
}

export interface MigrateResult {
  /** The svckit migrations this run applied, by number. */
  applied: number[];
  /** The application migrations this run applied, by file name; present when `appMigrations` was given. */
  appApplied?: string[];
}

/** The keys of MigrateOptions; any other is refused. */
const MIGRATE_OPTIONS = optionKeys<MigrateOptions>({ migrations: true, appMigrations: true, now: true });
/** checkSchema takes the migrations only. */
const CHECK_SCHEMA_OPTIONS = optionKeys<Pick<MigrateOptions, 'migrations' | 'appMigrations'>>({
  migrations: true,
  appMigrations: true,
});

async function appliedIds(db: SqlQueryable): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM svc_migrations ORDER BY id');
  return rows.map((row) => row.id);
}

interface AppliedAppMigration {
  id: number;
  name: string;
  checksum: string;
  applied_at: number;
}

async function appliedAppMigrations(db: SqlQueryable): Promise<Map<number, AppliedAppMigration>> {
  const { rows } = await db.query<AppliedAppMigration>(
    'SELECT id, name, checksum, applied_at FROM svc_app_migrations ORDER BY id',
  );
  return new Map(rows.map((row) => [row.id, row]));
}

/** STORE_MIGRATION_CHANGED for the first applied migration whose file no longer sums as recorded. */
function refuseChanged(list: readonly AppMigration[], applied: Map<number, AppliedAppMigration>): void {
  for (const migration of list) {
    const record = applied.get(migration.id);
    if (record === undefined || record.checksum === migration.checksum) continue;
    throw errors.STORE_MIGRATION_CHANGED({
      message:
        `Migration ${migration.file} was applied on ${new Date(record.applied_at).toISOString()} and its file ` +
        'has changed since. An applied migration is history: restore the file and put the change in a new migration.',
      details: { file: migration.file, recorded: record.checksum, found: migration.checksum },
    });
  }
}

/** The migrations of `list` not yet applied; one numbered below an applied one is refused (order matters). */
function pendingAppMigrations(
  list: readonly AppMigration[],
  applied: Map<number, AppliedAppMigration>,
): AppMigration[] {
  refuseChanged(list, applied);
  const pending = list.filter((migration) => !applied.has(migration.id));
  const highest = Math.max(0, ...applied.keys());
  const late = pending.find((migration) => migration.id < highest);
  if (late !== undefined) {
    throw errors.STORE_MIGRATION_INVALID({
      message:
        `Migration ${late.file} is numbered below ${String(highest).padStart(4, '0')}, already applied: ` +
        'migrations run in number order, so renumber it above the last applied one.',
      details: { file: late.file, lastApplied: highest },
    });
  }
  return pending;
}

/**
 * A check PostgreSQL runs when the transaction commits, and that fails until finishGuard: a migration that
 * ends svckit's transaction (COMMIT, END, COMMIT AND CHAIN, PREPARE TRANSACTION) fails there, so what ran
 * before it is rolled back instead of committed, and nothing after it runs. The tables are temporary: this
 * session's alone, gone with the transaction.
 */
const OPEN_GUARD = `CREATE TEMP TABLE svc_migration_guard_parent (id integer PRIMARY KEY) ON COMMIT DROP;
CREATE TEMP TABLE svc_migration_guard (
  id integer CONSTRAINT svc_migration_guard_open REFERENCES svc_migration_guard_parent
    DEFERRABLE INITIALLY DEFERRED
) ON COMMIT DROP;
INSERT INTO svc_migration_guard (id) VALUES (1)`;
const FINISH_GUARD = 'DELETE FROM pg_temp.svc_migration_guard';
const GUARD_CONSTRAINT = 'svc_migration_guard_open';
const TRANSACTION_ID = 'SELECT txid_current()::text AS id';

const ENDS_TRANSACTION =
  'svckit runs every pending migration in one transaction of its own, so a migration must not end the transaction: ' +
  'remove its BEGIN, COMMIT, END or ROLLBACK';

async function transactionId(tx: SqlQueryable): Promise<string> {
  const { rows } = await tx.query<{ id: string }>(TRANSACTION_ID);
  return rows[0]!.id;
}

function constraintOf(error: unknown): string | undefined {
  const constraint = (error as { constraint?: unknown } | null)?.constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

/** STORE_MIGRATION_FAILED for `migration`, whose statements the database refused with `error`. */
async function failed(tx: SqlQueryable, migration: AppMigration, error: unknown): Promise<never> {
  // The database's own reason, with the file it came from; an outage stays STORE_UNAVAILABLE.
  if (isStoreUnavailable(error)) throw error;
  if (constraintOf(error) === GUARD_CONSTRAINT) {
    // The guard fired: at a COMMIT (the transaction is over, so a statement runs) or because the migration
    // made every deferred check immediate (the transaction is aborted, so none does).
    const ended = await tx.query('SELECT 1').then(
      () => true,
      () => false,
    );
    throw errors.STORE_MIGRATION_FAILED({
      message: ended
        ? `Migration ${migration.file} ends the transaction (a COMMIT in it): ${ENDS_TRANSACTION}. Nothing was applied.`
        : `Migration ${migration.file} runs SET CONSTRAINTS ALL IMMEDIATE, which also checks svckit's guard against a COMMIT: name its own constraints instead. Nothing was applied.`,
      details: { file: migration.file },
      cause: error,
    });
  }
  throw errors.STORE_MIGRATION_FAILED({
    message: `Migration ${migration.file} failed: ${error instanceof Error ? error.message : String(error)}. Nothing was applied.`,
    details: { file: migration.file, sqlState: sqlState(error) },
    cause: error,
  });
}

async function applyAppMigrations(
  tx: SqlQueryable,
  list: readonly AppMigration[],
  now: () => number,
): Promise<string[]> {
  if (list.length === 0) return [];
  await tx.query(CREATE_APP_MIGRATIONS_TABLE);
  const pending = pendingAppMigrations(list, await appliedAppMigrations(tx));
  if (pending.length === 0) return [];
  await tx.query(OPEN_GUARD);
  const transaction = await transactionId(tx);
  const applied: string[] = [];
  for (const migration of pending) {
    try {
      await tx.query(migration.sql);
    } catch (error) {
      await failed(tx, migration, error);
    }
    // A ROLLBACK passes the guard (nothing to commit): the statements after it ran in a transaction of their
    // own and were kept, while everything before it, this run's earlier migrations included, is undone.
    if ((await transactionId(tx)) !== transaction) {
      throw errors.STORE_MIGRATION_FAILED({
        message:
          `Migration ${migration.file} ends the transaction (a ROLLBACK in it): ${ENDS_TRANSACTION}. ` +
          'The rest of the run was undone, but the statements after its ROLLBACK ran on their own and were kept.',
        hint: `undo by hand what ${migration.file} kept after its ROLLBACK, remove the ROLLBACK, then migrate again`,
        details: { file: migration.file },
      });
    }
    await tx.query(
      'INSERT INTO svc_app_migrations (id, name, checksum, applied_at) VALUES ($1, $2, $3, $4)',
      [migration.id, migration.name, migration.checksum, now()],
    );
    applied.push(migration.file);
  }
  await tx.query(FINISH_GUARD);
  return applied;
}

/**
 * Applies the migrations the database lacks, in order, in one transaction: all of them or none; svckit's
 * first, then the application's. Two processes migrating at once queue on an advisory lock, so the second
 * finds the work done; each migration is applied once.
 */
export async function migrate(client: SqlClient, options: MigrateOptions = {}): Promise<MigrateResult> {
  rejectUnknownOptions(options, MIGRATE_OPTIONS, 'migrate()');
  const list = [...(options.migrations ?? knownMigrations)].sort((a, b) => a.id - b.id);
  const appList = options.appMigrations;
  const now = options.now ?? Date.now;
  // The first connection is made here: a database that does not exist, or refused credentials, surface now.
  return client
    .transaction(async (tx) => {
      // The lock comes first: CREATE TABLE IF NOT EXISTS itself races when two migrators start together.
      await tx.query(MIGRATION_LOCK);
      await tx.query(CREATE_MIGRATIONS_TABLE);
      const done = new Set(await appliedIds(tx));
      const applied: number[] = [];
      for (const migration of list) {
        if (done.has(migration.id)) continue;
        await tx.query(migration.sql);
        await tx.query('INSERT INTO svc_migrations (id, name, applied_at) VALUES ($1, $2, $3)', [
          migration.id,
          migration.name,
          now(),
        ]);
        applied.push(migration.id);
      }
      if (appList === undefined) return { applied };
      return { applied, appApplied: await applyAppMigrations(tx, appList, now) };
    })
    .catch((error: unknown) => {
      throw databaseRefused(error);
    });
}

/** What `read` answers, or `empty` when its table does not exist yet (never migrated). */
async function orEmpty<T>(read: () => Promise<T>, empty: T): Promise<T> {
  try {
    return await read();
  } catch (error) {
    if (sqlState(error) !== '42P01') throw error; // undefined_table
    return empty;
  }
}

/**
 * Throws STORE_SCHEMA_MISMATCH unless the database holds exactly the migrations of this svckit and every
 * migration of the application: one missing means `svc db:migrate` has not run; an unknown svckit migration
 * means a newer svckit migrated the database. An applied application migration whose file changed throws
 * STORE_MIGRATION_CHANGED. (An applied application migration no longer in the folder is accepted: an older
 * build of the app may run on a database a newer one migrated.)
 */
export async function checkSchema(
  client: SqlQueryable,
  options: Pick<MigrateOptions, 'migrations' | 'appMigrations'> = {},
): Promise<void> {
  rejectUnknownOptions(options, CHECK_SCHEMA_OPTIONS, 'checkSchema()');
  const list = options.migrations ?? knownMigrations;
  const appList = options.appMigrations ?? [];
  // The first query connects: a database that does not exist, or refused credentials, surface here.
  const applied = await orEmpty(() => appliedIds(client), []).catch((error: unknown) => {
    throw databaseRefused(error);
  });
  const appApplied =
    appList.length === 0 ? new Map() : await orEmpty(() => appliedAppMigrations(client), new Map());
  refuseChanged(appList, appApplied);
  const appMissing = appList.filter((migration) => !appApplied.has(migration.id));
  const known = new Set(list.map((migration) => migration.id));
  const present = new Set(applied);
  const missing = list.filter((migration) => !present.has(migration.id));
  const unknown = applied.filter((id) => !known.has(id));
  if (missing.length === 0 && unknown.length === 0 && appMissing.length === 0) return;
  const problems: string[] = [];
  if (missing.length > 0) {
    const names = missing.map((migration) => `${migration.id} (${migration.name})`).join(', ');
    problems.push(`it lacks migration${missing.length > 1 ? 's' : ''} ${names}: run svc db:migrate`);
  }
  if (appMissing.length > 0) {
    const files = appMissing.map((migration) => migration.file).join(', ');
    problems.push(
      `it lacks the application's migration${appMissing.length > 1 ? 's' : ''} ${files}: run svc db:migrate`,
    );
  }
  if (unknown.length > 0) {
    problems.push(
      `it holds migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} unknown to this svckit (a newer svckit migrated it)`,
    );
  }
  const subject = appMissing.length > 0 ? 'this svckit and application' : 'this svckit';
  throw errors.STORE_SCHEMA_MISMATCH({
    message: `The database schema does not match ${subject}: ${problems.join('; ')}.`,
    details: {
      missing: missing.map((migration) => migration.id),
      unknown,
      ...(appMissing.length > 0 ? { appMissing: appMissing.map((migration) => migration.file) } : {}),
    },
  });
}
