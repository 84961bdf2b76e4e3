// The passkey store contracts as reusable suites, run on every backend (memory, PGlite, PostgreSQL, and Redis
// for challenges). `passkeyStoreContract` and `challengeStoreContract` cover every method and rule on a fresh,
// empty store per test; `passkeyRaceContract` and `challengeRaceContract` fire the steps that must happen once
// all at once (Promise.all) through two stores on the same data (one store twice, or two pools or clients:
// two processes), where a check followed by a separate write would let more than one through.
import { describe, expect, it } from 'vitest';
import type {
  ChallengeStore,
  PasskeyCredential,
  PasskeyStore,
  WebauthnChallenge,
} from '../../../runtime/auth/passkeys/store.js';
import type { SqlQueryable } from '../../../runtime/stores/sql/index.js';

/** Room enough for every credential a test adds, unless it is about the limit. */
const ROOM = 20;
const T0 = 1_700_000_000_000;
/** How many calls race at once. */
const RACERS = 20;

/** Empties svc_passkeys and svc_webauthn_challenges, for fresh SQL stores per test. */
export async function emptyPasskeyTables(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_passkeys, svc_webauthn_challenges');
}

function credential(
  id: string,
  userId: string,
  overrides: Partial<PasskeyCredential> = {},
): PasskeyCredential {
  return {
    id,
    userId,
    publicKey: `pk-${id}`,
    counter: 5,
    transports: ['internal', 'hybrid'],
    label: `${userId}'s device`,
    createdAt: T0,
    lastUsedAt: undefined,
    ...overrides,
  };
}

/** `count` calls of `call`, all started before any settles, spread over both stores. */
function atOnce<S, T>(stores: readonly [S, S], count: number, call: (store: S, index: number) => Promise<T>) {
  return Promise.all(Array.from({ length: count }, (_, index) => call(stores[index % 2]!, index)));
}

