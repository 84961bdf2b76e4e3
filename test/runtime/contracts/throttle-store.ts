// The ThrottleStore contract as a reusable suite, run on every backend (memory, PGlite, PostgreSQL, Redis).
// `makeStore` gives a fresh, empty store per test. Stores take the time of each call from the caller, so a
// fake clock moved by hand stands in for the wall clock.
import { describe, expect, it } from 'vitest';
import { isLocked, type ThrottleReserved, type ThrottleStore } from 'svckit';
import { fakeClock } from './fake-clock.js';

const WINDOW = 60_000;
const T0 = 1_700_000_000_000;

export function throttleStoreContract(
  name: string,
  makeStore: () => Promise<ThrottleStore> | ThrottleStore,
): void {
  describe(`ThrottleStore contract: ${name}`, () => {
    const reserve = (store: ThrottleStore, key: string, now: number, maxAttempts = 3) =>
      store.reserve(key, { windowMs: WINDOW, maxAttempts, now });
    const refund = (store: ThrottleStore, key: string, windowEndsAt: number, now: number, maxAttempts = 3) =>
      store.refund(key, { windowEndsAt, maxAttempts, now });
    const granted = (results: ThrottleReserved[]) => results.filter((result) => result.granted).length;

    it('grants reservations up to the limit, the one reaching it locks the key for a window, then refuses', async () => {
      const store = await makeStore();
      const clock = fakeClock(T0);
      expect(await store.get('k', clock.now())).toBeUndefined();
      expect(await reserve(store, 'k', clock.now())).toEqual({
        granted: true,
        entry: { count: 1, windowEndsAt: T0 + WINDOW },
      });
      clock.advance(10);
      expect(await reserve(store, 'k', clock.now())).toEqual({
        granted: true,
        entry: { count: 2, windowEndsAt: T0 + WINDOW },
      });
      clock.advance(10);
      const lockedUntil = T0 + 20 + WINDOW;
      expect(await reserve(store, 'k', clock.now())).toEqual({
        granted: true,
        entry: { count: 3, windowEndsAt: T0 + WINDOW, lockedUntil },
      });
      clock.advance(10);
      expect(isLocked(await store.get('k', clock.now()), clock.now())).toBe(true);
      // Refused while locked, and a refusal counts nothing.
      for (let n = 0; n < 3; n++) {
        expect(await reserve(store, 'k', clock.now())).toEqual({
          granted: false,
          entry: { count: 3, windowEndsAt: T0 + WINDOW, lockedUntil },
        });
      }
      // Keys are independent.
      expect(await store.get('other', clock.now())).toBeUndefined();
      expect((await reserve(store, 'other', clock.now())).granted).toBe(true);
    });

    it('a lock outlives its window: refused until the lock ends, then a new window starts without it', async () => {
      const store = await makeStore();
      const clock = fakeClock(T0);
      await reserve(store, 'k', clock.now());
      clock.advance(WINDOW / 2);
      await reserve(store, 'k', clock.now());
      await reserve(store, 'k', clock.now()); // locked until T0 + 1.5 windows; the window ends at T0 + WINDOW
      clock.advance(WINDOW / 2); // the window is over, the lock is not
      expect((await reserve(store, 'k', clock.now())).granted).toBe(false);
      clock.advance(WINDOW / 2 - 1);
      expect((await reserve(store, 'k', clock.now())).granted).toBe(false);
      expect(isLocked(await store.get('k', clock.now()), clock.now())).toBe(true);
      clock.advance(1);
      expect(await store.get('k', clock.now())).toBeUndefined();
      expect(await reserve(store, 'k', clock.now())).toEqual({
        granted: true,
        entry: { count: 1, windowEndsAt: clock.now() + WINDOW },
      });
    });

    it('starts over once the window ended, without a lock', async () => {
      const store = await makeStore();
      const clock = fakeClock(T0);
      await reserve(store, 'k', clock.now());
      await reserve(store, 'k', clock.now() + 1);
      clock.advance(WINDOW);
      expect(await store.get('k', clock.now())).toBeUndefined();
      expect(await reserve(store, 'k', clock.now())).toEqual({
        granted: true,
        entry: { count: 1, windowEndsAt: T0 + 2 * WINDOW },
      });
      // maxAttempts 1: the first reservation locks at once.
      expect(await reserve(store, 'once', clock.now(), 1)).toEqual({
        granted: true,
        entry: { count: 1, windowEndsAt: clock.now() + WINDOW, lockedUntil: clock.now() + WINDOW },
      });
      expect((await reserve(store, 'once', clock.now() + 1, 1)).granted).toBe(false);
    });

    it('grants exactly maxAttempts of 50 concurrent reservations on one key (atomic reserve)', async () => {
      const store = await makeStore();
      const results = await Promise.all(Array.from({ length: 50 }, () => reserve(store, 'k', T0, 5)));
      expect(granted(results)).toBe(5);
      const entries = results.flatMap((result) => (result.granted ? [result.entry] : []));
      expect(entries.map((entry) => entry.count).sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5]);
      // The reservation that reached the limit locked the key; the others found it open.
      expect(entries.find((entry) => entry.count === 5)?.lockedUntil).toBe(T0 + WINDOW);
      expect(entries.filter((entry) => entry.lockedUntil !== undefined)).toHaveLength(1);
      expect(await store.get('k', T0)).toEqual({
        count: 5,
        windowEndsAt: T0 + WINDOW,
        lockedUntil: T0 + WINDOW,
      });
      // Later bursts, later in the window, are refused whole.
      const later = await Promise.all(Array.from({ length: 20 }, () => reserve(store, 'k', T0 + 1000, 5)));
      expect(granted(later)).toBe(0);
    });

    it('refund gives one reservation back and lifts a lock the count no longer reaches', async () => {
      const store = await makeStore();
      const windowEndsAt = T0 + WINDOW;
      for (let n = 0; n < 3; n++) await reserve(store, 'k', T0);
      await refund(store, 'k', windowEndsAt, T0 + 1);
      expect(await store.get('k', T0 + 1)).toEqual({ count: 2, windowEndsAt });
      // The freed place is granted again, and locks again.
      expect(await reserve(store, 'k', T0 + 2)).toEqual({
        granted: true,
        entry: { count: 3, windowEndsAt, lockedUntil: T0 + 2 + WINDOW },
      });
      expect((await reserve(store, 'k', T0 + 3)).granted).toBe(false);
      // Never below zero.
      await reserve(store, 'low', T0);
      for (let n = 0; n < 3; n++) await refund(store, 'low', windowEndsAt, T0 + 1);
      expect((await store.get('low', T0 + 1))?.count).toBe(0);
      expect((await reserve(store, 'low', T0 + 2)).entry?.count).toBe(1);
    });

    it('refund keeps a lock the count still reaches, and concurrent refunds each count once', async () => {
      const store = await makeStore();
      const windowEndsAt = T0 + WINDOW;
      const reserved = await Promise.all(Array.from({ length: 10 }, () => reserve(store, 'k', T0, 10)));
      expect(granted(reserved)).toBe(10);
      // With maxAttempts 9 after the refund of one of 10, the count (9) still reaches it: the lock stays.
      await refund(store, 'k', windowEndsAt, T0 + 1, 9);
      expect(await store.get('k', T0 + 1)).toEqual({ count: 9, windowEndsAt, lockedUntil: T0 + WINDOW });
      await Promise.all(Array.from({ length: 6 }, () => refund(store, 'k', windowEndsAt, T0 + 2, 10)));
      expect(await store.get('k', T0 + 2)).toEqual({ count: 3, windowEndsAt });
    });

    it('refund touches no other window: not a later one, not an expired entry, not a missing key', async () => {
      const store = await makeStore();
      const first = (await reserve(store, 'k', T0)).entry?.windowEndsAt ?? 0;
      const later = T0 + WINDOW;
      const second = await reserve(store, 'k', later);
      expect(second.entry?.windowEndsAt).toBe(later + WINDOW);
      await refund(store, 'k', first, later + 1);
      expect(await store.get('k', later + 1)).toEqual({ count: 1, windowEndsAt: later + WINDOW });
      // A reservation of a window that is over gives nothing back to anyone.
      await refund(store, 'k', later + WINDOW, later + WINDOW);
      expect(await store.get('k', later + WINDOW)).toBeUndefined();
      expect((await reserve(store, 'k', later + WINDOW)).entry?.count).toBe(1);
      await refund(store, 'never-seen', T0 + WINDOW, T0);
      expect(await store.get('never-seen', T0)).toBeUndefined();
    });

    it('clear() forgets the key, a lock included', async () => {
      const store = await makeStore();
      for (let n = 0; n < 3; n++) await reserve(store, 'k', T0);
      await store.clear('k');
      expect(await store.get('k', T0)).toBeUndefined();
      expect(await reserve(store, 'k', T0)).toEqual({
        granted: true,
        entry: { count: 1, windowEndsAt: T0 + WINDOW },
      });
      await store.clear('never-seen');
    });
  });
}
