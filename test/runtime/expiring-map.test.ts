// The one bounded expiring map behind every in-memory store (runtime/stores/memory/expiring-map.ts), tested
// directly, then once per store: each keeps the bound and expiry it had when it hand-rolled its own map.
import { describe, expect, it } from 'vitest';
import {
  ExpiringMap,
  MemoryIdempotencyStore,
  MemoryMcpSessionStore,
  MemoryOneTimeTokenStore,
  MemoryRateLimitStore,
  MemoryRefreshTokenStore,
  MemorySessionStore,
  MemoryThrottleStore,
  OptionError,
} from 'svckit';
import { fakeClock } from './contracts/fake-clock.js';

interface Item {
  expiresAt: number;
  pinned?: boolean;
  group?: string;
}

function map(
  maxEntries: number,
  extra: Partial<ConstructorParameters<typeof ExpiringMap<Item, 'group'>>[0]> = {},
) {
  const clock = fakeClock(1000);
  const items = new ExpiringMap<Item, 'group'>({
    owner: 'TestStore',
    maxEntries,
    defaultMaxEntries: 10,
    expiresAt: (item) => item.expiresAt,
    indexes: { group: (item) => item.group ?? '' },
    now: clock.now,
    ...extra,
  });
  return { clock, items };
}

describe('ExpiringMap', () => {
  it('reads an entry while it lives and drops it at its expiry, on the injected clock', () => {
    const { clock, items } = map(3);
    items.set('a', { expiresAt: 1010 });
    expect(items.get('a')).toEqual({ expiresAt: 1010 });
    clock.advance(10);
    expect(items.get('a')).toBeUndefined();
    expect(items.size).toBe(0);
  });

  it('when full, sweeps expired entries first, then evicts the oldest', () => {
    const { clock, items } = map(3);
    items.set('a', { expiresAt: 5000 });
    items.set('b', { expiresAt: 1005 });
    items.set('c', { expiresAt: 5000 });
    clock.advance(10);
    items.set('d', { expiresAt: 5000 });
    expect([items.peek('a'), items.peek('b')]).toEqual([{ expiresAt: 5000 }, undefined]);
    items.set('e', { expiresAt: 5000 });
    expect(items.peek('a')).toBeUndefined();
    expect(items.size).toBe(3);
  });

  it('evicts the oldest entry the store allows; evict-oldest drops the oldest when none may go', () => {
    const { items } = map(2, { evictable: (item) => item.pinned !== true });
    items.set('pinned', { expiresAt: 9999, pinned: true });
    items.set('free', { expiresAt: 9999 });
    items.set('new', { expiresAt: 9999, pinned: true });
    expect([items.peek('pinned'), items.peek('free')]).toEqual([
      { expiresAt: 9999, pinned: true },
      undefined,
    ]);
    expect(items.set('newer', { expiresAt: 9999 })).toBe(true);
    expect(items.peek('pinned')).toBeUndefined();
  });

  it("refuses a new key when no entry may go ('refuse'), until the earliest expiry", () => {
    const { clock, items } = map(2, { evictable: () => false, whenFull: 'refuse' });
    items.set('a', { expiresAt: 1050 });
    items.set('b', { expiresAt: 1100 });
    expect(items.set('c', { expiresAt: 2000 })).toBe(false);
    expect(items.roomAt).toBe(1050);
    expect(items.size).toBe(2);
    clock.advance(50);
    expect(items.set('c', { expiresAt: 2000 })).toBe(true);
    expect(items.peek('a')).toBeUndefined();
  });

  it('touch moves an entry to the newest end, in its index too (LRU order)', () => {
    const { items } = map(3);
    items.set('a', { expiresAt: 9999, group: 'g' });
    items.set('b', { expiresAt: 9999, group: 'g' });
    items.set('c', { expiresAt: 9999, group: 'h' });
    items.touch('a');
    expect(items.keysBy('group', 'g')).toEqual(['b', 'a']);
    items.set('d', { expiresAt: 9999 });
    expect(items.peek('b')).toBeUndefined();
    expect(items.keysBy('group', 'g')).toEqual(['a']);
    items.delete('a');
    expect(items.keysBy('group', 'g')).toEqual([]);
  });

  it('sweeps an entry whose expiry the store lowered in place once told (changed)', () => {
    const { clock, items } = map(2);
    const lowered: Item = { expiresAt: 9999 };
    items.set('lowered', lowered);
    items.set('b', { expiresAt: 9999 });
    lowered.expiresAt = 1001;
    items.changed('lowered');
    clock.advance(5);
    items.set('c', { expiresAt: 9999 });
    expect(items.peek('b')).toBeDefined();
    expect(items.peek('lowered')).toBeUndefined();
  });

  it('refuses a bad maxEntries with an OptionError naming the store', () => {
    expect(() => map(0)).toThrow(OptionError);
    expect(() => map(1.5)).toThrow(/^TestStore: maxEntries must be a whole number, 1 or more\.$/);
  });
});

