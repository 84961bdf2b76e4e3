// The OneTimeTokenStore contract (verification and reset tokens) as a
// reusable suite: every backend (memory now; SQL and Redis with the stores issue) runs it. `makeStore` gives a
// fresh, empty store per test; every call passes its `now`, so no fake timers are needed.
import { describe, expect, it } from 'vitest';
import type { OneTimeTokenPurpose, OneTimeTokenRecord, OneTimeTokenStore } from 'svckit';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

function oneTimeToken(
  userId: string,
  purpose: OneTimeTokenPurpose,
  overrides: Partial<OneTimeTokenRecord> = {},
): OneTimeTokenRecord {
  return {
    purpose,
    userId,
    email: `${userId}@example.com`,
    createdAt: T0,
    expiresAt: T0 + HOUR,
    ...overrides,
  };
}

export function oneTimeTokenStoreContract(
  name: string,
  makeStore: () => Promise<OneTimeTokenStore> | OneTimeTokenStore,
): void {
  describe(`OneTimeTokenStore contract: ${name}`, () => {
    it('consume answers the record once, marked used, then undefined', async () => {
      const store = await makeStore();
      const record = oneTimeToken('alice', 'verify-email');
      await store.create('t1', record);
      expect(await store.consume('t1', 'verify-email', T0 + 5)).toEqual({ ...record, usedAt: T0 + 5 });
      expect(await store.consume('t1', 'verify-email', T0 + 6)).toBeUndefined();
      expect(await store.consume('unknown', 'verify-email', T0)).toBeUndefined();
    });

    it('of 100 concurrent consume calls for one token, exactly one gets the record', async () => {
      const store = await makeStore();
      await store.create('t1', oneTimeToken('alice', 'reset-password'));
      const results = await Promise.all(
        Array.from({ length: 100 }, () => store.consume('t1', 'reset-password', T0 + 1)),
      );
      const winners = results.filter((record) => record !== undefined);
      expect(winners).toEqual([{ ...oneTimeToken('alice', 'reset-password'), usedAt: T0 + 1 }]);
    });

    it('refuses the wrong purpose without spending the token', async () => {
      const store = await makeStore();
      await store.create('t1', oneTimeToken('alice', 'reset-password'));
      expect(await store.consume('t1', 'verify-email', T0 + 1)).toBeUndefined();
      expect((await store.consume('t1', 'reset-password', T0 + 2))?.usedAt).toBe(T0 + 2);
    });

    it('refuses an expired token', async () => {
      const store = await makeStore();
      await store.create('t1', oneTimeToken('alice', 'verify-email'));
      expect(await store.consume('t1', 'verify-email', T0 + HOUR)).toBeUndefined();
      await store.create('t2', oneTimeToken('alice', 'verify-email'));
      expect(await store.consume('t2', 'verify-email', T0 + HOUR - 1)).toBeDefined();
    });

    it("deleteByUser forgets the user's unused tokens for that purpose only", async () => {
      const store = await makeStore();
      await store.create('alice-reset-1', oneTimeToken('alice', 'reset-password'));
      await store.create('alice-reset-2', oneTimeToken('alice', 'reset-password', { createdAt: T0 + 1 }));
      await store.create('alice-verify', oneTimeToken('alice', 'verify-email'));
      await store.create('bob-reset', oneTimeToken('bob', 'reset-password'));
      await store.deleteByUser('alice', 'reset-password');
      expect(await store.consume('alice-reset-1', 'reset-password', T0 + 2)).toBeUndefined();
      expect(await store.consume('alice-reset-2', 'reset-password', T0 + 2)).toBeUndefined();
      expect(await store.consume('alice-verify', 'verify-email', T0 + 2)).toBeDefined();
      expect(await store.consume('bob-reset', 'reset-password', T0 + 2)).toBeDefined();
      await store.deleteByUser('nobody', 'verify-email');
    });
  });
}
