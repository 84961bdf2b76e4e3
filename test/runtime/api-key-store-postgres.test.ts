// The SQL API-key store on a real PostgreSQL (DATABASE_URL): the whole ApiKeyStore contract on one pool, then
// its races again from two pools (two processes) on the same database, what the table itself refuses, and the
// sweeper's month of grace for expired keys. The file works in a database of its own, dropped at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../runtime/stores/sql/client.js';
import { openSqlClient, SqlApiKeyStore } from '../../runtime/stores/sql/index.js';
import {
  apiKeyRaceContract,
  apiKeyStoreContract,
  apiKeySweepContract,
  emptyApiKeyTable,
} from './contracts/api-key-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';

const pools = freshDatabaseWithTwoPools();

apiKeyStoreContract('SqlApiKeyStore (PostgreSQL)', async () => {
  await emptyApiKeyTable(pools.client);
  return new SqlApiKeyStore(pools.client);
});

apiKeyRaceContract('SqlApiKeyStore (PostgreSQL, two pools)', async () => {
  await emptyApiKeyTable(pools.client);
  return [new SqlApiKeyStore(pools.client), new SqlApiKeyStore(pools.otherProcess)];
});

// A database whose default isolation is REPEATABLE READ: the count after the owner's lock must still see what
// the previous add committed while this one waited (the add sets READ COMMITTED for its transaction).
describe('a database defaulting to REPEATABLE READ', () => {
  const repeatable: SqlClient[] = [];
  beforeAll(async () => {
    const name = new URL(pools.url).pathname.slice(1);
    await pools.client.query(
      `ALTER DATABASE "${name}" SET default_transaction_isolation = 'repeatable read'`,
    );
    // Sessions opened from now on take the new default; the file's two pools keep theirs.
    repeatable.push(await openSqlClient(pools.url), await openSqlClient(pools.url));
    const { rows } = await repeatable[0]!.query<{ default_transaction_isolation: string }>(
      'SHOW default_transaction_isolation',
    );
    expect(rows[0]!.default_transaction_isolation).toBe('repeatable read');
  });
  afterAll(async () => {
    for (const client of repeatable) await client.close();
  });
  apiKeyRaceContract('SqlApiKeyStore (PostgreSQL, two pools, REPEATABLE READ default)', async () => {
    await emptyApiKeyTable(pools.client);
    return [new SqlApiKeyStore(repeatable[0]!), new SqlApiKeyStore(repeatable[1]!)];
  });
});

apiKeySweepContract('SqlApiKeyStore (PostgreSQL)', async () => {
  await emptyApiKeyTable(pools.client);
  return { db: pools.client, store: new SqlApiKeyStore(pools.client) };
});

/** The SQLSTATE of a failed statement, or 'ok'. */
function outcome(running: Promise<unknown>): Promise<string | undefined> {
  return running.then(
    () => 'ok',
    (error: { code?: string }) => error.code,
  );
}

describe('svc_api_keys (PostgreSQL)', () => {
  it('holds a hash once and never a row without one, whatever writes it', async () => {
    await emptyApiKeyTable(pools.client);
    const insert = (id: string, hash: string | null) =>
      outcome(
        pools.client.query(
          `INSERT INTO svc_api_keys (id, hash, name, start, last4, scopes, created_at)
           VALUES ($1, $2, '', 'mk_live_AbCd', 'wxyz', '{*}', 1)`,
          [id, hash],
        ),
      );
    expect(await insert('key-1', 'h')).toBe('ok');
    expect(await insert('key-2', 'h')).toBe('23505');
    expect(await insert('key-3', null)).toBe('23502');
    // Hashes differing only in case are two keys, whatever the database's locale.
    expect(await insert('key-4', 'H')).toBe('ok');
  });
});
