// The SessionStore contract as a reusable suite: every backend (memory now;
// SQL and Redis with the stores issue) runs it. `makeStore` gives a fresh, empty store per test; every call
// passes its `now`, so no fake timers are needed.
import { describe, expect, it } from 'vitest';
import type { SessionRecord, SessionStore } from 'svckit';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

function session(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { userId, amr: ['pwd'], createdAt: T0, expiresAt: T0 + HOUR, ...overrides };
}

export function sessionStoreContract(
  name: string,
  makeStore: () => Promise<SessionStore> | SessionStore,
): void {
  describe(`SessionStore contract: ${name}`, () => {
    it('answers the stored record until it expires, then undefined', async () => {
      const store = await makeStore();
      const record = session('u1', { amr: ['pwd', 'mfa'] });
      await store.create('s1', record);
      expect(await store.get('s1', T0)).toEqual(record);
      expect(await store.get('s1', T0 + HOUR - 1)).toEqual(record);
      expect(await store.get('s1', T0 + HOUR)).toBeUndefined();
      expect(await store.get('unknown', T0)).toBeUndefined();
    });

    it('delete ends one session and ignores an unknown id', async () => {
      const store = await makeStore();
      await store.create('s1', session('u1'));
      await store.create('s2', session('u1'));
      await store.delete('s1');
      expect(await store.get('s1', T0)).toBeUndefined();
      expect(await store.get('s2', T0)).toEqual(session('u1'));
      await store.delete('s1');
      await store.delete('never-seen');
    });

    it('deleteByUser ends every session of that user only, and says how many', async () => {
      const store = await makeStore();
      await store.create('a1', session('alice'));
      await store.create('a2', session('alice', { amr: ['fed', 'google'] }));
      await store.create('b1', session('bob'));
      expect(await store.deleteByUser('alice')).toBe(2);
      expect(await store.get('a1', T0)).toBeUndefined();
      expect(await store.get('a2', T0)).toBeUndefined();
      expect(await store.get('b1', T0)).toEqual(session('bob'));
      expect(await store.deleteByUser('alice')).toBe(0);
      expect(await store.deleteByUser('nobody')).toBe(0);
      // The user can sign in again afterwards.
      await store.create('a3', session('alice'));
      expect(await store.get('a3', T0)).toEqual(session('alice'));
    });

    it('does not count a session already deleted', async () => {
      const store = await makeStore();
      await store.create('a1', session('alice'));
      await store.create('a2', session('alice'));
      await store.delete('a1');
      expect(await store.deleteByUser('alice')).toBe(1);
    });
  });
}
