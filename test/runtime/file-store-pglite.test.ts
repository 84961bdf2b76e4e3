// The SQL file metadata store on PGlite (embedded PostgreSQL): the whole FileStore contract, races included,
// the sweeper on reservations, and the timestamps it refuses. One in-memory PGlite serves the whole file (it
// takes ~2 s to start); each test works in tenants of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  migrate,
  openSqlClient,
  SqlFileStore,
  sqlStores,
  type SqlClient,
} from '../../runtime/stores/sql/index.js';
import { fileStoreContract, sqlFileStoreContract } from './contracts/file-store.js';

let client: SqlClient;

beforeAll(async () => {
  client = await openSqlClient('pglite:memory');
  await migrate(client);
});

afterAll(async () => {
  await client?.close();
});

fileStoreContract('SqlFileStore (PGlite)', () => new SqlFileStore(client));

sqlFileStoreContract('SqlFileStore (PGlite)', () => ({ db: client, store: new SqlFileStore(client) }));

describe('sqlStores (PGlite)', () => {
  it('includes the file store', () => {
    expect(sqlStores(client).files).toBeInstanceOf(SqlFileStore);
  });
});