export function passkeyStoreContract(
  name: string,
  makeStore: () => Promise<PasskeyStore> | PasskeyStore,
  makeRacingStores: () => Promise<readonly [PasskeyStore, PasskeyStore]> = async () => {
    const store = await makeStore();
    return [store, store];
  },
): void {
  describe(`PasskeyStore contract: ${name}`, () => {
    it('add registers a credential that get answers whole; get answers undefined for an unknown id', async () => {
      const store = await makeStore();
      expect(await store.get('cred-1')).toBeUndefined();
      expect(await store.add(credential('cred-1', 'alice'), ROOM)).toBe('added');
      expect(await store.get('cred-1')).toStrictEqual(credential('cred-1', 'alice'));
      const used = credential('cred-2', 'alice', { counter: 0, transports: [], lastUsedAt: T0 + 7 });
      expect(await store.add(used, ROOM)).toBe('added');
      expect(await store.get('cred-2')).toStrictEqual(used);
      expect(await store.get('cred-3')).toBeUndefined();
    });

    it('add refuses an id registered already, to the same user or another, and keeps the first intact', async () => {
      const store = await makeStore();
      expect(await store.add(credential('cred-1', 'alice'), ROOM)).toBe('added');
      expect(await store.add(credential('cred-1', 'alice', { publicKey: 'other', counter: 0 }), ROOM)).toBe(
        'taken',
      );
      // Another user claiming the id must never take over (or shadow) alice's passkey.
      expect(
        await store.add(credential('cred-1', 'mallory', { publicKey: 'attacker', label: 'x' }), ROOM),
      ).toBe('taken');
      expect(await store.get('cred-1')).toStrictEqual(credential('cred-1', 'alice'));
      expect(await store.listByUser('mallory')).toStrictEqual([]);
      expect(await store.listByUser('alice')).toStrictEqual([credential('cred-1', 'alice')]);
    });

    it('keeps its own copies: changing what was added or what was answered changes nothing stored', async () => {
      const store = await makeStore();
      const added = credential('cred-1', 'alice');
      await store.add(added, ROOM);
      added.counter = 99;
      added.transports.push('usb');

      const got = (await store.get('cred-1'))!;
      got.counter = 42;
      got.label = 'changed';
      got.transports.push('nfc');
      const [listed] = await store.listByUser('alice');
      listed!.publicKey = 'changed';
      listed!.transports.length = 0;

      expect(await store.get('cred-1')).toStrictEqual(credential('cred-1', 'alice'));
      expect(await store.listByUser('alice')).toStrictEqual([credential('cred-1', 'alice')]);
    });

    it("listByUser answers only the user's credentials, oldest first; none for an unknown user", async () => {
      const store = await makeStore();
      // Added newest first: the order comes from createdAt, not from the order of registration.
      await store.add(credential('newest', 'alice', { createdAt: T0 + 20 }), ROOM);
      await store.add(credential('bobs', 'bob', { createdAt: T0 + 5 }), ROOM);
      await store.add(credential('oldest', 'alice', { createdAt: T0 }), ROOM);
      await store.add(credential('middle', 'alice', { createdAt: T0 + 10 }), ROOM);
      expect((await store.listByUser('alice')).map((found) => found.id)).toEqual([
        'oldest',
        'middle',
        'newest',
      ]);
      expect(await store.listByUser('bob')).toStrictEqual([credential('bobs', 'bob', { createdAt: T0 + 5 })]);
      expect(await store.listByUser('carol')).toStrictEqual([]);
    });

    it('updateCounter moves the counter from the expected value and dates the sign-in', async () => {
      const store = await makeStore();
      await store.add(credential('cred-1', 'alice'), ROOM);
      expect(await store.updateCounter('cred-1', 5, 9, T0 + 100)).toBe(true);
      expect(await store.get('cred-1')).toStrictEqual(
        credential('cred-1', 'alice', { counter: 9, lastUsedAt: T0 + 100 }),
      );
      // An authenticator that keeps no counter stays at 0; each sign-in is still dated.
      await store.add(credential('no-counter', 'alice', { counter: 0 }), ROOM);
      expect(await store.updateCounter('no-counter', 0, 0, T0 + 200)).toBe(true);
      expect(await store.updateCounter('no-counter', 0, 0, T0 + 300)).toBe(true);
      expect((await store.get('no-counter'))?.lastUsedAt).toBe(T0 + 300);
    });

    it('updateCounter refuses a stale expected value (another sign-in moved it) and a credential gone', async () => {
      const store = await makeStore();
      await store.add(credential('cred-1', 'alice'), ROOM);
      expect(await store.updateCounter('cred-1', 5, 9, T0 + 100)).toBe(true);
      expect(await store.updateCounter('cred-1', 5, 10, T0 + 200)).toBe(false);
      expect(await store.get('cred-1')).toStrictEqual(
        credential('cred-1', 'alice', { counter: 9, lastUsedAt: T0 + 100 }),
      );
      expect(await store.updateCounter('unknown', 5, 6, T0 + 200)).toBe(false);
      expect(await store.get('unknown')).toBeUndefined();
      expect(await store.remove('alice', 'cred-1')).toBe(true);
      expect(await store.updateCounter('cred-1', 9, 10, T0 + 300)).toBe(false);
      expect(await store.get('cred-1')).toBeUndefined();
    });

    it('remove deletes a credential only for its owner; the id may then be registered again', async () => {
      const store = await makeStore();
      await store.add(credential('cred-1', 'alice'), ROOM);
      await store.add(credential('cred-2', 'alice', { createdAt: T0 + 1 }), ROOM);
      expect(await store.remove('mallory', 'cred-1')).toBe(false);
      expect(await store.get('cred-1')).toStrictEqual(credential('cred-1', 'alice'));
      expect(await store.remove('alice', 'unknown')).toBe(false);

      expect(await store.remove('alice', 'cred-1')).toBe(true);
      expect(await store.get('cred-1')).toBeUndefined();
      expect((await store.listByUser('alice')).map((found) => found.id)).toEqual(['cred-2']);
      expect(await store.remove('alice', 'cred-1')).toBe(false);

      expect(await store.add(credential('cred-1', 'bob'), ROOM)).toBe('added');
      expect((await store.get('cred-1'))?.userId).toBe('bob');
    });

    it("add refuses a credential once its user holds maxPerUser, other users' count apart", async () => {
      const store = await makeStore();
      expect(await store.add(credential('a-1', 'alice'), 2)).toBe('added');
      expect(await store.add(credential('a-2', 'alice', { createdAt: T0 + 1 }), 2)).toBe('added');
      expect(await store.add(credential('a-3', 'alice', { createdAt: T0 + 2 }), 2)).toBe('full');
      expect(await store.get('a-3')).toBeUndefined();
      // An id taken already is 'taken', full or not.
      expect(await store.add(credential('a-1', 'alice'), 2)).toBe('taken');
      expect(await store.add(credential('b-1', 'bob'), 2)).toBe('added');
      // A taken id is taken whatever the count; after a removal there is room again.
      expect(await store.add(credential('a-1', 'bob'), 2)).toBe('taken');
      expect(await store.remove('alice', 'a-1')).toBe(true);
      expect(await store.add(credential('a-3', 'alice', { createdAt: T0 + 2 }), 2)).toBe('added');
    });

    passkeyRaceContract(name, makeRacingStores);
  });
}

