// The account-link store contract as a reusable suite, run on every backend (memory, PGlite, PostgreSQL).
// `accountLinkStoreContract` covers every method and rule on a fresh, empty store per test, and fires racing
// calls all at once (Promise.all) through two stores on the same data (one store twice, or two pools: two
// processes), where a read followed by a separate write would let two links of one pair, or the removal of a
// user's last link, through.
import { describe, expect, it } from 'vitest';
import type { AccountLink, AccountLinkStore } from '../../../runtime/auth/stores/account-links.js';
import type { SqlQueryable } from '../../../runtime/stores/sql/index.js';

const T0 = 1_700_000_000_000;
/** How many calls race at once. */
const RACERS = 20;

/** Empties svc_account_links, for a fresh SQL store per test. */
export async function emptyAccountLinkTable(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_account_links');
}

function link(provider: string, subject: string, userId: string, createdAt = T0): AccountLink {
  return { provider, subject, userId, createdAt };
}

/** `count` calls of `call`, all started before any settles, spread over both stores. */
function atOnce<S, T>(stores: readonly [S, S], count: number, call: (store: S, index: number) => Promise<T>) {
  return Promise.all(Array.from({ length: count }, (_, index) => call(stores[index % 2]!, index)));
}

function pairs(links: readonly AccountLink[]): string[] {
  return links.map((found) => `${found.provider}/${found.subject}`);
}

