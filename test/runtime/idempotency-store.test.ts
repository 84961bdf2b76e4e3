// The in-memory idempotency store: the store contract (atomic
// setPending, complete, release, retention), then what only memory promises: `ttlMs` 24 h and at most
// `maxEntries` 10000 by default, the oldest evicted.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  MemoryIdempotencyStore,
  idempotencyPlugin,
  idempotencyScope,
  route,
  type SvcRequest,
} from 'svckit';
import { idempotencyStoreContract } from './contracts/idempotency-store.js';

const RECORD = { status: 201, body: '{"id":1}', contentType: 'application/json; charset=utf-8' };

describe('MemoryIdempotencyStore', () => {
  it('keeps 24 h and 10000 keys by default and refuses bad bounds', () => {
    expect(DEFAULT_IDEMPOTENCY_TTL_MS).toBe(86_400_000);
    expect(DEFAULT_IDEMPOTENCY_MAX_ENTRIES).toBe(10_000);
    const store = new MemoryIdempotencyStore();
    expect(store.ttlMs).toBe(86_400_000);
    expect(store.maxEntries).toBe(10_000);
    expect(() => new MemoryIdempotencyStore({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new MemoryIdempotencyStore({ ttlMs: 1.5 })).toThrow(TypeError);
  });

  it('evicts the oldest key when full', async () => {
    const store = new MemoryIdempotencyStore({ maxEntries: 3 });
    for (const key of ['a', 'b', 'c']) await store.setPending(key);
    await store.complete('a', RECORD); // completing renews a: b is now the oldest
    await store.setPending('d');
    expect(store.size).toBe(3);
    expect(await store.get('b')).toBeUndefined();
    expect(await store.get('a')).toEqual(RECORD);
    expect(await store.get('c')).toBe('pending');
    expect(await store.get('d')).toBe('pending');
  });
});

describe('idempotencyScope', () => {
  const notes = route({ method: 'POST', url: '/notes/:id', handler: () => ({}) });
  function request(headers: Record<string, string>, path = '/notes/1'): SvcRequest {
    return { method: 'POST', path, headers } as unknown as SvcRequest;
  }
  const scope = (headers: Record<string, string>, key = 'k', path?: string, allowAnonymous = false) =>
    idempotencyScope({
      request: request(headers, path),
      route: notes,
      key,
      credentialHeaders: ['authorization'],
      allowAnonymous,
    });

  it('is a SHA-256 hex digest that differs per credential, tenant, host, path and key', () => {
    const base = scope({ authorization: 'Bearer a', host: 'h' });
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(scope({ authorization: 'Bearer a', host: 'h' })).toBe(base);
    expect(scope({ authorization: 'Bearer b', host: 'h' })).not.toBe(base);
    expect(scope({ authorization: 'Bearer a', host: 'other' })).not.toBe(base);
    expect(scope({ authorization: 'Bearer a', host: 'h', 'x-tenant-id': 't' })).not.toBe(base);
    expect(scope({ authorization: 'Bearer a', host: 'h' }, 'k2')).not.toBe(base);
    expect(scope({ authorization: 'Bearer a', host: 'h' }, 'k', '/notes/2')).not.toBe(base);
  });

  it('is undefined for a request without credentials unless anonymous requests are allowed', () => {
    expect(scope({ host: 'h' })).toBeUndefined();
    expect(scope({ host: 'h' }, 'k', undefined, true)).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('idempotencyPlugin options', () => {
  it('refuses wrong options when created', () => {
    expect(() => idempotencyPlugin({ methods: ['FETCH' as 'POST'] })).toThrow(TypeError);
    expect(() => idempotencyPlugin({ header: 'bad header' })).toThrow(TypeError);
    expect(() => idempotencyPlugin({ ttlMs: 0 })).toThrow(TypeError);
    expect(() => idempotencyPlugin({ allowAnonymous: 'yes' as unknown as boolean })).toThrow(TypeError);
    expect(() => idempotencyPlugin({ store: new MemoryIdempotencyStore(), ttlMs: 5 })).toThrow(TypeError);
    expect(() => idempotencyPlugin({ unknown: 1 } as never)).toThrow(TypeError);
    expect(idempotencyPlugin().name).toBe('svc:idempotency');
  });
});

idempotencyStoreContract('MemoryIdempotencyStore', (options) => new MemoryIdempotencyStore(options));
