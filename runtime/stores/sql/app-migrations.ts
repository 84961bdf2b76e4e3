// The application's own migrations: `NNNN-name.sql` files in its migrations folder (by default
// `<project>/migrations`), applied after svckit's, in number order, each once, and recorded in
// svc_app_migrations with a checksum of the file, so an applied migration that was edited afterwards is
// refused rather than silently diverging from the databases it already ran on.
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { errors } from '../../../generated/modules/errors.js';
import { MIGRATION_FILE } from '../../../shared/migration-file.js';

export interface AppMigration {
  /** The number: `0001-notes.sql` is 1. */
  id: number;
  /** The part after the number: `notes`. */
  name: string;
  /** The file name, `0001-notes.sql`: how messages name the migration. */
  file: string;
  sql: string;
  /** sha256 (hex) of the file's text with CRLF line ends read as LF, so a Windows checkout sums the same. */
  checksum: string;
}

/** Files meant as migrations whatever their spelling: ending in .sql (any case) or starting with a digit. */
const LOOKS_LIKE_MIGRATION = /\.sql$|^\d/i;

export function migrationChecksum(sql: string): string {
  return createHash('sha256').update(sql.replace(/\r\n/g, '\n')).digest('hex');
}

function invalid(dir: string, message: string, file?: string) {
  return errors.STORE_MIGRATION_INVALID({
    message: `${dir}: ${message}`,
    details: file === undefined ? { dir } : { dir, file },
  });
}

/**
 * The migrations in `dir`, in number order. Other files (a README, .gitkeep) and folders are ignored; a
 * file that looks like a migration but is misnamed, or two files with one number, throw
 * STORE_MIGRATION_INVALID naming the file, so a typo never means a migration silently skipped.
 */
export function loadAppMigrations(dir: string): AppMigration[] {
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw invalid(dir, `cannot read the migrations folder (${code ?? String(error)})`);
  }
  const byId = new Map<number, AppMigration>();
  for (const entry of entries.filter((item) => item.isFile()).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (!LOOKS_LIKE_MIGRATION.test(entry.name)) continue;
    const match = MIGRATION_FILE.exec(entry.name);
    if (match === null) {
      throw invalid(
        dir,
        `${entry.name} is not named like a migration: expected NNNN-name.sql (four digits, a dash, lower-case words joined by dashes), e.g. 0001-create-notes.sql`,
        entry.name,
      );
    }
    const id = Number(match[1]);
    if (id === 0) throw invalid(dir, `${entry.name}: migrations are numbered from 0001`, entry.name);
    const twin = byId.get(id);
    if (twin !== undefined) {
      throw invalid(
        dir,
        `${twin.file} and ${entry.name} share the number ${match[1]}: renumber one`,
        entry.name,
      );
    }
    const sql = fs.readFileSync(path.join(dir, entry.name), 'utf8');
    byId.set(id, { id, name: match[2]!, file: entry.name, sql, checksum: migrationChecksum(sql) });
  }
  return [...byId.values()].sort((a, b) => a.id - b.id);
}

/** `<projectDir>/migrations` when that folder exists; undefined otherwise (the app has no migrations). */
export function defaultAppMigrationsDir(projectDir: string): string | undefined {
  const dir = path.resolve(projectDir, 'migrations');
  return fs.existsSync(dir) && fs.statSync(dir).isDirectory() ? dir : undefined;
}
