// The SQL account-link store on PGlite (embedded PostgreSQL): the whole AccountLinkStore contract, races
// included. One in-memory PGlite serves the whole file (it takes ~2 s to start); each test gets an empty table.
import { afterAll, beforeAll } from 'vitest';
import {
  migrate,
  openSqlClient,
  SqlAccountLinkStore,
  type SqlClient,
} from '../../runtime/stores/sql/index.js';
import { accountLinkStoreContract, emptyAccountLinkTable } from './contracts/account-link-store.js';

let client: SqlClient;

beforeAll(async () => {
  client = await openSqlClient('pglite:memory');
  await migrate(client);
});

afterAll(async () => {
  await client?.close();
});

accountLinkStoreContract('SqlAccountLinkStore (PGlite)', async () => {
  await emptyAccountLinkTable(client);
  return new SqlAccountLinkStore(client);
});
