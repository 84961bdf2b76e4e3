// The PostgreSQL side of SqlClient: a node-postgres pool. Connections open on demand, so a client made while
// the server is down answers STORE_UNAVAILABLE and recovers by itself once the server is back.
import type { Pool, PoolClient, QueryResult, QueryResultRow } from 'pg';
import type { SqlClient, SqlClientOptions, SqlQueryable, SqlResult } from './client.js';
import { classifyPgError, isStoreUnavailable } from './unavailable.js';

const INT8_OID = 20;

/** node-postgres answers many results for a multi-statement text; the caller gets the last. */
function lastResult<Row>(result: QueryResult | QueryResult[]): SqlResult<Row> {
  const last = Array.isArray(result) ? result[result.length - 1] : result;
  const rows = (last?.rows ?? []) as Row[];
  return { rows, rowCount: last?.rowCount ?? rows.length };
}

async function run<Row>(
  target: Pool | PoolClient,
  text: string,
  params: readonly unknown[] | undefined,
): Promise<SqlResult<Row>> {
  try {
    const values = params === undefined ? undefined : [...params];
    const result = (await target.query<QueryResultRow>(text, values)) as QueryResult | QueryResult[];
    return lastResult<Row>(result);
  } catch (error) {
    throw classifyPgError(error);
  }
}

export async function openPgClient(url: string, options: SqlClientOptions): Promise<SqlClient> {
  const pg = (await import('pg')).default;
  const parseInt8 = (value: string) => Number(value);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 3000,
    query_timeout: options.queryTimeoutMillis ?? 5000,
    // Epoch milliseconds and counters fit a double; this pool alone parses BIGINT as numbers (pg's global
    // parsers, which the app may rely on, are left alone).
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8_OID && format !== 'binary'
          ? parseInt8
          : pg.types.getTypeParser(oid, format ?? 'text')) as typeof pg.types.getTypeParser,
    },
  });
  // An idle connection the server drops emits 'error' on the pool; unheard, it would crash the process.
  const onIdleError = options.onIdleError ?? (() => undefined);
  pool.on('error', (error) => onIdleError(error));
  let ending: Promise<void> | undefined;

  return {
    kind: 'postgres',
    query: (text, params) => run(pool, text, params),
    async transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      let connection: PoolClient;
      try {
        connection = await pool.connect();
      } catch (error) {
        throw classifyPgError(error);
      }
      const tx: SqlQueryable = { query: (text, params) => run(connection, text, params) };
      try {
        await tx.query('BEGIN');
        const result = await fn(tx);
        await tx.query('COMMIT');
        connection.release();
        return result;
      } catch (error) {
        if (isStoreUnavailable(error)) {
          // The connection lost the server (or a query on it still runs): destroy it rather than pool it
          // again; the server rolls the transaction back when the connection goes.
          connection.release(asError(error));
        } else {
          await tx.query('ROLLBACK').then(
            () => connection.release(),
            (rollbackError: unknown) => connection.release(asError(rollbackError)),
          );
        }
        throw error;
      }
    },
    async ping(): Promise<void> {
      await run(pool, 'SELECT 1', undefined);
    },
    // Once: pg's pool throws when ended twice; a second call waits for the first.
    close(): Promise<void> {
      ending ??= pool.end();
      return ending;
    },
  };
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
