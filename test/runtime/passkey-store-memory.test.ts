// The in-memory passkey stores (passkeys with `stores.database: memory`): the whole PasskeyStore and
// ChallengeStore contracts, races included, then what only memory needs: the challenge map is bounded and
// sweeps expired challenges before evicting live ones.
import { describe, expect, it } from 'vitest';
import { MemoryChallengeStore, MemoryPasskeyStore } from '../../runtime/auth/passkeys/memory-store.js';
import type { WebauthnChallenge } from '../../runtime/auth/passkeys/store.js';
import { challengeStoreContract, passkeyStoreContract } from './contracts/passkey-store.js';
import { fakeClock } from './contracts/fake-clock.js';
import { sameAssertionRace } from './contracts/passkey-sign-in-race.js';

const T0 = 1_700_000_000_000;

passkeyStoreContract('MemoryPasskeyStore', () => new MemoryPasskeyStore());
challengeStoreContract('MemoryChallengeStore', () => new MemoryChallengeStore());

function challenge(expiresAt: number): WebauthnChallenge {
  return { challenge: 'Y2hhbGxlbmdl', userId: undefined, expiresAt };
}

describe('MemoryChallengeStore bounds', () => {
  it('holds 100000 challenges by default and refuses a bad maxEntries or an unknown option', () => {
    expect(new MemoryChallengeStore().maxEntries).toBe(100_000);
    expect(() => new MemoryChallengeStore({ maxEntries: 0 })).toThrow(TypeError);
    expect(() => new MemoryChallengeStore({ maxEnties: 5 } as never)).toThrow(TypeError);
  });

  it('when full, sweeps expired challenges first, then evicts the oldest live one', async () => {
    const clock = fakeClock(T0);
    const store = new MemoryChallengeStore({ maxEntries: 3, now: clock.now });
    await store.put('short-1', challenge(T0 + 10));
    await store.put('long', challenge(T0 + 60_000));
    await store.put('short-2', challenge(T0 + 10));
    clock.advance(20);
    // Both short ones expired: one put sweeps them all, and the live one stays.
    await store.put('new-1', challenge(T0 + 60_000));
    expect(store.size).toBe(2);
    await store.put('new-2', challenge(T0 + 60_000));
    await store.put('new-3', challenge(T0 + 60_000));
    expect(store.size).toBe(3);
    expect(await store.take('long', clock.now())).toBeUndefined();
    for (const key of ['new-1', 'new-2', 'new-3']) {
      expect(await store.take(key, clock.now()), key).toStrictEqual(challenge(T0 + 60_000));
    }
    expect(store.size).toBe(0);
  });

  it('never grows past maxEntries, however many ceremonies start', async () => {
    const store = new MemoryChallengeStore({ maxEntries: 50, now: () => T0 });
    for (let index = 0; index < 500; index++) await store.put(`key-${index}`, challenge(T0 + 60_000));
    expect(store.size).toBe(50);
    expect(await store.take('key-499', T0)).toStrictEqual(challenge(T0 + 60_000));
  });
});

sameAssertionRace('passkey sign-in in memory', async () => {
  const backend = { credentials: new MemoryPasskeyStore(), challenges: new MemoryChallengeStore() };
  return [backend, backend];
});
