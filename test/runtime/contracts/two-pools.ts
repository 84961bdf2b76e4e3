// A fresh, migrated PostgreSQL database for one test file, reached through two pools: what two processes of
// one service see. Store suites run their race contracts across both.
import { afterAll, beforeAll } from 'vitest';
import { migrate, openSqlClient, type SqlClient } from '../../../runtime/stores/sql/index.js';
import { createDatabase, type TestDatabase } from '../../backends.js';

export interface TwoPools {
  /** The database's URL. */
  readonly url: string;
  readonly client: SqlClient;
  /** A second pool on the same database: another process. */
  readonly otherProcess: SqlClient;
}

/** Registers the file's set-up and clean-up; the fields are filled once beforeAll ran. */
export function freshDatabaseWithTwoPools(): TwoPools {
  const pools = {} as { url: string; client: SqlClient; otherProcess: SqlClient };
  let database: TestDatabase | undefined;
  beforeAll(async () => {
    database = await createDatabase();
    pools.url = database.url;
    pools.client = await openSqlClient(database.url);
    pools.otherProcess = await openSqlClient(database.url);
    await migrate(pools.client);
  });
  afterAll(async () => {
    await pools.client?.close();
    await pools.otherProcess?.close();
    await database?.drop();
  });
  return pools;
}
