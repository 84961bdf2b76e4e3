// The SQL membership store on a real PostgreSQL (DATABASE_URL): the whole MembershipStore contract on one pool,
// then its races again from two pools (two processes) on the same database, and where openStores keeps
// memberships. The file works in a database of its own, dropped at the end. A race where one side must land
// first holds that side's transaction before its COMMIT until the other waits on its lock.
import { describe, expect, it } from 'vitest';
import { openStores } from 'svckit';
import type { CachedMembershipStore } from '../../runtime/stores/cache/cached-memberships.js';
import { SqlMembershipStore, type SqlClient } from '../../runtime/stores/sql/index.js';
import {
  emptyMembershipTables,
  holdingClient,
  membershipRaceContract,
  membershipStoreContract,
  type RacingStores,
} from './contracts/membership-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const pools = freshDatabaseWithTwoPools();

/** Whether a session of this file's database waits on a lock. */
async function lockWaiters(): Promise<boolean> {
  const { rows } = await pools.client.query<{ waiting: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM pg_stat_activity
      WHERE datname = current_database() AND wait_event_type = 'Lock') AS waiting`,
  );
  return rows[0]!.waiting;
}

/** The first store on `first`, its transactions holdable; the second on `second`. */
async function racing(first: SqlClient, second: SqlClient): Promise<RacingStores> {
  await emptyMembershipTables(pools.client);
  const holding = holdingClient(first, lockWaiters);
  return {
    stores: [new SqlMembershipStore(holding.client), new SqlMembershipStore(second)],
    holdFirst: holding.hold,
  };
}

membershipStoreContract(
  'SqlMembershipStore (PostgreSQL)',
  async (clock) => {
    await emptyMembershipTables(pools.client);
    return new SqlMembershipStore(pools.client, { now: clock.now });
  },
  () => racing(pools.client, pools.client),
);

membershipRaceContract('SqlMembershipStore (PostgreSQL, two pools)', () =>
  racing(pools.client, pools.otherProcess),
);

describe('memberships in openStores (PostgreSQL)', () => {
  it('keeps them in the database, with Redis too (durable data), and refuses an unknown store option', async () => {
    const stores = await openStores(
      { database: pools.url, redis: REDIS_URL },
      { appMigrations: false, redisPrefix: `svc-memberships-${Date.now()}:`, sweepIntervalMs: 0 },
    );
    try {
      expect((stores.memberships as CachedMembershipStore).inner).toBeInstanceOf(SqlMembershipStore);
      const tenant = await stores.memberships!.createTenant({
        name: 'Acme',
        ownerId: 'alice',
        role: 'owner',
      });
      expect(await new SqlMembershipStore(pools.otherProcess).roleOf(tenant.id, 'alice')).toBe('owner');
    } finally {
      await stores.close();
    }
    expect(() => new SqlMembershipStore(pools.client, { clock: Date.now } as never)).toThrow(
      /SqlMembershipStore: unknown option "clock"/,
    );
  });

  it('leaves them to the tenancy module with stores.database: memory', async () => {
    const stores = await openStores({ database: 'memory' });
    expect(stores.memberships).toBeUndefined();
    await stores.close();
  });
});
