// CachedSessionStore: the session store contract still holds through the cache; a cached session costs no
// read of the store; ending a session, or every session of a user, on one process is refused at once on
// another; an expired session is refused even from the cache; a write whose invalidation cannot be sent fails.
import { describe, expect, it } from 'vitest';
import { MemorySessionStore } from '../../../runtime/auth/stores/memory-sessions.js';
import type { SessionRecord } from '../../../runtime/auth/stores/sessions.js';
import { CachedSessionStore } from '../../../runtime/stores/cache/cached-sessions.js';
import { localBus } from '../../../runtime/stores/cache/local-bus.js';
import { sessionStoreContract } from '../contracts/session-store.js';
import { counted, linkedBuses, unreachableBus } from './fake-buses.js';

const T0 = 1_700_000_000_000;
const HOUR = 3_600_000;

function session(userId: string, overrides: Partial<SessionRecord> = {}): SessionRecord {
  return { userId, amr: ['pwd'], createdAt: T0, expiresAt: T0 + HOUR, ...overrides };
}

sessionStoreContract('CachedSessionStore over MemorySessionStore', () => {
  return new CachedSessionStore(new MemorySessionStore(), localBus());
});

/** One store, seen by two processes, each with its own cache and bus. */
function twoProcesses() {
  const inner = counted(new MemorySessionStore());
  const [busA, busB] = linkedBuses();
  return {
    inner,
    a: new CachedSessionStore(inner.store, busA),
    b: new CachedSessionStore(inner.store, busB),
  };
}

describe('CachedSessionStore', () => {
  it('answers a cached session without reading the store, as a copy', async () => {
    const { inner, a } = twoProcesses();
    await inner.store.create('s1', session('u1'));
    const first = await a.get('s1', T0);
    first!.amr.push('tampered');
    expect(await a.get('s1', T0 + 1)).toEqual(session('u1'));
    expect(inner.calls.get).toBe(1);
  });

  it('does not cache an unknown session: one created later is found at once', async () => {
    const { inner, a } = twoProcesses();
    expect(await a.get('s1', T0)).toBeUndefined();
    await inner.store.create('s1', session('u1'));
    expect(await a.get('s1', T0)).toEqual(session('u1'));
  });

  it('refuses a session deleted on another process at once', async () => {
    const { a, b } = twoProcesses();
    await a.create('s1', session('u1'));
    expect(await b.get('s1', T0)).toBeDefined();
    await a.delete('s1');
    expect(await b.get('s1', T0)).toBeUndefined();
    expect(await a.get('s1', T0)).toBeUndefined();
  });

  it("drops every cached session of a user on every process when the user's sessions end", async () => {
    const { a, b } = twoProcesses();
    for (const [id, user] of [
      ['s1', 'u1'],
      ['s2', 'u1'],
      ['s3', 'u2'],
    ] as const) {
      await a.create(id, session(user));
      await a.get(id, T0);
      await b.get(id, T0);
    }
    expect(await a.deleteByUser('u1')).toBe(2);
    for (const store of [a, b]) {
      expect(await store.get('s1', T0)).toBeUndefined();
      expect(await store.get('s2', T0)).toBeUndefined();
      expect(await store.get('s3', T0)).toEqual(session('u2'));
    }
  });

  it('refuses a cached session from its expiry on', async () => {
    const { inner, a } = twoProcesses();
    await a.create('s1', session('u1'));
    expect(await a.get('s1', T0 + HOUR - 1)).toBeDefined();
    expect(inner.calls.get).toBe(1); // cached from here on
    expect(await a.get('s1', T0 + HOUR)).toBeUndefined();
    expect(await a.get('s1', T0 + HOUR + 1)).toBeUndefined();
  });

  it('fails a delete whose invalidation cannot be sent (503), after the store deleted it', async () => {
    const inner = new MemorySessionStore();
    const store = new CachedSessionStore(inner, unreachableBus());
    await store.create('s1', session('u1'));
    await store.get('s1', T0);
    await expect(store.delete('s1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    await expect(store.deleteByUser('u1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
    expect(await inner.get('s1', T0)).toBeUndefined();
    expect(await store.get('s1', T0)).toBeUndefined(); // this process heard its own topic
  });

  it('refuses an unknown cache option', () => {
    expect(
      () => new CachedSessionStore(new MemorySessionStore(), localBus(), { maxEntrys: 5 } as never),
    ).toThrow(/CachedSessionStore: unknown option "maxEntrys"/);
  });
});