/**
 * The passkey steps that must happen once, fired at once through `stores` (alternating between the two). Run
 * separately on two pools of one database: two processes.
 */
export function passkeyRaceContract(
  name: string,
  makeStores: () => Promise<readonly [PasskeyStore, PasskeyStore]>,
): void {
  describe(`PasskeyStore races: ${name}`, () => {
    it(`the same id added ${RACERS} times at once, by different users, is registered exactly once`, async () => {
      const stores = await makeStores();
      const added = await atOnce(stores, RACERS, (store, index) =>
        store.add(credential('cred-1', `user-${index}`, { publicKey: `pk-${index}` }), ROOM),
      );
      expect(added.filter((result) => result === 'added')).toHaveLength(1);
      expect(added.filter((result) => result === 'taken')).toHaveLength(RACERS - 1);
      const winner = added.indexOf('added');
      expect(await stores[1].get('cred-1')).toStrictEqual(
        credential('cred-1', `user-${winner}`, { publicKey: `pk-${winner}` }),
      );
    });

    it(`${RACERS} different passkeys added at once for one user with room for 5: exactly 5 are kept`, async () => {
      const stores = await makeStores();
      const added = await atOnce(stores, RACERS, (store, index) =>
        store.add(credential(`cred-${index}`, 'alice', { createdAt: T0 + index }), 5),
      );
      expect(added.filter((result) => result === 'added')).toHaveLength(5);
      expect(added.filter((result) => result === 'full')).toHaveLength(RACERS - 5);
      expect(await stores[1].listByUser('alice')).toHaveLength(5);
    });

    it(`${RACERS} sign-ins verified against the same counter at once: exactly one moves it`, async () => {
      const stores = await makeStores();
      await stores[0].add(credential('cred-1', 'alice'), ROOM);
      const moved = await atOnce(stores, RACERS, (store, index) =>
        store.updateCounter('cred-1', 5, 6 + index, T0 + 100 + index),
      );
      expect(moved.filter(Boolean)).toHaveLength(1);
      const winner = moved.indexOf(true);
      expect(await stores[1].get('cred-1')).toStrictEqual(
        credential('cred-1', 'alice', { counter: 6 + winner, lastUsedAt: T0 + 100 + winner }),
      );
    });
  });
}

