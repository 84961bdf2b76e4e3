// The MfaStore contract as reusable suites, run on every backend (memory, PGlite, PostgreSQL).
// `mfaStoreContract` covers every method and state rule on a fresh, empty store per test; `mfaRaceContract`
// fires the transitions that must happen once all at once (Promise.all) through two stores on the same data
// (one store twice, or two pools of one database: two processes), where a check followed by a separate write
// would let more than one through, or lose one of two writes.
import { describe, expect, it } from 'vitest';
import type { MfaRecord, MfaStore } from '../../../runtime/auth/mfa/store.js';
import type { SqlQueryable } from '../../../runtime/stores/sql/index.js';
import { OptionError } from '../../../runtime/config/option-errors.js';

const T0 = 1_700_000_000_000;
/** A TOTP time step of about T0 (30 s steps). */
const STEP = 56_666_666;
const HASHES = ['hash-1', 'hash-2', 'hash-3'];
/** How many transitions race at once. */
const RACERS = 20;

/** Empties svc_mfa, for a fresh SQL store per test. */
export async function emptyMfaTable(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_mfa');
}

function pending(userId: string, secret: string, createdAt = T0): MfaRecord {
  return {
    userId,
    secret,
    state: 'pending',
    recoveryHashes: [],
    lastStep: undefined,
    createdAt,
    enabledAt: undefined,
  };
}

function enabled(userId: string, secret: string, overrides: Partial<MfaRecord> = {}): MfaRecord {
  return {
    userId,
    secret,
    state: 'enabled',
    recoveryHashes: [...HASHES],
    lastStep: STEP,
    createdAt: T0,
    enabledAt: T0 + 10,
    ...overrides,
  };
}

/** Enrols and activates `userId` with `secret`, the recovery hashes and STEP: an enabled record. */
async function enable(store: MfaStore, userId: string, secret = 'sealed-1', hashes = HASHES): Promise<void> {
  expect(await store.enroll(userId, secret, T0)).toBe(true);
  expect(await store.activate(userId, secret, hashes, STEP, T0 + 10)).toBe(true);
}

