// The ThrottleStore contract as a reusable suite: every backend (memory now; SQL and Redis with the stores
// issue) runs it. `makeStore` gives a fresh, empty store per test.
import { describe, expect, it } from 'vitest';
import { isLocked, type ThrottleStore } from 'svckit';

const WINDOW = 60_000;
const T0 = 1_700_000_000_000;

export function throttleStoreContract(
  name: string,
  makeStore: () => Promise<ThrottleStore> | ThrottleStore,
): void {
  describe(`ThrottleStore contract: ${name}`, () => {
    const hit = (store: ThrottleStore, key: string, now: number, maxAttempts = 3) =>
      store.hit(key, { windowMs: WINDOW, maxAttempts, now });

    it('counts failures in a window and locks the key for a window at the limit', async () => {
      const store = await makeStore();
      expect(await store.get('k', T0)).toBeUndefined();
      expect(await hit(store, 'k', T0)).toEqual({ count: 1, windowEndsAt: T0 + WINDOW });
      expect((await hit(store, 'k', T0 + 10)).count).toBe(2);
      const third = await hit(store, 'k', T0 + 20);
      expect(third).toEqual({ count: 3, windowEndsAt: T0 + WINDOW, lockedUntil: T0 + 20 + WINDOW });
      expect(isLocked(await store.get('k', T0 + 30), T0 + 30)).toBe(true);
      // Keys are independent.
      expect(await store.get('other', T0 + 30)).toBeUndefined();
    });

    it('starts over once the window ended, and forgets a lock once it ended', async () => {
      const store = await makeStore();
      await hit(store, 'k', T0);
      await hit(store, 'k', T0 + 1);
      expect(await hit(store, 'k', T0 + WINDOW)).toEqual({ count: 1, windowEndsAt: T0 + 2 * WINDOW });
      for (let n = 0; n < 3; n++) await hit(store, 'locked', T0);
      expect(isLocked(await store.get('locked', T0 + WINDOW - 1), T0 + WINDOW - 1)).toBe(true);
      expect(await store.get('locked', T0 + WINDOW)).toBeUndefined();
      expect((await hit(store, 'locked', T0 + WINDOW)).count).toBe(1);
    });

    it('clear() forgets the key', async () => {
      const store = await makeStore();
      for (let n = 0; n < 3; n++) await hit(store, 'k', T0);
      await store.clear('k');
      expect(await store.get('k', T0)).toBeUndefined();
      expect((await hit(store, 'k', T0)).count).toBe(1);
      await store.clear('never-seen');
    });

    it('counts concurrent failures exactly (atomic hit)', async () => {
      const store = await makeStore();
      const results = await Promise.all(Array.from({ length: 20 }, () => hit(store, 'k', T0, 5)));
      expect(results.map((entry) => entry.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, index) => index + 1),
      );
      expect(results.filter((entry) => entry.count === 5)[0]?.lockedUntil).toBe(T0 + WINDOW);
    });
  });
}
