// The RefreshTokenStore contract as a reusable suite: every
// backend (memory now; SQL and Redis with the stores issue) runs it. `makeStore` gives a fresh, empty store per
// test; every call passes its `now`, so no fake timers are needed.
import { describe, expect, it } from 'vitest';
import type { RefreshTokenRecord, RefreshTokenStore } from 'svckit';

const T0 = 1_700_000_000_000;
const DAY = 86_400_000;

function token(
  userId: string,
  familyId: string,
  overrides: Partial<RefreshTokenRecord> = {},
): RefreshTokenRecord {
  return { userId, familyId, amr: ['pwd'], createdAt: T0, expiresAt: T0 + DAY, ...overrides };
}

export function refreshTokenStoreContract(
  name: string,
  makeStore: () => Promise<RefreshTokenStore> | RefreshTokenStore,
): void {
  describe(`RefreshTokenStore contract: ${name}`, () => {
    it('answers the stored record until it expires, then undefined', async () => {
      const store = await makeStore();
      const record = token('u1', 'f1', { amr: ['pwd', 'mfa'] });
      await store.create('t1', record);
      expect(await store.get('t1', T0)).toEqual(record);
      expect(await store.get('t1', T0 + DAY - 1)).toEqual(record);
      expect(await store.get('t1', T0 + DAY)).toBeUndefined();
      expect(await store.get('unknown', T0)).toBeUndefined();
    });

    it('markUsed succeeds once, and get still answers the used record with usedAt', async () => {
      const store = await makeStore();
      await store.create('t1', token('u1', 'f1'));
      expect(await store.markUsed('t1', T0 + 5)).toBe(true);
      expect(await store.markUsed('t1', T0 + 6)).toBe(false);
      expect(await store.get('t1', T0 + 7)).toEqual({ ...token('u1', 'f1'), usedAt: T0 + 5 });
      expect(await store.markUsed('unknown', T0)).toBe(false);
    });

    it('of 100 concurrent markUsed calls for one token, exactly one returns true', async () => {
      const store = await makeStore();
      await store.create('t1', token('u1', 'f1'));
      const results = await Promise.all(Array.from({ length: 100 }, () => store.markUsed('t1', T0 + 1)));
      expect(results.filter((won) => won)).toHaveLength(1);
      expect((await store.get('t1', T0 + 2))?.usedAt).toBe(T0 + 1);
    });

    it('markUsed refuses an expired token', async () => {
      const store = await makeStore();
      await store.create('t1', token('u1', 'f1'));
      expect(await store.markUsed('t1', T0 + DAY)).toBe(false);
    });

    it('revokeFamily marks every record of the family, used ones included, and get still answers them', async () => {
      const store = await makeStore();
      await store.create('old', token('u1', 'f1'));
      await store.markUsed('old', T0 + 1);
      await store.create('current', token('u1', 'f1', { createdAt: T0 + 1, expiresAt: T0 + 1 + DAY }));
      await store.create('other-family', token('u1', 'f2'));
      await store.revokeFamily('f1', T0 + 10, T0 + 10 + DAY);
      expect(await store.get('old', T0 + 11)).toEqual({
        ...token('u1', 'f1'),
        usedAt: T0 + 1,
        revokedAt: T0 + 10,
      });
      expect((await store.get('current', T0 + 11))?.revokedAt).toBe(T0 + 10);
      expect(await store.markUsed('current', T0 + 11)).toBe(false);
      expect((await store.get('other-family', T0 + 11))?.revokedAt).toBeUndefined();
      expect(await store.markUsed('other-family', T0 + 11)).toBe(true);
      // Revoked records stay recognisable until they expire, then read as unknown.
      expect(await store.get('old', T0 + DAY)).toBeUndefined();
      // A family with no stored record is no error.
      await store.revokeFamily('never-seen', T0, T0 + DAY);
    });

    it('a token created in a revoked family before the mark ends is revoked from the start', async () => {
      const store = await makeStore();
      await store.create('t1', token('u1', 'f1'));
      await store.revokeFamily('f1', T0 + 10, T0 + 10 + DAY);
      await store.create('racing', token('u1', 'f1', { createdAt: T0 + 20, expiresAt: T0 + 20 + DAY }));
      expect((await store.get('racing', T0 + 21))?.revokedAt).toBeDefined();
      expect(await store.markUsed('racing', T0 + 21)).toBe(false);
    });

    it("the family mark lasts at least as long as the family's longest-lived record", async () => {
      const store = await makeStore();
      await store.create('long-lived', token('u1', 'f1', { expiresAt: T0 + 10 * DAY }));
      // `until` shorter than the record's life: the mark still covers it.
      await store.revokeFamily('f1', T0 + 10, T0 + 100);
      const later = T0 + 5 * DAY;
      await store.create('racing', token('u1', 'f1', { createdAt: later, expiresAt: later + DAY }));
      expect(await store.markUsed('racing', later + 1)).toBe(false);
      expect((await store.get('racing', later + 1))?.revokedAt).toBeDefined();
    });

    it('a family revoked before any of its tokens is stored still revokes tokens created in it', async () => {
      const store = await makeStore();
      await store.revokeFamily('f1', T0, T0 + DAY);
      await store.create('t1', token('u1', 'f1', { createdAt: T0 + 1 }));
      expect(await store.markUsed('t1', T0 + 2)).toBe(false);
    });

    it('revokeUser marks every record of that user only, and get still answers them', async () => {
      const store = await makeStore();
      await store.create('a1', token('alice', 'fa1'));
      await store.create('a2', token('alice', 'fa2'));
      await store.markUsed('a2', T0 + 1);
      await store.create('b1', token('bob', 'fb1'));
      await store.revokeUser('alice', T0 + 10);
      expect(await store.get('a1', T0 + 11)).toEqual({ ...token('alice', 'fa1'), revokedAt: T0 + 10 });
      expect(await store.get('a2', T0 + 11)).toEqual({
        ...token('alice', 'fa2'),
        usedAt: T0 + 1,
        revokedAt: T0 + 10,
      });
      expect(await store.markUsed('a1', T0 + 11)).toBe(false);
      expect((await store.get('b1', T0 + 11))?.revokedAt).toBeUndefined();
      expect(await store.markUsed('b1', T0 + 11)).toBe(true);
      expect(await store.get('a1', T0 + DAY)).toBeUndefined();
      await store.revokeUser('nobody', T0);
    });

    it('revokeUser also revokes tokens created afterwards but dated before it (a rotation racing a reset)', async () => {
      const store = await makeStore();
      await store.revokeUser('alice', T0 + 10);
      await store.create('racing', token('alice', 'f1', { createdAt: T0 + 5 }));
      expect((await store.get('racing', T0 + 11))?.revokedAt).toBeDefined();
      expect(await store.markUsed('racing', T0 + 11)).toBe(false);
      // Tokens of a sign-in that began after the reset, and other users' tokens, are untouched.
      await store.create('after', token('alice', 'f2', { createdAt: T0 + 11 }));
      await store.create('bob', token('bob', 'f3', { createdAt: T0 + 5 }));
      expect(await store.markUsed('after', T0 + 12)).toBe(true);
      expect(await store.markUsed('bob', T0 + 12)).toBe(true);
    });
  });
}