export function mfaStoreContract(
  name: string,
  makeStore: () => Promise<MfaStore> | MfaStore,
  makeRacingStores: () => Promise<readonly [MfaStore, MfaStore]> = async () => {
    const store = await makeStore();
    return [store, store];
  },
): void {
  describe(`MfaStore contract: ${name}`, () => {
    it('enroll starts a pending record dated now; get answers it, and undefined for a user without one', async () => {
      const store = await makeStore();
      expect(await store.get('alice')).toBeUndefined();
      expect(await store.enroll('alice', 'sealed-1', T0)).toBe(true);
      expect(await store.get('alice')).toStrictEqual(pending('alice', 'sealed-1'));
      expect(await store.get('bob')).toBeUndefined();
    });

    it('enroll restarts a pending enrolment: new secret and date; the replaced secret no longer activates', async () => {
      const store = await makeStore();
      await store.enroll('alice', 'sealed-1', T0);
      expect(await store.enroll('alice', 'sealed-2', T0 + 5)).toBe(true);
      expect(await store.get('alice')).toStrictEqual(pending('alice', 'sealed-2', T0 + 5));
      expect(await store.activate('alice', 'sealed-1', HASHES, STEP, T0 + 6)).toBe(false);
      expect(await store.get('alice')).toStrictEqual(pending('alice', 'sealed-2', T0 + 5));
      expect(await store.activate('alice', 'sealed-2', HASHES, STEP, T0 + 7)).toBe(true);
    });

    it('enroll keeps an enabled record and answers false: a session cannot swap the second factor', async () => {
      const store = await makeStore();
      await enable(store, 'alice');
      expect(await store.enroll('alice', 'attacker-secret', T0 + 20)).toBe(false);
      expect(await store.get('alice')).toStrictEqual(enabled('alice', 'sealed-1'));
    });

    it('activate turns the pending record on with the hashes, the step and its date; the enrolment date stays', async () => {
      const store = await makeStore();
      await store.enroll('alice', 'sealed-1', T0);
      expect(await store.activate('alice', 'sealed-1', HASHES, STEP, T0 + 10)).toBe(true);
      expect(await store.get('alice')).toStrictEqual(enabled('alice', 'sealed-1'));
    });

    it('activate refuses a wrong secret, an enabled record (twice), and a user without a record', async () => {
      const store = await makeStore();
      await store.enroll('alice', 'sealed-1', T0);
      expect(await store.activate('alice', 'sealed-other', HASHES, STEP, T0 + 10)).toBe(false);
      expect(await store.get('alice')).toStrictEqual(pending('alice', 'sealed-1'));

      expect(await store.activate('alice', 'sealed-1', HASHES, STEP, T0 + 10)).toBe(true);
      // A second activation would hand out fresh recovery codes and rewind the step.
      expect(await store.activate('alice', 'sealed-1', ['new-hash'], STEP - 5, T0 + 20)).toBe(false);
      expect(await store.get('alice')).toStrictEqual(enabled('alice', 'sealed-1'));

      expect(await store.activate('bob', 'sealed-1', HASHES, STEP, T0)).toBe(false);
      expect(await store.get('bob')).toBeUndefined();
    });

    it('useStep accepts only a step after the last one, which it records; never on a pending or missing record', async () => {
      const store = await makeStore();
      await store.enroll('alice', 'sealed-1', T0);
      expect(await store.useStep('alice', STEP + 1)).toBe(false);
      expect((await store.get('alice'))?.lastStep).toBeUndefined();
      expect(await store.useStep('bob', STEP + 1)).toBe(false);

      expect(await store.activate('alice', 'sealed-1', HASHES, STEP, T0 + 10)).toBe(true);
      // The activation's own step (its code) and earlier ones are spent.
      expect(await store.useStep('alice', STEP)).toBe(false);
      expect(await store.useStep('alice', STEP - 1)).toBe(false);
      expect(await store.useStep('alice', STEP + 1)).toBe(true);
      expect(await store.useStep('alice', STEP + 1)).toBe(false);
      expect((await store.get('alice'))?.lastStep).toBe(STEP + 1);
      // A skipped step cannot be used after a later one.
      expect(await store.useStep('alice', STEP + 3)).toBe(true);
      expect(await store.useStep('alice', STEP + 2)).toBe(false);
      expect(await store.get('alice')).toStrictEqual(enabled('alice', 'sealed-1', { lastStep: STEP + 3 }));
    });

    it('useStep with enabledAt accepts only on the activation of that moment', async () => {
      const store = await makeStore();
      await enable(store, 'alice');
      expect(await store.useStep('alice', STEP + 1, { enabledAt: T0 + 9 })).toBe(false);
      expect((await store.get('alice'))?.lastStep).toBe(STEP);
      expect(await store.useStep('alice', STEP + 1, { enabledAt: T0 + 10 })).toBe(true);
      expect(await store.useStep('alice', STEP + 1, { enabledAt: T0 + 10 })).toBe(false);
      // Disabled and enabled again: a step checked against the earlier activation does not land on this one.
      expect(await store.remove('alice')).toBe(true);
      expect(await store.enroll('alice', 'sealed-2', T0 + 20)).toBe(true);
      expect(await store.activate('alice', 'sealed-2', HASHES, STEP, T0 + 30)).toBe(true);
      expect(await store.useStep('alice', STEP + 2, { enabledAt: T0 + 10 })).toBe(false);
      expect((await store.get('alice'))?.lastStep).toBe(STEP);
      expect(await store.useStep('alice', STEP + 2, { enabledAt: T0 + 30 })).toBe(true);
    });

    it('useRecoveryCode spends a held hash once and keeps the others in order; never on a pending or missing record', async () => {
      const store = await makeStore();
      await store.enroll('alice', 'sealed-1', T0);
      expect(await store.useRecoveryCode('alice', 'hash-1')).toBe(false);
      expect(await store.useRecoveryCode('bob', 'hash-1')).toBe(false);

      expect(await store.activate('alice', 'sealed-1', HASHES, STEP, T0 + 10)).toBe(true);
      expect(await store.useRecoveryCode('alice', 'hash-2')).toBe(true);
      expect(await store.useRecoveryCode('alice', 'hash-2')).toBe(false);
      expect(await store.useRecoveryCode('alice', 'unknown-hash')).toBe(false);
      expect(await store.get('alice')).toStrictEqual(
        enabled('alice', 'sealed-1', { recoveryHashes: ['hash-1', 'hash-3'] }),
      );
      expect(await store.useRecoveryCode('alice', 'hash-3')).toBe(true);
      expect(await store.useRecoveryCode('alice', 'hash-1')).toBe(true);
      expect((await store.get('alice'))?.recoveryHashes).toEqual([]);
      expect(await store.useRecoveryCode('alice', 'hash-1')).toBe(false);
      // Another user's hash is not this user's.
      await enable(store, 'bob', 'sealed-b', ['bob-hash']);
      expect(await store.useRecoveryCode('alice', 'bob-hash')).toBe(false);
      expect((await store.get('bob'))?.recoveryHashes).toEqual(['bob-hash']);
    });

    it('useRecoveryCode removes every copy of a hash listed twice', async () => {
      const store = await makeStore();
      await enable(store, 'alice', 'sealed-1', ['twice', 'other', 'twice']);
      expect(await store.useRecoveryCode('alice', 'twice')).toBe(true);
      expect(await store.useRecoveryCode('alice', 'twice')).toBe(false);
      expect((await store.get('alice'))?.recoveryHashes).toEqual(['other']);
    });

    it('remove deletes a pending or enabled record once; the user may enrol again from scratch', async () => {
      const store = await makeStore();
      await store.enroll('pending-user', 'sealed-p', T0);
      await enable(store, 'alice');
      expect(await store.remove('pending-user')).toBe(true);
      expect(await store.remove('alice')).toBe(true);
      expect(await store.remove('alice')).toBe(false);
      expect(await store.remove('nobody')).toBe(false);
    });

    it('remove with enabledAt deletes only the activation of that moment', async () => {
      const store = await makeStore();
      expect(await store.enroll('bob', 'secret-1', 1_000)).toBe(true);
      expect(await store.activate('bob', 'secret-1', ['h'], 10, 2_000)).toBe(true);
      expect(await store.remove('bob', { enabledAt: 1_999 })).toBe(false);
      expect((await store.get('bob'))?.state).toBe('enabled');
      expect(await store.remove('bob', { enabledAt: 2_000 })).toBe(true);
      expect(await store.get('bob')).toBeUndefined();
      expect(await store.get('alice')).toBeUndefined();
      expect(await store.get('pending-user')).toBeUndefined();
      expect(await store.useStep('alice', STEP + 1)).toBe(false);
      expect(await store.useRecoveryCode('alice', 'hash-1')).toBe(false);

      expect(await store.enroll('alice', 'sealed-2', T0 + 100)).toBe(true);
      expect(await store.get('alice')).toStrictEqual(pending('alice', 'sealed-2', T0 + 100));
    });

    it('replaceSecret replaces only the expected secret, pending or enabled, and nothing else', async () => {
      const store = await makeStore();
      await enable(store, 'alice');
      await store.useRecoveryCode('alice', 'hash-1');
      expect(await store.replaceSecret('alice', 'stale', 'resealed')).toBe(false);
      expect((await store.get('alice'))?.secret).toBe('sealed-1');
      expect(await store.replaceSecret('alice', 'sealed-1', 'resealed')).toBe(true);
      expect(await store.get('alice')).toStrictEqual(
        enabled('alice', 'resealed', { recoveryHashes: ['hash-2', 'hash-3'] }),
      );
      // The second of two re-sealings racing from the same read changes nothing.
      expect(await store.replaceSecret('alice', 'sealed-1', 'resealed-again')).toBe(false);
      expect((await store.get('alice'))?.secret).toBe('resealed');

      await store.enroll('bob', 'sealed-b', T0);
      expect(await store.replaceSecret('bob', 'sealed-b', 'resealed-b')).toBe(true);
      expect(await store.get('bob')).toStrictEqual(pending('bob', 'resealed-b'));
      // Activation compares the secret as stored now.
      expect(await store.activate('bob', 'sealed-b', HASHES, STEP, T0 + 10)).toBe(false);
      expect(await store.activate('bob', 'resealed-b', HASHES, STEP, T0 + 10)).toBe(true);

      expect(await store.replaceSecret('nobody', 'sealed-1', 'resealed')).toBe(false);
      expect(await store.get('nobody')).toBeUndefined();
    });

    it('recordsAfter pages through every record in code-point order of user id, resuming strictly after', async () => {
      const store = await makeStore();
      expect((await store.recordsAfter(undefined, 10)).map((record) => record.userId)).toEqual([]);
      // Upper case before lower case (no locale rules), and a code point above U+FFFF after U+FFFD.
      const ids = ['b', 'a', 'B', '_x', 'é', '\u{1F600}', '\uFFFD', 'a1', 'user-10', 'user-9'];
      for (const [index, id] of ids.entries()) {
        if (index % 2 === 0) await enable(store, id);
        else await store.enroll(id, 'sealed', T0);
      }
      const ordered = ['B', '_x', 'a', 'a1', 'b', 'user-10', 'user-9', 'é', '\uFFFD', '\u{1F600}'];
      expect((await store.recordsAfter(undefined, 100)).map((record) => record.userId)).toEqual(ordered);

      const scanned: string[] = [];
      let page = (await store.recordsAfter(undefined, 3)).map((record) => record.userId);
      while (page.length > 0) {
        expect(page.length).toBeLessThanOrEqual(3);
        scanned.push(...page);
        page = (await store.recordsAfter(page[page.length - 1], 3)).map((record) => record.userId);
      }
      expect(scanned).toEqual(ordered);

      // `after` need not hold a record.
      expect((await store.recordsAfter('a0', 2)).map((record) => record.userId)).toEqual(['a1', 'b']);
      expect((await store.recordsAfter('', 1)).map((record) => record.userId)).toEqual(['B']);
      expect((await store.recordsAfter('\u{1F600}', 5)).map((record) => record.userId)).toEqual([]);
      await store.remove('a1');
      expect((await store.recordsAfter('a', 1)).map((record) => record.userId)).toEqual(['b']);
    });

    it('recordsAfter refuses a limit that is not a whole number, 1 or more', async () => {
      const store = await makeStore();
      for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
        const refusal = await store.recordsAfter(undefined, limit).then(
          () => undefined,
          (error: unknown) => error,
        );
        expect(refusal, String(limit)).toBeInstanceOf(OptionError);
        expect((refusal as OptionError).code).toBe('OPTION_INVALID');
      }
    });

    it('answers copies: changing a returned record or the hashes passed in changes nothing stored', async () => {
      const store = await makeStore();
      const hashes = [...HASHES];
      await enable(store, 'alice', 'sealed-1', hashes);
      hashes.push('injected');
      const record = (await store.get('alice'))!;
      record.recoveryHashes.push('injected');
      record.state = 'pending';
      record.lastStep = 0;
      expect(await store.get('alice')).toStrictEqual(enabled('alice', 'sealed-1'));
      expect(await store.useRecoveryCode('alice', 'injected')).toBe(false);
    });

    mfaRaceContract(name, makeRacingStores);
  });
}

