// The API-key store contract as a reusable suite, run on every backend (memory, PGlite, PostgreSQL).
// `apiKeyStoreContract` covers every method and rule on a fresh, empty store per test; `apiKeyRaceContract`
// fires adds for one owner all at once (Promise.all) through two stores on the same data (one store twice, or
// two pools: two processes), where a count followed by a separate insert would let more than the cap through.
import { describe, expect, it } from 'vitest';
import type { ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from '../../../runtime/auth/apikeys/store.js';
import { sweepExpired, type SqlQueryable } from '../../../runtime/stores/sql/index.js';

/** Room enough for every key a test adds, unless it is about the limit. */
const ROOM = 20;
const T0 = 1_700_000_000_000;
const DAY = 24 * 60 * 60 * 1000;
/** How many calls race at once. */
const RACERS = 20;

/** Empties svc_api_keys, for a fresh SQL store per test. */
export async function emptyApiKeyTable(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_api_keys');
}

function apiKey(id: string, overrides: Partial<ApiKeyRecord> = {}): ApiKeyRecord {
  return {
    id,
    hash: `hash-of-${id}`,
    name: `key ${id}`,
    start: 'mk_live_AbCd',
    last4: 'wxyz',
    scopes: ['reports:read', 'reports:write'],
    tenantId: 'acme',
    userId: 'alice',
    createdAt: T0,
    expiresAt: undefined,
    lastUsedAt: undefined,
    ...overrides,
  };
}

/** `count` calls of `call`, all started before any settles, spread over both stores. */
function atOnce<S, T>(stores: readonly [S, S], count: number, call: (store: S, index: number) => Promise<T>) {
  return Promise.all(Array.from({ length: count }, (_, index) => call(stores[index % 2]!, index)));
}

async function ids(store: ApiKeyStore, filter: ApiKeyFilter): Promise<string[]> {
  return (await store.list(filter)).map((found) => found.id);
}

export function apiKeyStoreContract(
  name: string,
  makeStore: () => Promise<ApiKeyStore> | ApiKeyStore,
  makeRacingStores: () => Promise<readonly [ApiKeyStore, ApiKeyStore]> = async () => {
    const store = await makeStore();
    return [store, store];
  },
): void {
  describe(`ApiKeyStore contract: ${name}`, () => {
    it('add stores a key that get and findByHash answer whole; unknown ids and hashes answer undefined', async () => {
      const store = await makeStore();
      expect(await store.get('key-1')).toBeUndefined();
      expect(await store.findByHash('hash-of-key-1')).toBeUndefined();
      const full = apiKey('key-1', { expiresAt: T0 + DAY, lastUsedAt: T0 + 5 });
      expect(await store.add(full, ROOM, T0)).toBe('added');
      // A key of no tenant and no user, without expiry or use: every optional field stays undefined.
      const bare = apiKey('key-2', { name: '', scopes: ['*'], tenantId: undefined, userId: undefined });
      expect(await store.add(bare, ROOM, T0)).toBe('added');

      expect(await store.get('key-1')).toStrictEqual(full);
      expect(await store.findByHash('hash-of-key-1')).toStrictEqual(full);
      expect(await store.get('key-2')).toStrictEqual(bare);
      expect(await store.findByHash('hash-of-key-2')).toStrictEqual(bare);
      expect(await store.get('key-3')).toBeUndefined();
      // The hash is looked up exactly: the id is not a hash, a hash differing in case is another.
      expect(await store.findByHash('key-1')).toBeUndefined();
      expect(await store.findByHash('HASH-OF-KEY-1')).toBeUndefined();
    });

    it('refuses a second key with a stored hash and keeps the first intact', async () => {
      const store = await makeStore();
      await store.add(apiKey('key-1'), ROOM, T0);
      await expect(
        store.add(apiKey('key-2', { hash: 'hash-of-key-1', userId: 'mallory' }), ROOM, T0),
      ).rejects.toThrow();
      expect(await store.findByHash('hash-of-key-1')).toStrictEqual(apiKey('key-1'));
      expect(await store.get('key-2')).toBeUndefined();
    });

    it('keeps its own copies: changing what was added or what was answered changes nothing stored', async () => {
      const store = await makeStore();
      const added = apiKey('key-1');
      await store.add(added, ROOM, T0);
      added.name = 'changed';
      added.scopes.push('admin:all');

      const got = (await store.get('key-1'))!;
      got.scopes.push('admin:all');
      got.userId = 'mallory';
      const found = (await store.findByHash('hash-of-key-1'))!;
      found.scopes.length = 0;
      found.expiresAt = T0;
      const [listed] = await store.list({});
      listed!.scopes[0] = '*';
      listed!.tenantId = 'other';

      expect(await store.get('key-1')).toStrictEqual(apiKey('key-1'));
      expect(await store.findByHash('hash-of-key-1')).toStrictEqual(apiKey('key-1'));
      expect(await store.list({})).toStrictEqual([apiKey('key-1')]);
    });

    it('list: an absent field matches any value, null only none, a string only itself; oldest first', async () => {
      const store = await makeStore();
      // Added out of order: the order comes from createdAt.
      await store.add(apiKey('tenant-only', { userId: undefined, createdAt: T0 + 4 }), ROOM, T0);
      await store.add(apiKey('alice-acme', { createdAt: T0 }), ROOM, T0);
      await store.add(apiKey('bob-acme', { userId: 'bob', createdAt: T0 + 2 }), ROOM, T0);
      await store.add(apiKey('alice-none', { tenantId: undefined, createdAt: T0 + 1 }), ROOM, T0);
      const neither = { userId: undefined, tenantId: undefined, createdAt: T0 + 3 };
      await store.add(apiKey('neither', neither), ROOM, T0);
      await store.add(apiKey('alice-other', { tenantId: 'other', createdAt: T0 + 5 }), ROOM, T0);

      const all = ['alice-acme', 'alice-none', 'bob-acme', 'neither', 'tenant-only', 'alice-other'];
      expect(await ids(store, {})).toEqual(all);
      expect(await ids(store, { userId: undefined, tenantId: undefined })).toEqual(all);
      expect(await ids(store, { userId: 'alice' })).toEqual(['alice-acme', 'alice-none', 'alice-other']);
      expect(await ids(store, { userId: 'alice', tenantId: 'acme' })).toEqual(['alice-acme']);
      expect(await ids(store, { userId: 'alice', tenantId: null })).toEqual(['alice-none']);
      expect(await ids(store, { tenantId: 'acme' })).toEqual(['alice-acme', 'bob-acme', 'tenant-only']);
      expect(await ids(store, { tenantId: null })).toEqual(['alice-none', 'neither']);
      expect(await ids(store, { userId: null })).toEqual(['neither', 'tenant-only']);
      expect(await ids(store, { userId: null, tenantId: 'acme' })).toEqual(['tenant-only']);
      expect(await ids(store, { userId: null, tenantId: null })).toEqual(['neither']);
      expect(await ids(store, { userId: 'carol' })).toEqual([]);
      expect(await ids(store, { userId: 'bob', tenantId: null })).toEqual([]);
    });

    it('list includes expired keys, whole', async () => {
      const store = await makeStore();
      const expired = apiKey('expired', { expiresAt: T0 + 10 });
      await store.add(expired, ROOM, T0);
      await store.add(apiKey('live', { createdAt: T0 + 1 }), ROOM, T0 + 20);
      expect(await store.list({ userId: 'alice', tenantId: 'acme' })).toStrictEqual([
        expired,
        apiKey('live', { createdAt: T0 + 1 }),
      ]);
    });

    it('add refuses a key once its owner holds maxPerOwner live keys; nothing else is changed', async () => {
      const store = await makeStore();
      expect(await store.add(apiKey('a-1'), 2, T0)).toBe('added');
      expect(await store.add(apiKey('a-2', { createdAt: T0 + 1 }), 2, T0)).toBe('added');
      expect(await store.add(apiKey('a-3', { createdAt: T0 + 2 }), 2, T0)).toBe('full');
      expect(await store.get('a-3')).toBeUndefined();
      expect(await store.findByHash('hash-of-a-3')).toBeUndefined();
      expect(await ids(store, {})).toEqual(['a-1', 'a-2']);
      // After a removal there is room again.
      expect(await store.remove('a-1')).toBe(true);
      expect(await store.add(apiKey('a-3', { createdAt: T0 + 2 }), 2, T0)).toBe('added');
    });

    it('add counts only keys live at `now`: a key expired at or before it leaves room', async () => {
      const store = await makeStore();
      expect(await store.add(apiKey('expires-at-now', { expiresAt: T0 + 100 }), 2, T0)).toBe('added');
      expect(await store.add(apiKey('expires-later', { expiresAt: T0 + 101 }), 2, T0)).toBe('added');
      expect(await store.add(apiKey('refused', { expiresAt: undefined }), 2, T0 + 99)).toBe('full');
      // At T0 + 100 the first has expired (expiresAt is the first refused instant): one live key, room for one.
      expect(await store.add(apiKey('added', { createdAt: T0 + 100 }), 2, T0 + 100)).toBe('added');
      expect(await store.add(apiKey('refused-2', { createdAt: T0 + 100 }), 2, T0 + 100)).toBe('full');
      // Expired keys stay stored and listed; they only do not count.
      expect(await ids(store, {})).toEqual(['expires-at-now', 'expires-later', 'added']);
    });

    it('add counts per owner: another tenant, no tenant, another user or no user is another owner', async () => {
      const store = await makeStore();
      expect(await store.add(apiKey('alice-acme'), 1, T0)).toBe('added');
      expect(await store.add(apiKey('alice-acme-2'), 1, T0)).toBe('full');
      expect(await store.add(apiKey('alice-other', { tenantId: 'other' }), 1, T0)).toBe('added');
      expect(await store.add(apiKey('alice-none', { tenantId: undefined }), 1, T0)).toBe('added');
      expect(await store.add(apiKey('alice-none-2', { tenantId: undefined }), 1, T0)).toBe('full');
      expect(await store.add(apiKey('bob-acme', { userId: 'bob' }), 1, T0)).toBe('added');
      expect(await store.add(apiKey('nobody-acme', { userId: undefined }), 1, T0)).toBe('added');
      expect(await store.add(apiKey('nobody-acme-2', { userId: undefined }), 1, T0)).toBe('full');
      const neither = { userId: undefined, tenantId: undefined };
      expect(await store.add(apiKey('neither', neither), 1, T0)).toBe('added');
      expect(await store.add(apiKey('neither-2', neither), 1, T0)).toBe('full');
      expect((await store.list({})).length).toBe(6);
    });

    it('remove without owner deletes the key once; unknown or removed ids answer false', async () => {
      const store = await makeStore();
      await store.add(apiKey('key-1'), ROOM, T0);
      await store.add(apiKey('key-2', { createdAt: T0 + 1 }), ROOM, T0);
      expect(await store.remove('unknown')).toBe(false);
      expect(await store.remove('key-1')).toBe(true);
      expect(await store.get('key-1')).toBeUndefined();
      expect(await store.findByHash('hash-of-key-1')).toBeUndefined();
      expect(await store.remove('key-1')).toBe(false);
      expect(await ids(store, {})).toEqual(['key-2']);
    });

    it('remove with an owner deletes only a key that owner matches, as list filters', async () => {
      const store = await makeStore();
      await store.add(apiKey('alice-acme'), ROOM, T0);
      await store.add(apiKey('neither', { userId: undefined, tenantId: undefined }), ROOM, T0);
      // Another user, the same user in another tenant or in none: not theirs.
      expect(await store.remove('alice-acme', { userId: 'mallory', tenantId: 'acme' })).toBe(false);
      expect(await store.remove('alice-acme', { userId: 'alice', tenantId: 'other' })).toBe(false);
      expect(await store.remove('alice-acme', { userId: 'alice', tenantId: null })).toBe(false);
      expect(await store.remove('alice-acme', { userId: null })).toBe(false);
      expect(await store.remove('neither', { userId: 'alice' })).toBe(false);
      expect(await store.remove('neither', { tenantId: 'acme' })).toBe(false);
      expect(await store.get('alice-acme')).toStrictEqual(apiKey('alice-acme'));
      expect(await store.get('neither')).toBeDefined();

      expect(await store.remove('alice-acme', { userId: 'alice', tenantId: 'acme' })).toBe(true);
      expect(await store.remove('alice-acme', { userId: 'alice', tenantId: 'acme' })).toBe(false);
      expect(await store.remove('neither', { userId: null, tenantId: null })).toBe(true);
      expect(await store.list({})).toStrictEqual([]);
    });

    it('remove with an owner naming one field leaves the other free (absent matches any)', async () => {
      const store = await makeStore();
      await store.add(apiKey('alice-acme'), ROOM, T0);
      await store.add(apiKey('bob-acme', { userId: 'bob' }), ROOM, T0);
      expect(await store.remove('alice-acme', { tenantId: 'acme' })).toBe(true);
      expect(await store.remove('bob-acme', {})).toBe(true);
      expect(await store.list({})).toStrictEqual([]);
    });

    it("removeByUser deletes the user's keys in every tenant and none, expired too, and answers how many", async () => {
      const store = await makeStore();
      const aliceKeys = {
        'alice-acme': {},
        'alice-other': { tenantId: 'other' },
        'alice-none': { tenantId: undefined },
        'alice-expired': { expiresAt: T0 + 1 },
      };
      for (const [id, overrides] of Object.entries(aliceKeys)) {
        expect(await store.add(apiKey(id, overrides), ROOM, T0)).toBe('added');
      }
      const others = {
        'bob-acme': apiKey('bob-acme', { userId: 'bob' }),
        'bob-none': apiKey('bob-none', { userId: 'bob', tenantId: undefined }),
        'nobody-acme': apiKey('nobody-acme', { userId: undefined }),
        neither: apiKey('neither', { userId: undefined, tenantId: undefined }),
        // A user id that only contains or differs in case from alice's is another user.
        'alice-like': apiKey('alice-like', { userId: 'Alice' }),
        'alice-prefix': apiKey('alice-prefix', { userId: 'alice2' }),
      };
      for (const record of Object.values(others)) expect(await store.add(record, ROOM, T0)).toBe('added');

      expect(await store.removeByUser('alice')).toBe(4);
      for (const id of Object.keys(aliceKeys)) {
        expect(await store.get(id)).toBeUndefined();
        expect(await store.findByHash(`hash-of-${id}`)).toBeUndefined();
      }
      expect(await store.list({ userId: 'alice' })).toStrictEqual([]);
      for (const [id, record] of Object.entries(others)) expect(await store.get(id)).toStrictEqual(record);
      expect((await ids(store, {})).sort()).toEqual(Object.keys(others).sort());
      // Done once: a second call finds nothing, and the user may hold keys again.
      expect(await store.removeByUser('alice')).toBe(0);
      expect(await store.add(apiKey('alice-again'), 1, T0)).toBe('added');
    });

    it('removeByUser answers 0 for a user without keys and deletes nothing', async () => {
      const store = await makeStore();
      expect(await store.removeByUser('alice')).toBe(0);
      await store.add(apiKey('bob-acme', { userId: 'bob' }), ROOM, T0);
      await store.add(apiKey('neither', { userId: undefined, tenantId: undefined }), ROOM, T0);
      expect(await store.removeByUser('carol')).toBe(0);
      expect(await store.removeByUser('')).toBe(0);
      expect((await ids(store, {})).sort()).toEqual(['bob-acme', 'neither']);
    });

    it('touch dates a use and moves lastUsedAt only forward; an unknown id is no error', async () => {
      const store = await makeStore();
      await store.add(apiKey('key-1'), ROOM, T0);
      await store.add(apiKey('key-2', { createdAt: T0 + 1 }), ROOM, T0);
      await store.touch('key-1', T0 + 100);
      expect(await store.get('key-1')).toStrictEqual(apiKey('key-1', { lastUsedAt: T0 + 100 }));
      // A write that lost a race to a later one changes nothing; an equal one neither.
      await store.touch('key-1', T0 + 50);
      expect((await store.get('key-1'))?.lastUsedAt).toBe(T0 + 100);
      await store.touch('key-1', T0 + 100);
      expect((await store.get('key-1'))?.lastUsedAt).toBe(T0 + 100);
      await store.touch('key-1', T0 + 60_100);
      expect((await store.findByHash('hash-of-key-1'))?.lastUsedAt).toBe(T0 + 60_100);
      // Only that key is dated.
      expect(await store.get('key-2')).toStrictEqual(apiKey('key-2', { createdAt: T0 + 1 }));
      await expect(store.touch('unknown', T0)).resolves.toBeUndefined();
      expect(await store.get('unknown')).toBeUndefined();
    });

    apiKeyRaceContract(name, makeRacingStores);
  });
}

/**
 * Adds for one owner fired at once through `stores` (alternating between the two). Run separately on two
 * pools of one database: two processes.
 */
export function apiKeyRaceContract(
  name: string,
  makeStores: () => Promise<readonly [ApiKeyStore, ApiKeyStore]>,
): void {
  describe(`ApiKeyStore races: ${name}`, () => {
    it(`${RACERS} keys added at once for one owner with room for 5: exactly 5 are stored`, async () => {
      const stores = await makeStores();
      const added = await atOnce(stores, RACERS, (store, index) =>
        store.add(apiKey(`key-${index}`, { createdAt: T0 + index }), 5, T0),
      );
      expect(added.filter((result) => result === 'added')).toHaveLength(5);
      expect(added.filter((result) => result === 'full')).toHaveLength(RACERS - 5);
      expect(await stores[1].list({})).toHaveLength(5);
    });

    it(`${RACERS} keys of no user and no tenant added at once with room for 5: exactly 5 are stored`, async () => {
      const stores = await makeStores();
      const added = await atOnce(stores, RACERS, (store, index) =>
        store.add(apiKey(`key-${index}`, { userId: undefined, tenantId: undefined }), 5, T0),
      );
      expect(added.filter((result) => result === 'added')).toHaveLength(5);
      expect(await stores[0].list({ userId: null, tenantId: null })).toHaveLength(5);
    });
  });
}

/**
 * The sweeper on svc_api_keys: a key expired more than 30 days ago is deleted; one expired since, or one that
 * never expires, is kept (an expired key is refused as expired for a month before it is unknown).
 */
export function apiKeySweepContract(
  name: string,
  makeStore: () => Promise<{ db: SqlQueryable; store: ApiKeyStore }>,
): void {
  describe(`sweepExpired and API keys: ${name}`, () => {
    it('deletes keys expired 30 days or more before now, keeps the rest', async () => {
      const { db, store } = await makeStore();
      const now = T0 + 100 * DAY;
      const keys = {
        'long-gone': now - 30 * DAY - 1,
        edge: now - 30 * DAY,
        'recently-expired': now - 30 * DAY + 1,
        'expired-now': now,
        live: now + DAY,
        'never-expires': undefined,
      };
      for (const [id, expiresAt] of Object.entries(keys)) {
        expect(await store.add(apiKey(id, { expiresAt }), ROOM, T0)).toBe('added');
      }
      expect(await sweepExpired(db, now)).toMatchObject({ svc_api_keys: 2 });
      expect((await store.list({})).map((found) => found.id).sort()).toEqual([
        'expired-now',
        'live',
        'never-expires',
        'recently-expired',
      ]);
      expect(await store.findByHash('hash-of-recently-expired')).toBeDefined();
      expect(await store.findByHash('hash-of-long-gone')).toBeUndefined();
    });
  });
}
