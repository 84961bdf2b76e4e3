// Applies the numbered migrations (`svc db:migrate`, and the reference service on start-up) and checks
// that a database matches this svckit before serving from it.
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { SqlClient, SqlQueryable } from './client.js';
import { migrations as knownMigrations, type Migration } from './migrations/index.js';
import { sqlState } from './unavailable.js';

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS svc_migrations (
  id integer PRIMARY KEY,
  name text NOT NULL,
  applied_at bigint NOT NULL
)`;

/** The advisory-lock key of migrators; any bigint no other lock of svc uses. */
const MIGRATION_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('svc:migrations', 0))`;

export interface MigrateOptions {
  /** The migrations to apply; default every migration of this svckit. */
  migrations?: readonly Migration[];
  /** Recorded as applied_at. Default Date.now. */
  now?: () => number;
}

/** The keys of MigrateOptions; any other is refused. */
const MIGRATE_OPTIONS = optionKeys<MigrateOptions>({ migrations: true, now: true });
/** checkSchema takes the migrations only. */
const CHECK_SCHEMA_OPTIONS = optionKeys<Pick<MigrateOptions, 'migrations'>>({ migrations: true });

async function appliedIds(db: SqlQueryable): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>('SELECT id FROM svc_migrations ORDER BY id');
  return rows.map((row) => row.id);
}

/**
 * Applies the migrations the database lacks, in order, in one transaction: all of them or none. Two processes
 * migrating at once queue on an advisory lock, so the second finds the work done; each migration is applied once.
 */
export async function migrate(
  client: SqlClient,
  options: MigrateOptions = {},
): Promise<{ applied: number[] }> {
  rejectUnknownOptions(options, MIGRATE_OPTIONS, 'migrate()');
  const list = [...(options.migrations ?? knownMigrations)].sort((a, b) => a.id - b.id);
  const now = options.now ?? Date.now;
  return client.transaction(async (tx) => {
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
    return { applied };
  });
}

/**
 * Throws STORE_SCHEMA_MISMATCH unless the database holds exactly the migrations of this svckit: one missing
 * means `svc db:migrate` has not run; one unknown means a newer svckit migrated the database.
 */
export async function checkSchema(
  client: SqlQueryable,
  options: Pick<MigrateOptions, 'migrations'> = {},
): Promise<void> {
  rejectUnknownOptions(options, CHECK_SCHEMA_OPTIONS, 'checkSchema()');
  const list = options.migrations ?? knownMigrations;
  let applied: number[];
  try {
    applied = await appliedIds(client);
  } catch (error) {
    if (sqlState(error) !== '42P01') throw error; // undefined_table: never migrated
    applied = [];
  }
  const known = new Set(list.map((migration) => migration.id));
  const present = new Set(applied);
  const missing = list.filter((migration) => !present.has(migration.id));
  const unknown = applied.filter((id) => !known.has(id));
  if (missing.length === 0 && unknown.length === 0) return;
  const problems: string[] = [];
  if (missing.length > 0) {
    const names = missing.map((migration) => `${migration.id} (${migration.name})`).join(', ');
    problems.push(`it lacks migration${missing.length > 1 ? 's' : ''} ${names}: run svc db:migrate`);
  }
  if (unknown.length > 0) {
    problems.push(
      `it holds migration${unknown.length > 1 ? 's' : ''} ${unknown.join(', ')} unknown to this svckit (a newer svckit migrated it)`,
    );
  }
  throw errors.STORE_SCHEMA_MISMATCH({
    message: `The database schema does not match this svckit: ${problems.join('; ')}.`,
    details: { missing: missing.map((migration) => migration.id), unknown },
  });
}
