// The small query interface every SQL store is written against, served by node-postgres (a pool of
// connections to PostgreSQL) or by PGlite (PostgreSQL compiled to WebAssembly, embedded in the process). Both
// speak the same SQL, so one implementation of each store serves both. The drivers load lazily: an app that uses
// neither never imports them.
import path from 'node:path';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';

export interface SqlResult<Row> {
  rows: Row[];
  /** Rows returned by a SELECT, or changed by an INSERT, UPDATE or DELETE. */
  rowCount: number;
}

export interface SqlQueryable {
  /**
   * Runs one statement with `$1`-style parameters. Without parameters `text` may hold several statements
   * (migrations); the result is then the last one's. BIGINT columns come back as JS numbers.
   */
  query<Row = Record<string, unknown>>(text: string, params?: readonly unknown[]): Promise<SqlResult<Row>>;
}

export interface SqlClient extends SqlQueryable {
  readonly kind: 'postgres' | 'pglite';
  /** One connection, BEGIN … COMMIT, ROLLBACK when fn throws. */
  transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T>;
  /** Cheap liveness probe for /readyz (SELECT 1). */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface SqlClientOptions {
  /** PostgreSQL: connections in the pool at most. Default 10. */
  max?: number;
  /** PostgreSQL: how long to wait for a connection before answering STORE_UNAVAILABLE, in ms. Default 3000. */
  connectionTimeoutMillis?: number;
  /** PostgreSQL: how long to wait for a query's answer before answering STORE_UNAVAILABLE, in ms. Default 5000. */
  queryTimeoutMillis?: number;
  /**
   * PostgreSQL: receives errors of idle pooled connections (the server restarted, the network dropped), which
   * would otherwise crash the process. The pool drops such a connection and opens a new one when needed.
   * Default: ignored.
   */
  onIdleError?: (error: Error) => void;
}

/**
 * The keys of SqlClientOptions; any other is refused. They are svc's own
 * settings, mapped onto the pg pool's: raw pg options are not accepted here.
 */
const CLIENT_OPTIONS = optionKeys<SqlClientOptions>({
  max: true,
  connectionTimeoutMillis: true,
  queryTimeoutMillis: true,
  onIdleError: true,
});

/** Where a `pglite:` URL keeps its data: a directory, or `'memory'` for an in-memory database. */
export function pgliteLocation(url: string): string {
  const target = url.slice('pglite:'.length);
  if (target === '')
    throw invalidOption('openSqlClient()', 'url', 'pglite:<dir> or pglite:memory', 'e.g. pglite:.svc/data');
  return target === 'memory' ? 'memory' : path.resolve(process.cwd(), target);
}

/**
 * Opens a client for `url`: `postgres://…` or `postgresql://…` (a connection pool; nothing connects before the
 * first query), `pglite:<dir>` (an embedded database persisted in <dir>, created if missing, relative to the
 * working directory; one process at a time) or `pglite:memory` (embedded, in memory).
 */
export async function openSqlClient(url: string, options: SqlClientOptions = {}): Promise<SqlClient> {
  rejectUnknownOptions(options, CLIENT_OPTIONS, 'openSqlClient()');
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) {
    const { openPgClient } = await import('./pg-client.js');
    return openPgClient(url, options);
  }
  if (url.startsWith('pglite:')) {
    const { openPgliteClient } = await import('./pglite-client.js');
    return openPgliteClient(pgliteLocation(url));
  }
  throw invalidOption(
    'openSqlClient()',
    'url',
    'a postgres://, postgresql:// or pglite: URL',
    `the scheme "${url.split(':')[0] ?? ''}:" is not supported`,
  );
}
