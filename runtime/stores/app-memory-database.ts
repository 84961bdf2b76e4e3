// With `stores.database: memory`, svckit's own stores live in memory maps, but an application with migrations
// still needs its tables: they get an in-memory PGlite of their own. It is made on the first query, not at
// start: creating one costs a PostgreSQL initdb (a few seconds of CPU), which an app that never touches its
// tables in this run (a test of something else, a short-lived command) should not pay. The migrations run
// then too; one that fails fails that query and every later one.
import { migrate } from './sql/migrate.js';
import { openSqlClient, type SqlClient } from './sql/client.js';
import type { AppMigration } from './sql/app-migrations.js';

/** The stores' SQL client as the application sees it: every query method, but closed by `stores.close()`. */
export type SharedSqlClient = Omit<SqlClient, 'close'>;

export interface AppMemoryDatabase {
  client: SharedSqlClient;
  /** Closes the database if it was made; later queries reject. */
  close(): Promise<void>;
}

export function appMemoryDatabase(appMigrations: readonly AppMigration[]): AppMemoryDatabase {
  let opening: Promise<SqlClient> | undefined;
  let closed = false;
  const ready = (): Promise<SqlClient> => {
    if (closed) return Promise.reject(new Error('The stores are closed: stores.sql no longer answers.'));
    opening ??= (async () => {
      const client = await openSqlClient('pglite:memory');
      try {
        await migrate(client, { migrations: [], appMigrations });
      } catch (error) {
        await client.close();
        throw error;
      }
      return client;
    })();
    return opening;
  };
  return {
    client: {
      kind: 'pglite',
      query: async (text, params) => (await ready()).query(text, params),
      transaction: async (fn) => (await ready()).transaction(fn),
      ping: async () => (await ready()).ping(),
    },
    async close() {
      closed = true;
      const client = await opening?.catch(() => undefined);
      await client?.close();
    },
  };
}