export function accountLinkStoreContract(
  name: string,
  makeStore: () => Promise<AccountLinkStore> | AccountLinkStore,
  makeRacingStores: () => Promise<readonly [AccountLinkStore, AccountLinkStore]> = async () => {
    const store = await makeStore();
    return [store, store];
  },
): void {
  describe(`AccountLinkStore contract: ${name}`, () => {
    it('link records a pair that find answers whole; unknown pairs answer undefined', async () => {
      const store = await makeStore();
      expect(await store.find('google', 'sub-1')).toBeUndefined();
      expect(await store.link(link('google', 'sub-1', 'alice'))).toBe('linked');
      expect(await store.find('google', 'sub-1')).toStrictEqual(link('google', 'sub-1', 'alice'));
      // Provider and subject match exactly: another provider's subject, or one differing in case, is another.
      expect(await store.find('github', 'sub-1')).toBeUndefined();
      expect(await store.find('google', 'SUB-1')).toBeUndefined();
      expect(await store.find('Google', 'sub-1')).toBeUndefined();
    });

    it('links a pair once: a second link of it, to any account, is taken and changes nothing', async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice'));
      expect(await store.link(link('google', 'sub-1', 'mallory', T0 + 5))).toBe('taken');
      expect(await store.link(link('google', 'sub-1', 'alice', T0 + 5))).toBe('taken');
      expect(await store.find('google', 'sub-1')).toStrictEqual(link('google', 'sub-1', 'alice'));
      expect(await store.listByUser('mallory')).toStrictEqual([]);
      // Another subject of the same provider, or the same subject at another provider, are other pairs.
      expect(await store.link(link('google', 'sub-2', 'alice', T0 + 1))).toBe('linked');
      expect(await store.link(link('github', 'sub-1', 'bob', T0 + 1))).toBe('linked');
    });

    it('onePerProvider refuses a second subject of a provider the user holds, and only that', async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice'));
      const second = link('google', 'sub-2', 'alice', T0 + 1);
      expect(await store.link(second, { onePerProvider: true })).toBe('provider_linked');
      expect(await store.find('google', 'sub-2')).toBeUndefined();
      // A taken pair is reported as taken first.
      expect(await store.link(link('google', 'sub-1', 'alice'), { onePerProvider: true })).toBe('taken');
      // Another provider, or another user, is free; without the option the second subject is linked.
      expect(await store.link(link('github', 'gh-1', 'alice', T0 + 2), { onePerProvider: true })).toBe(
        'linked',
      );
      expect(await store.link(link('google', 'sub-3', 'bob', T0 + 2), { onePerProvider: true })).toBe(
        'linked',
      );
      expect(await store.link(second)).toBe('linked');
      expect(pairs(await store.listByUser('alice'))).toStrictEqual([
        'google/sub-1',
        'google/sub-2',
        'github/gh-1',
      ]);
    });

    it("listByUser answers the user's links oldest first, and only theirs", async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice', T0 + 20));
      await store.link(link('github', 'gh-1', 'alice', T0 + 10));
      await store.link(link('oidc', 'o-1', 'bob', T0 + 5));
      await store.link(link('gitlab', 'gl-1', 'alice', T0 + 30));
      expect(pairs(await store.listByUser('alice'))).toStrictEqual([
        'github/gh-1',
        'google/sub-1',
        'gitlab/gl-1',
      ]);
      expect(await store.listByUser('bob')).toStrictEqual([link('oidc', 'o-1', 'bob', T0 + 5)]);
      expect(await store.listByUser('nobody')).toStrictEqual([]);
      // Copies: changing an answer changes nothing stored.
      const [first] = await store.listByUser('bob');
      first!.userId = 'mallory';
      expect((await store.find('oidc', 'o-1'))?.userId).toBe('bob');
    });

    it("remove deletes one of the user's links; another user's or an unknown one is not_found", async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice'));
      await store.link(link('github', 'gh-1', 'bob'));
      expect(await store.remove('alice', 'github', 'gh-1')).toBe('not_found');
      expect(await store.remove('alice', 'google', 'nope')).toBe('not_found');
      expect(await store.find('github', 'gh-1')).toBeDefined();
      expect(await store.remove('alice', 'google', 'sub-1')).toBe('removed');
      expect(await store.find('google', 'sub-1')).toBeUndefined();
      expect(await store.remove('alice', 'google', 'sub-1')).toBe('not_found');
      // A removed pair can be linked again, to anyone.
      expect(await store.link(link('google', 'sub-1', 'carol', T0 + 9))).toBe('linked');
    });

    it("keepOne refuses the user's last link and removes any other", async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice'));
      await store.link(link('github', 'gh-1', 'alice', T0 + 1));
      await store.link(link('google', 'sub-2', 'bob'));
      expect(await store.remove('bob', 'google', 'sub-2', { keepOne: true })).toBe('last');
      expect(await store.find('google', 'sub-2')).toBeDefined();
      // not_found before last: another user's link is not this user's, whatever they hold.
      expect(await store.remove('bob', 'github', 'gh-1', { keepOne: true })).toBe('not_found');
      expect(await store.remove('alice', 'github', 'gh-1', { keepOne: true })).toBe('removed');
      expect(await store.remove('alice', 'google', 'sub-1', { keepOne: true })).toBe('last');
      expect(pairs(await store.listByUser('alice'))).toStrictEqual(['google/sub-1']);
      expect(await store.remove('alice', 'google', 'sub-1')).toBe('removed');
    });

    it("removeByUser deletes every link of the user and no one else's", async () => {
      const store = await makeStore();
      await store.link(link('google', 'sub-1', 'alice'));
      await store.link(link('github', 'gh-1', 'alice'));
      await store.link(link('google', 'sub-2', 'bob'));
      expect(await store.removeByUser('alice')).toBe(2);
      expect(await store.listByUser('alice')).toStrictEqual([]);
      expect(await store.find('google', 'sub-1')).toBeUndefined();
      expect(await store.find('google', 'sub-2')).toBeDefined();
      expect(await store.removeByUser('alice')).toBe(0);
    });

    it(`of ${RACERS} concurrent links of one pair to different accounts, exactly one is linked`, async () => {
      const stores = await makeRacingStores();
      const results = await atOnce(stores, RACERS, (store, index) =>
        store.link(link('google', 'contested', `user-${index}`, T0 + index)),
      );
      expect(results.filter((result) => result === 'linked')).toHaveLength(1);
      expect(results.filter((result) => result === 'taken')).toHaveLength(RACERS - 1);
      const winner = results.indexOf('linked');
      expect((await stores[0].find('google', 'contested'))?.userId).toBe(`user-${winner}`);
      const held = await Promise.all(
        Array.from({ length: RACERS }, (_, index) => stores[1].listByUser(`user-${index}`)),
      );
      expect(held.flat()).toHaveLength(1);
    });

    it(`of ${RACERS} concurrent onePerProvider links of one user's subjects, exactly one is linked`, async () => {
      const stores = await makeRacingStores();
      const results = await atOnce(stores, RACERS, (store, index) =>
        store.link(link('google', `sub-${index}`, 'alice', T0 + index), { onePerProvider: true }),
      );
      expect(results.filter((result) => result === 'linked')).toHaveLength(1);
      expect(results.filter((result) => result === 'provider_linked')).toHaveLength(RACERS - 1);
      expect(await stores[0].listByUser('alice')).toHaveLength(1);
    });

    it("two concurrent keepOne removals of a user's two links: exactly one is removed", async () => {
      const stores = await makeRacingStores();
      for (let round = 0; round < 10; round++) {
        await stores[0].removeByUser('alice');
        await stores[0].link(link('google', 'sub-1', 'alice'));
        await stores[0].link(link('github', 'gh-1', 'alice', T0 + 1));
        const results = await Promise.all([
          stores[0].remove('alice', 'google', 'sub-1', { keepOne: true }),
          stores[1].remove('alice', 'github', 'gh-1', { keepOne: true }),
        ]);
        expect([...results].sort()).toStrictEqual(['last', 'removed']);
        expect(await stores[0].listByUser('alice')).toHaveLength(1);
      }
    });
  });
}