function challenge(base: number, overrides: Partial<WebauthnChallenge> = {}): WebauthnChallenge {
  return {
    challenge: 'c2hvcnQtbGl2ZWQtY2hhbGxlbmdl',
    userId: 'alice',
    expiresAt: base + 60_000,
    ...overrides,
  };
}

/**
 * `clock` is the time the store's own clock reads (a Redis store sets each key's TTL from it); challenges
 * expire a minute after it. Expiry itself is always decided by the `now` passed to take.
 */
export function challengeStoreContract(
  name: string,
  makeStore: () => Promise<ChallengeStore> | ChallengeStore,
  clock: () => number = () => T0,
): void {
  describe(`ChallengeStore contract: ${name}`, () => {
    it('take answers what put kept, for a registration and for an authentication bound to no user', async () => {
      const store = await makeStore();
      const base = clock();
      await store.put('reg', challenge(base));
      const anonymous = challenge(base, {
        challenge: 'YW5vbnltb3Vz',
        userId: undefined,
      });
      await store.put('auth', anonymous);
      expect(await store.take('auth', base)).toStrictEqual(anonymous);
      expect(await store.take('reg', base + 1)).toStrictEqual(challenge(base));
    });

    it('take answers a challenge once: a second take, or one of an unknown key, answers undefined', async () => {
      const store = await makeStore();
      const base = clock();
      await store.put('key', challenge(base));
      await store.put('other', challenge(base, { challenge: 'b3RoZXI' }));
      expect(await store.take('key', base)).toStrictEqual(challenge(base));
      expect(await store.take('key', base)).toBeUndefined();
      expect(await store.take('unknown', base)).toBeUndefined();
      // Taking one key leaves the others.
      expect(await store.take('other', base)).toStrictEqual(challenge(base, { challenge: 'b3RoZXI' }));
    });

    it('a later put replaces the challenge under its key: only the latest is taken', async () => {
      const store = await makeStore();
      const base = clock();
      await store.put('key', challenge(base));
      const restarted = challenge(base, { challenge: 'cmVzdGFydGVk', userId: 'bob' });
      await store.put('key', restarted);
      expect(await store.take('key', base)).toStrictEqual(restarted);
      expect(await store.take('key', base)).toBeUndefined();
    });

    it('an expired challenge is refused at expiresAt and deleted all the same', async () => {
      const store = await makeStore();
      const base = clock();
      await store.put('live', challenge(base));
      await store.put('expired', challenge(base));
      expect(await store.take('live', base + 59_999)).toStrictEqual(challenge(base));
      expect(await store.take('expired', base + 60_000)).toBeUndefined();
      // Refused once means gone: an earlier `now` cannot bring it back.
      expect(await store.take('expired', base)).toBeUndefined();
    });

    it('keeps its own copy: changing what was put changes nothing stored', async () => {
      const store = await makeStore();
      const base = clock();
      const put = challenge(base);
      await store.put('key', put);
      put.challenge = 'changed';
      put.userId = 'mallory';
      expect(await store.take('key', base)).toStrictEqual(challenge(base));
    });

    challengeRaceContract(
      name,
      async () => {
        const store = await makeStore();
        return [store, store];
      },
      clock,
    );
  });
}

/** The take that must happen once, fired at once through `stores`: two pools or two clients. */
export function challengeRaceContract(
  name: string,
  makeStores: () => Promise<readonly [ChallengeStore, ChallengeStore]>,
  clock: () => number = () => T0,
): void {
  describe(`ChallengeStore races: ${name}`, () => {
    it(`a challenge taken ${RACERS} times at once is answered exactly once`, async () => {
      const stores = await makeStores();
      const base = clock();
      await stores[0].put('key', challenge(base));
      const taken = await atOnce(stores, RACERS, (store) => store.take('key', base));
      expect(taken.filter((found) => found !== undefined)).toStrictEqual([challenge(base)]);
      expect(await stores[1].take('key', base)).toBeUndefined();
    });
  });
}