/**
 * The transitions that must happen once, fired at once through `stores` (alternating between the two). Run
 * separately on two pools of one database: two processes.
 */
export function mfaRaceContract(
  name: string,
  makeStores: () => Promise<readonly [MfaStore, MfaStore]>,
): void {
  describe(`MfaStore races: ${name}`, () => {
    /** `count` calls of `call`, all started before any settles, spread over both stores. */
    function atOnce<T>(
      stores: readonly [MfaStore, MfaStore],
      count: number,
      call: (store: MfaStore, index: number) => Promise<T>,
    ) {
      return Promise.all(Array.from({ length: count }, (_, index) => call(stores[index % 2]!, index)));
    }

    it(`the same step used ${RACERS} times at once is accepted exactly once`, async () => {
      const stores = await makeStores();
      await enable(stores[0], 'alice');
      const accepted = await atOnce(stores, RACERS, (store) => store.useStep('alice', STEP + 1));
      expect(accepted.filter(Boolean)).toHaveLength(1);
      expect((await stores[1].get('alice'))?.lastStep).toBe(STEP + 1);
    });

    it('steps racing one another: the latest is always accepted and is the last step kept', async () => {
      const stores = await makeStores();
      await enable(stores[0], 'alice');
      // Latest first: a store that wrote without comparing could leave an earlier step last.
      const steps = Array.from({ length: RACERS }, (_, index) => STEP + RACERS - index);
      const accepted = await atOnce(stores, RACERS, (store, index) => store.useStep('alice', steps[index]!));
      expect(accepted[0]).toBe(true);
      expect((await stores[1].get('alice'))?.lastStep).toBe(STEP + RACERS);
      expect(await stores[1].useStep('alice', STEP + RACERS)).toBe(false);
    });

    it(`the same recovery hash spent ${RACERS} times at once is spent exactly once`, async () => {
      const stores = await makeStores();
      await enable(stores[0], 'alice');
      const spent = await atOnce(stores, RACERS, (store) => store.useRecoveryCode('alice', 'hash-2'));
      expect(spent.filter(Boolean)).toHaveLength(1);
      expect((await stores[1].get('alice'))?.recoveryHashes).toEqual(['hash-1', 'hash-3']);
    });

    it('two different hashes spent at once are both spent and both gone (for each of many users)', async () => {
      const stores = await makeStores();
      const users = Array.from({ length: RACERS / 2 }, (_, index) => `user-${index}`);
      for (const user of users) await enable(stores[0], user);
      const spent = await atOnce(stores, RACERS, (store, index) =>
        store.useRecoveryCode(users[Math.floor(index / 2)]!, index % 2 === 0 ? 'hash-1' : 'hash-3'),
      );
      expect(spent).toEqual(Array.from({ length: RACERS }, () => true));
      for (const user of users) expect((await stores[1].get(user))?.recoveryHashes, user).toEqual(['hash-2']);
    });

    it('a step checked against one activation, racing a disable and a new activation, never lands on the new one', async () => {
      const stores = await makeStores();
      const users = Array.from({ length: RACERS / 2 }, (_, index) => `user-${index}`);
      for (const user of users) await enable(stores[0], user);
      const stale = (store: MfaStore, user: string) => store.useStep(user, STEP + 5, { enabledAt: T0 + 10 });
      await Promise.all(
        users.flatMap((user) => [
          stale(stores[1], user),
          (async () => {
            expect(await stores[0].remove(user, { enabledAt: T0 + 10 }), user).toBe(true);
            expect(await stores[0].enroll(user, 'sealed-2', T0 + 20), user).toBe(true);
            expect(await stores[0].activate(user, 'sealed-2', HASHES, STEP, T0 + 30), user).toBe(true);
            // However the race went, a use checked against the old activation after the new one is refused.
            expect(await stale(stores[1], user), user).toBe(false);
          })(),
          stale(stores[1], user),
        ]),
      );
      for (const user of users) {
        expect(await stores[1].get(user), user).toStrictEqual(
          enabled(user, 'sealed-2', { createdAt: T0 + 20, enabledAt: T0 + 30 }),
        );
      }
    });

    it('an activation racing a restarted enrolment: exactly one lands, never enabling the replaced secret', async () => {
      const stores = await makeStores();
      const users = Array.from({ length: RACERS / 2 }, (_, index) => `user-${index}`);
      for (const user of users) await stores[0].enroll(user, 'checked-secret', T0);
      // Each order for half the users: an activation that checked, then wrote without the check, would enable
      // the new secret; a restart that did the same would replace the enabled record.
      const activationFirst = (position: number) => position % 2 === 0;
      const outcomes = await atOnce(stores, RACERS, (store, index) => {
        const position = Math.floor(index / 2);
        const user = users[position]!;
        return (index % 2 === 0) === activationFirst(position)
          ? store.activate(user, 'checked-secret', HASHES, STEP, T0 + 10)
          : store.enroll(user, 'restarted-secret', T0 + 5);
      });
      for (const [position, user] of users.entries()) {
        const [first, second] = [outcomes[2 * position]!, outcomes[2 * position + 1]!];
        const [activated, restarted] = activationFirst(position) ? [first, second] : [second, first];
        // The activation before the restart (which then finds it enabled and keeps it), or the restart.
        expect(activated, user).not.toBe(restarted);
        expect(await stores[1].get(user), user).toStrictEqual(
          activated ? enabled(user, 'checked-secret') : pending(user, 'restarted-secret', T0 + 5),
        );
      }
    });
  });
}
