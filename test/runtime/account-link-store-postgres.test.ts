// The SQL account-link store on a real PostgreSQL (DATABASE_URL): the whole AccountLinkStore contract on one
// pool, its races again from two pools (two processes) on the same database, also under a REPEATABLE READ
// default, and what the table itself refuses. The file works in a database of its own, dropped at the end.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SqlClient } from '../../runtime/stores/sql/client.js';
import { openSqlClient, SqlAccountLinkStore } from '../../runtime/stores/sql/index.js';
import { accountLinkStoreContract, emptyAccountLinkTable } from './contracts/account-link-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';

const pools = freshDatabaseWithTwoPools();

accountLinkStoreContract(
  'SqlAccountLinkStore (PostgreSQL, two pools)',
  async () => {
    await emptyAccountLinkTable(pools.client);
    return new SqlAccountLinkStore(pools.client);
  },
  async () => {
    await emptyAccountLinkTable(pools.client);
    return [new SqlAccountLinkStore(pools.client), new SqlAccountLinkStore(pools.otherProcess)];
  },
);

// A database whose default isolation is REPEATABLE READ: the checks after the user's lock must still see what
// the previous change committed while this one waited (link and remove set READ COMMITTED for their own).
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
  accountLinkStoreContract(
    'SqlAccountLinkStore (PostgreSQL, two pools, REPEATABLE READ default)',
    async () => {
      await emptyAccountLinkTable(pools.client);
      return new SqlAccountLinkStore(repeatable[0]!);
    },
    async () => {
      await emptyAccountLinkTable(pools.client);
      return [new SqlAccountLinkStore(repeatable[0]!), new SqlAccountLinkStore(repeatable[1]!)];
    },
  );
});

/** The SQLSTATE of a failed statement, or 'ok'. */
function outcome(running: Promise<unknown>): Promise<string | undefined> {
  return running.then(
    () => 'ok',
    (error: { code?: string }) => error.code,
  );
}

describe('svc_account_links (PostgreSQL)', () => {
  it('holds a pair once, whatever writes it, and pairs differing in case apart', async () => {
    await emptyAccountLinkTable(pools.client);
    const insert = (subject: string, userId: string) =>
      outcome(
        pools.client.query(
          `INSERT INTO svc_account_links (provider, subject, user_id, created_at) VALUES ('google', $1, $2, 1)`,
          [subject, userId],
        ),
      );
    expect(await insert('s', 'alice')).toBe('ok');
    expect(await insert('s', 'bob')).toBe('23505');
    expect(await insert('S', 'bob')).toBe('ok');
  });
});
