// The SQL file metadata store on a real PostgreSQL (DATABASE_URL): the whole FileStore contract on one pool,
// then its races again from two pools (two processes) on the same database, also under a REPEATABLE READ
// default, the sweeper on reservations, and openStores handing it out. The file works in a database of its
// own, dropped at the end; each test works in tenants of its own.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStores } from '../../runtime/stores/open.js';
import { openSqlClient, SqlFileStore, type SqlClient } from '../../runtime/stores/sql/index.js';
import { fileStoreContract, fileStoreRaceContract, sqlFileStoreContract } from './contracts/file-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';

const pools = freshDatabaseWithTwoPools();

fileStoreContract('SqlFileStore (PostgreSQL)', () => new SqlFileStore(pools.client));

fileStoreRaceContract('SqlFileStore (PostgreSQL, two pools)', async () => [
  new SqlFileStore(pools.client),
  new SqlFileStore(pools.otherProcess),
]);

// The sum after the tenant's lock must still see what the previous reservation committed while this one
// waited (a reservation sets READ COMMITTED for its transaction).
describe('a database defaulting to REPEATABLE READ', () => {
  const repeatable: SqlClient[] = [];
  beforeAll(async () => {
    const name = new URL(pools.url).pathname.slice(1);
    await pools.client.query(
      `ALTER DATABASE "${name}" SET default_transaction_isolation = 'repeatable read'`,
    );
    repeatable.push(await openSqlClient(pools.url), await openSqlClient(pools.url));
  });
  afterAll(async () => {
    for (const client of repeatable) await client.close();
  });
  fileStoreRaceContract('SqlFileStore (PostgreSQL, two pools, REPEATABLE READ default)', async () => [
    new SqlFileStore(repeatable[0]!),
    new SqlFileStore(repeatable[1]!),
  ]);
});

sqlFileStoreContract('SqlFileStore (PostgreSQL)', () => ({
  db: pools.client,
  store: new SqlFileStore(pools.client),
}));

describe('openStores (PostgreSQL)', () => {
  it('hands out the SQL file store on the database, and none for a memory database', async () => {
    const stores = await openStores(
      { database: pools.url },
      { migrate: true, appMigrations: false, sweepIntervalMs: 0 },
    );
    try {
      expect(stores.files).toBeInstanceOf(SqlFileStore);
      const record = {
        id: 'f1',
        name: 'a.txt',
        contentType: 'text/plain',
        size: 3,
        createdAt: '2026-11-26T14:00:00.000Z',
        path: 'open-stores/f1',
        checksum: '0'.repeat(64),
        tenantId: 'open-stores',
      };
      await stores.files!.commit(record);
      // Another process on the same database sees it.
      expect(await new SqlFileStore(pools.otherProcess).get('open-stores', 'f1')).toStrictEqual(record);
    } finally {
      await stores.close();
    }
    const memory = await openStores({ database: 'memory' }, { appMigrations: false });
    try {
      expect(memory.files).toBeUndefined();
    } finally {
      await memory.close();
    }
  });
});
