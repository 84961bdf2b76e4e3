// The embedded side of SqlClient: PGlite, PostgreSQL compiled to WebAssembly, in this process. One connection:
// PGlite runs queries one at a time and a transaction excludes every other query until it ends, so the
// compare-and-sets written for PostgreSQL's concurrency hold here trivially.
import type { PGlite, Results, Transaction } from '@electric-sql/pglite';
import type { SqlClient, SqlQueryable, SqlResult } from './client.js';
import { lockDirectory, type DirLock } from './pglite-lock.js';

type Runner = Pick<Transaction, 'query' | 'exec'>;

function toResult<Row>(result: Results | undefined): SqlResult<Row> {
  const rows = (result?.rows ?? []) as Row[];
  return { rows, rowCount: result?.rowCount ?? result?.affectedRows ?? rows.length };
}

async function run<Row>(
  target: Runner,
  text: string,
  params: readonly unknown[] | undefined,
): Promise<SqlResult<Row>> {
  // PGlite's query() prepares one statement; exec() takes several (migrations) but no parameters.
  if (params === undefined || params.length === 0) {
    const results = await target.exec(text);
    return toResult<Row>(results[results.length - 1]);
  }
  return toResult<Row>(await target.query(text, [...params]));
}

/** `location`: an absolute directory (locked for this process) or `'memory'`. */
export async function openPgliteClient(location: string): Promise<SqlClient> {
  const lock: DirLock | undefined = location === 'memory' ? undefined : lockDirectory(location);
  let db: PGlite;
  try {
    const { PGlite, types } = await import('@electric-sql/pglite');
    // As pg-client.ts: BIGINT as a number, whatever its size (PGlite answers a bigint above 2^53).
    db = await PGlite.create(location === 'memory' ? undefined : location, {
      parsers: { [types.INT8]: Number },
    });
  } catch (error) {
    lock?.release();
    throw error;
  }
  let closed = false;

  return {
    kind: 'pglite',
    query: (text, params) => run(db, text, params),
    transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      return db.transaction((tx) => fn({ query: (text, params) => run(tx, text, params) }));
    },
    async ping(): Promise<void> {
      await db.query('SELECT 1');
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      try {
        await db.close();
      } finally {
        lock?.release();
      }
    },
  };
}