describe('every in-memory store keeps its bound and expiry on the shared map', () => {
  it('MemoryRateLimitStore fails closed when every bucket still limits, until a window ends', async () => {
    const clock = fakeClock(1_000_000);
    const store = new MemoryRateLimitStore({ maxEntries: 2, now: clock.now });
    for (const key of ['a', 'b']) {
      await store.hit(key, 100, 1);
      await store.hit(key, 100, 1);
    }
    expect(await store.hit('c', 100, 1)).toEqual({ count: 2, resetAt: 1_000_100 });
    expect(store.size).toBe(2);
    clock.advance(100);
    expect((await store.hit('c', 100, 1)).count).toBe(1);
  });

  it('MemoryThrottleStore evicts the oldest unlocked key before a locked one', async () => {
    const store = new MemoryThrottleStore({ maxEntries: 2 });
    const now = 1000;
    await store.reserve('locked', { windowMs: 1000, maxAttempts: 1, now });
    await store.reserve('open', { windowMs: 1000, maxAttempts: 5, now });
    await store.reserve('new', { windowMs: 1000, maxAttempts: 5, now });
    expect(await store.get('locked', now)).toMatchObject({ lockedUntil: 2000 });
    expect(await store.get('open', now)).toBeUndefined();
    expect(await store.get('locked', 2000)).toBeUndefined();
  });

  it('MemorySessionStore, MemoryOneTimeTokenStore and MemoryRefreshTokenStore sweep expired, then evict the oldest', async () => {
    const session = (createdAt: number, expiresAt: number) => ({
      userId: 'u',
      amr: ['pwd'],
      createdAt,
      expiresAt,
    });
    const sessions = new MemorySessionStore({ maxEntries: 2 });
    await sessions.create('old', session(0, 10_000));
    await sessions.create('short', session(1, 5));
    await sessions.create('new', session(6, 10_000));
    expect(await sessions.get('old', 6)).toBeDefined();
    await sessions.create('newer', session(7, 10_000));
    expect(await sessions.get('old', 7)).toBeUndefined();
    expect(sessions.size).toBe(2);

    const tokens = new MemoryOneTimeTokenStore({ maxEntries: 1 });
    const token = {
      purpose: 'verify-email' as const,
      userId: 'u',
      email: 'a@b.c',
      createdAt: 0,
      expiresAt: 100,
    };
    await tokens.create('t1', token);
    await tokens.create('t2', { ...token, createdAt: 1 });
    expect(await tokens.consume('t1', 'verify-email', 2)).toBeUndefined();
    expect(await tokens.consume('t2', 'verify-email', 100)).toBeUndefined();

    const refresh = new MemoryRefreshTokenStore({ maxEntries: 1 });
    const record = { userId: 'u', familyId: 'f', amr: ['pwd'], createdAt: 0, expiresAt: 100 };
    await refresh.create('r1', record);
    await refresh.create('r2', { ...record, createdAt: 1 });
    expect([await refresh.get('r1', 2), (await refresh.get('r2', 2))?.userId]).toEqual([undefined, 'u']);
    expect(await refresh.get('r2', 100)).toBeUndefined();
  });

  it('MemoryIdempotencyStore keeps keys ttlMs and evicts the oldest when full', async () => {
    const clock = fakeClock(0);
    const store = new MemoryIdempotencyStore({ ttlMs: 100, maxEntries: 2, now: clock.now });
    await store.setPending('a');
    clock.advance(1);
    await store.setPending('b');
    await store.setPending('c');
    expect([await store.get('a'), await store.get('b'), await store.get('c')]).toEqual([
      undefined,
      'pending',
      'pending',
    ]);
    clock.advance(100);
    expect(await store.get('c')).toBeUndefined();
  });

  it('MemoryMcpSessionStore expires idle sessions and evicts the least recently used, per owner first', async () => {
    const clock = fakeClock(0);
    const store = new MemoryMcpSessionStore({ ttlMs: 100, maxSessions: 3, maxPerCaller: 2 }, clock.now);
    const open = (id: string, caller: string) => store.open({ id, caller, protocolVersion: '2025-06-18' });
    await open('a1', 'a');
    await open('a2', 'a');
    clock.advance(1);
    await store.use('a1', 'a');
    await open('a3', 'a');
    expect([await store.use('a2', 'a'), (await store.use('a1', 'a'))?.id]).toEqual([undefined, 'a1']);
    await open('b1', 'b');
    await open('b2', 'b');
    expect(store.size).toBe(3);
    expect(await store.use('a3', 'a')).toBeUndefined();
    clock.advance(100);
    expect(await store.use('b2', 'b')).toBeUndefined();
  });
});
