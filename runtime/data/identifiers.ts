// Table and column names a repository writes into its SQL. They come from code, never from a request, but
// are checked all the same when the repository is made: a name is lower-case letters, digits and
// underscores (as unquoted names fold in PostgreSQL, so the SQL a person writes by hand names the same
// thing), and is always written quoted. Values never enter the text: they travel as $n parameters.
import { invalidOption } from '../config/option-errors.js';

/** PostgreSQL truncates longer names (NAMEDATALEN 64): two long names could silently become one. */
const MAX_LENGTH = 63;
const SQL_NAME = /^[a-z_][a-z0-9_]*$/;
const PROPERTY_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** `createdAt` → `created_at`, `userID` → `user_id`, `HTTPStatus` → `http_status`, `sha256Sum` → `sha256_sum`. */
export function snakeCase(property: string): string {
  return property
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z])([A-Z][a-z])/g, '$1_$2')
    .toLowerCase();
}

/** `name` as a quoted SQL identifier, after checking it is a plain lower-case name. */
export function sqlName(owner: string, option: string, name: unknown): string {
  if (typeof name !== 'string' || !SQL_NAME.test(name) || name.length > MAX_LENGTH) {
    throw invalidOption(
      owner,
      option,
      `a SQL name of lower-case letters, digits and underscores, starting with a letter or underscore, at most ${MAX_LENGTH} characters`,
      `got ${JSON.stringify(name)}`,
    );
  }
  return `"${name}"`;
}

/** `table` or `schema.table`, quoted part by part. */
export function sqlTableName(owner: string, table: unknown): string {
  if (typeof table !== 'string') return sqlName(owner, 'table', table);
  const parts = table.split('.');
  if (parts.length > 2) return sqlName(owner, 'table', table);
  return parts.map((part) => sqlName(owner, 'table', part)).join('.');
}

/** A row property, used as the column's alias so rows come back keyed by property. */
export function propertyName(owner: string, option: string, name: unknown): string {
  if (typeof name !== 'string' || !PROPERTY_NAME.test(name) || name.length > MAX_LENGTH) {
    throw invalidOption(
      owner,
      option,
      `a property name of letters, digits and underscores, at most ${MAX_LENGTH} characters`,
      `got ${JSON.stringify(name)}`,
    );
  }
  return name;
}
