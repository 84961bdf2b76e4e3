// The SQL MFA store on a real PostgreSQL (DATABASE_URL): the whole MfaStore contract on one pool, then its
// races again from two pools (two processes) on the same database, and where openStores keeps the records.
// The file works in a database of its own, dropped at the end.
import { describe, expect, it } from 'vitest';
import { openStores } from 'svckit';
import { SqlMfaStore } from '../../runtime/stores/sql/index.js';
import { emptyMfaTable, mfaRaceContract, mfaStoreContract } from './contracts/mfa-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const pools = freshDatabaseWithTwoPools();

mfaStoreContract('SqlMfaStore (PostgreSQL)', async () => {
  await emptyMfaTable(pools.client);
  return new SqlMfaStore(pools.client);
});

mfaRaceContract('SqlMfaStore (PostgreSQL, two pools)', async () => {
  await emptyMfaTable(pools.client);
  return [new SqlMfaStore(pools.client), new SqlMfaStore(pools.otherProcess)];
});

describe('svc_mfa (PostgreSQL)', () => {
  it('refuses an unknown state and a half-activated row, whatever writes it', async () => {
    await emptyMfaTable(pools.client);
    const insert = (state: string, lastStep: number | null, enabledAt: number | null) =>
      pools.client
        .query(
          `INSERT INTO svc_mfa (user_id, secret, state, last_step, created_at, enabled_at)
           VALUES ('u', 's', $1, $2, 1, $3)`,
          [state, lastStep, enabledAt],
        )
        .then(
          () => 'inserted',
          (error: { code?: string }) => error.code,
        );
    expect(await insert('disabled', null, null)).toBe('23514');
    expect(await insert('pending', 5, null)).toBe('23514');
    expect(await insert('enabled', null, 1)).toBe('23514');
    expect(await insert('enabled', 5, 1)).toBe('inserted');
  });
});

describe('MFA records in openStores (PostgreSQL)', () => {
  it('keeps them in the database, with Redis too (durable data)', async () => {
    await emptyMfaTable(pools.client);
    const stores = await openStores(
      { database: pools.url, redis: REDIS_URL },
      { appMigrations: false, redisPrefix: `svc-mfa-${Date.now()}:`, sweepIntervalMs: 0 },
    );
    try {
      expect(stores.mfa).toBeInstanceOf(SqlMfaStore);
      expect(await stores.mfa!.enroll('alice', 'sealed', 1)).toBe(true);
      expect((await new SqlMfaStore(pools.otherProcess).get('alice'))?.state).toBe('pending');
    } finally {
      await stores.close();
    }
  });

  it('leaves them to the auth module with stores.database: memory', async () => {
    const stores = await openStores({ database: 'memory' });
    expect(stores.mfa).toBeUndefined();
    await stores.close();
  });
});
