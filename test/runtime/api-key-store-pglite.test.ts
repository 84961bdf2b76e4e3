// The SQL API-key store on PGlite (embedded PostgreSQL): the whole ApiKeyStore contract, races included, and
// the sweeper's month of grace for expired keys. One in-memory PGlite serves the whole file (it takes ~2 s to
// start); each test gets an empty table.
import { afterAll, beforeAll } from 'vitest';
import { migrate, openSqlClient, SqlApiKeyStore, type SqlClient } from '../../runtime/stores/sql/index.js';
import { apiKeyStoreContract, apiKeySweepContract, emptyApiKeyTable } from './contracts/api-key-store.js';

let client: SqlClient;

beforeAll(async () => {
  client = await openSqlClient('pglite:memory');
  await migrate(client);
});

afterAll(async () => {
  await client?.close();
});

apiKeyStoreContract('SqlApiKeyStore (PGlite)', async () => {
  await emptyApiKeyTable(client);
  return new SqlApiKeyStore(client);
});

apiKeySweepContract('SqlApiKeyStore (PGlite)', async () => {
  await emptyApiKeyTable(client);
  return { db: client, store: new SqlApiKeyStore(client) };
});
