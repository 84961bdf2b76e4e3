// CachedApiKeyStore: the API-key store contract still holds through the cache; a cached key costs no read of
// the store and is answered as a copy; revoking a key, or every key of a user, on one process is refused at
// once on another; and a busy key served from the cache still writes lastUsedAt once per resolution window.
import { describe, expect, it } from 'vitest';
import { MemoryApiKeyStore } from '../../../runtime/auth/apikeys/memory-store.js';
import { ApiKeys } from '../../../runtime/auth/apikeys/service.js';
import type { ApiKeyRecord } from '../../../runtime/auth/apikeys/store.js';
import { CachedApiKeyStore } from '../../../runtime/stores/cache/cached-api-keys.js';
import { localBus } from '../../../runtime/stores/cache/local-bus.js';
import { apiKeyStoreContract } from '../contracts/api-key-store.js';
import { fakeClock } from '../contracts/fake-clock.js';
import { counted, linkedBuses, unreachableBus } from './fake-buses.js';

const T0 = 1_700_000_000_000;
const MINUTE = 60_000;

apiKeyStoreContract('CachedApiKeyStore over MemoryApiKeyStore', () => {
  return new CachedApiKeyStore(new MemoryApiKeyStore(), localBus());
});

function apiKey(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    hash: `hash-of-${id}`,
    name: `key ${id}`,
    start: 'mk_live_AbCd',
    last4: 'wxyz',
    scopes: ['reports:read'],
    tenantId: 'acme',
    userId: 'alice',
    createdAt: T0,
    expiresAt: undefined,
    lastUsedAt: undefined,
    ...overrides,
  };
}

function twoProcesses() {
  const inner = counted(new MemoryApiKeyStore());
  const [busA, busB] = linkedBuses();
  return { inner, a: new CachedApiKeyStore(inner.store, busA), b: new CachedApiKeyStore(inner.store, busB) };
}

describe('CachedApiKeyStore', () => {
  it('answers a cached key without reading the store, as a copy whose scopes are its own', async () => {
    const { inner, a } = twoProcesses();
    await a.add(apiKey('k1'), 10, T0);
    const first = await a.findByHash('hash-of-k1');
    first!.scopes.push('*');
    first!.name = 'tampered';
    expect(await a.findByHash('hash-of-k1')).toEqual(apiKey('k1'));
    expect(inner.calls.findByHash).toBe(1);
  });

  it('does not cache an unknown hash: a key added later is found at once', async () => {
    const { a } = twoProcesses();
    expect(await a.findByHash('hash-of-k1')).toBeUndefined();
    await a.add(apiKey('k1'), 10, T0);
    expect(await a.findByHash('hash-of-k1')).toBeDefined();
  });

  it('refuses a key revoked on another process at once; a refused revoke evicts nothing', async () => {
    const { inner, a, b } = twoProcesses();
    await a.add(apiKey('k1'), 10, T0);
    await b.findByHash('hash-of-k1');
    expect(await a.remove('k1', { userId: 'bob' })).toBe(false);
    expect(await b.findByHash('hash-of-k1')).toBeDefined();
    expect(inner.calls.findByHash).toBe(1);
    expect(await a.remove('k1', { userId: 'alice' })).toBe(true);
    expect(await b.findByHash('hash-of-k1')).toBeUndefined();
  });

  it("drops every cached key of a user on every process when the user's keys are revoked", async () => {
    const { a, b } = twoProcesses();
    await a.add(apiKey('k1'), 10, T0);
    await a.add(apiKey('k2', { tenantId: undefined }), 10, T0);
    await a.add(apiKey('k3', { userId: 'bob' }), 10, T0);
    for (const store of [a, b]) for (const id of ['k1', 'k2', 'k3']) await store.findByHash(`hash-of-${id}`);
    expect(await a.removeByUser('alice')).toBe(2);
    for (const store of [a, b]) {
      expect(await store.findByHash('hash-of-k1')).toBeUndefined();
      expect(await store.findByHash('hash-of-k2')).toBeUndefined();
      expect(await store.findByHash('hash-of-k3')).toBeDefined();
    }
  });

  it('keeps its cached lastUsedAt current with its own touches, never moving it back', async () => {
    const { inner, a } = twoProcesses();
    await a.add(apiKey('k1'), 10, T0);
    await a.findByHash('hash-of-k1');
    await a.touch('k1', T0 + MINUTE);
    await a.touch('k1', T0 + 1); // a write that lost a race
    expect((await a.findByHash('hash-of-k1'))?.lastUsedAt).toBe(T0 + MINUTE);
    expect(inner.calls.findByHash).toBe(1);
  });

  it('writes the last use of a busy key at most once per resolution window through the cache', async () => {
    const inner = counted(new MemoryApiKeyStore());
    const clock = fakeClock(T0);
    const keys = new ApiKeys({ store: new CachedApiKeyStore(inner.store, localBus()), clock: clock.now });
    const issued = await keys.issue({ name: 'CI', scopes: ['*'], userId: 'alice' });
    // Ten uses a second for three minutes, each waiting for the write the one before may have started.
    for (let second = 0; second < 180; second++) {
      for (let use = 0; use < 10; use++) {
        expect((await keys.verify(issued.key)).ok).toBe(true);
        await new Promise((resolve) => setImmediate(resolve));
      }
      clock.advance(1000);
    }
    expect(inner.calls.touch).toBe(3);
    expect(inner.calls.findByHash).toBe(1);
    expect((await inner.store.get(issued.record.id))?.lastUsedAt).toBe(T0 + 2 * MINUTE);
  });

  it('fails a revoke whose invalidation cannot be sent (503)', async () => {
    const store = new CachedApiKeyStore(new MemoryApiKeyStore(), unreachableBus());
    // Adding publishes nothing (nothing absent is cached): it does not fail on a bus that is down.
    await store.add(apiKey('k1'), 10, T0);
    expect(await store.findByHash('hash-of-k1')).toBeDefined();
    await expect(store.remove('k1')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE', status: 503 });
    // The store has the removal and this process's cache dropped the key all the same.
    expect(await store.findByHash('hash-of-k1')).toBeUndefined();
    await expect(store.removeByUser('alice')).rejects.toMatchObject({ code: 'STORE_UNAVAILABLE' });
  });
});
