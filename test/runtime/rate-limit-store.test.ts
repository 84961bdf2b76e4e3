// The in-memory rate-limit store: fixed windows, bounded by maxEntries; expired buckets
// are swept first, then the oldest window is evicted, and a used-up bucket is never evicted before its
// window ends.
import { describe, expect, it } from 'vitest';
import { DEFAULT_RATE_LIMIT_MAX_ENTRIES, MemoryRateLimitStore } from 'svckit';
import { rateLimitStoreContract } from './contracts/rate-limit-store.js';
import { fakeClock } from './contracts/fake-clock.js';

describe('MemoryRateLimitStore', () => {
  it('keeps at most 100000 buckets by default and refuses a bad bound', () => {
    expect(DEFAULT_RATE_LIMIT_MAX_ENTRIES).toBe(100_000);
    expect(new MemoryRateLimitStore().maxEntries).toBe(100_000);
    expect(() => new MemoryRateLimitStore({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new MemoryRateLimitStore({ maxEntries: 1.5 })).toThrow(TypeError);
  });

  it('evicts the oldest window first when full', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 3, now: clock.now });
    for (const key of ['a', 'b', 'c']) {
      await store.hit(key, 10_000, 5);
      clock.advance(1);
    }
    await store.hit('d', 10_000, 5);
    expect(store.size).toBe(3);
    // b, c and d kept their counts: a went.
    expect((await store.hit('b', 10_000, 5)).count).toBe(2);
    expect((await store.hit('c', 10_000, 5)).count).toBe(2);
    expect((await store.hit('d', 10_000, 5)).count).toBe(2);
    expect(store.size).toBe(3);
    // a starts over and pushes out b, now the oldest window (hit counts do not change the order).
    expect((await store.hit('a', 10_000, 5)).count).toBe(1);
    expect((await store.hit('c', 10_000, 5)).count).toBe(3);
    expect((await store.hit('d', 10_000, 5)).count).toBe(3);
    expect((await store.hit('b', 10_000, 5)).count).toBe(1);
  });

  it('sweeps expired buckets before evicting a live one', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 3, now: clock.now });
    await store.hit('old-long', 100_000, 5);
    clock.advance(1);
    await store.hit('short-1', 10, 5);
    await store.hit('short-2', 10, 5);
    clock.advance(20);
    await store.hit('new', 100_000, 5);
    expect(store.size).toBe(2);
    // The oldest window survived because expired buckets were there to sweep.
    expect((await store.hit('old-long', 100_000, 5)).count).toBe(2);
  });

  it('orders a bucket by the start of its current window', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 2, now: clock.now });
    await store.hit('a', 10, 5);
    clock.advance(1);
    await store.hit('b', 100_000, 5);
    clock.advance(15);
    await store.hit('a', 100_000, 5); // a new window: a is now the newest
    clock.advance(1);
    await store.hit('c', 100_000, 5);
    expect((await store.hit('a', 100_000, 5)).count).toBe(2);
    expect((await store.hit('c', 100_000, 5)).count).toBe(2);
    expect(store.size).toBe(2);
  });

  it('never evicts a used-up bucket before its window ends', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 2, now: clock.now });
    await store.hit('spent', 10_000, 1); // used up: count 1 of limit 1
    clock.advance(1);
    await store.hit('open', 10_000, 2);
    clock.advance(1);
    await store.hit('newcomer', 10_000, 2);
    // The oldest window was spent, so the next oldest with hits left went instead.
    expect(await store.hit('spent', 10_000, 1)).toEqual({ count: 2, resetAt: 1_010_000 });
  });

  it('refuses a new key while every bucket is used up, then admits it once a window ended', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 2, now: clock.now });
    await store.hit('a', 1000, 1);
    clock.advance(100);
    await store.hit('b', 5000, 1);
    const refused = await store.hit('c', 1000, 3);
    expect(refused).toEqual({ count: 4, resetAt: 1_001_000 });
    expect(store.size).toBe(2);
    // Both spent buckets still refuse their clients.
    expect((await store.hit('a', 1000, 1)).count).toBe(2);
    expect((await store.hit('b', 5000, 1)).count).toBe(2);
    clock.advance(900); // a's window ended
    expect(await store.hit('c', 1000, 3)).toEqual({ count: 1, resetAt: 1_002_000 });
    expect((await store.hit('b', 5000, 1)).count).toBe(3);
  });
});

rateLimitStoreContract('MemoryRateLimitStore', (now) => new MemoryRateLimitStore({ now }));
