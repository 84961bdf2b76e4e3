// The RateLimitStore contract as a reusable suite: memory, SQL and Redis run it.
// `makeStore(now)` gives a fresh, empty store reading time from `now`, so the suite moves time by hand.
import { describe, expect, it } from 'vitest';
import type { RateLimitStore } from 'svckit';
import { fakeClock } from './fake-clock.js';

const T0 = 1_700_000_000_000;

export function rateLimitStoreContract(
  name: string,
  makeStore: (now: () => number) => Promise<RateLimitStore> | RateLimitStore,
): void {
  describe(`RateLimitStore contract: ${name}`, () => {
    it('counts hits in a fixed window, then starts a new window once it ended', async () => {
      const clock = fakeClock(T0);
      const store = await makeStore(clock.now);
      expect(await store.hit('a', 1000, 5)).toEqual({ count: 1, resetAt: T0 + 1000 });
      clock.advance(999);
      expect(await store.hit('a', 1000, 5)).toEqual({ count: 2, resetAt: T0 + 1000 });
      clock.advance(1);
      expect(await store.hit('a', 1000, 5)).toEqual({ count: 1, resetAt: T0 + 2000 });
    });

    it('keeps buckets apart by key', async () => {
      const clock = fakeClock(T0);
      const store = await makeStore(clock.now);
      await store.hit('a', 1000, 5);
      await store.hit('a', 1000, 5);
      expect(await store.hit('b', 1000, 5)).toEqual({ count: 1, resetAt: T0 + 1000 });
      expect((await store.hit('a', 1000, 5)).count).toBe(3);
    });

    it('keeps counting past the limit: the caller refuses, the store only counts', async () => {
      const clock = fakeClock(T0);
      const store = await makeStore(clock.now);
      for (let i = 1; i <= 3; i += 1) expect((await store.hit('k', 60_000, 2)).count).toBe(i);
    });

    it('keeps a window to the length it started with', async () => {
      const clock = fakeClock(T0);
      const store = await makeStore(clock.now);
      await store.hit('k', 1000, 5);
      clock.advance(500);
      // A later hit asking for a longer window does not move the current window's end.
      expect(await store.hit('k', 60_000, 5)).toEqual({ count: 2, resetAt: T0 + 1000 });
    });

    it('counts concurrent hits exactly once each', async () => {
      const clock = fakeClock(T0);
      const store = await makeStore(clock.now);
      const hits = await Promise.all(Array.from({ length: 50 }, () => store.hit('busy', 60_000, 100)));
      expect(hits.map((hit) => hit.count).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      expect(new Set(hits.map((hit) => hit.resetAt))).toEqual(new Set([T0 + 60_000]));
    });
  });
}
