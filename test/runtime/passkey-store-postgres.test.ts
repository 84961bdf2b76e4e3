// The SQL passkey stores on a real PostgreSQL (DATABASE_URL): the whole PasskeyStore and ChallengeStore
// contracts on one pool, then their races again from two pools (two processes) on the same database, what the
// tables themselves refuse, and the sweeper deleting expired challenges. The file works in a database of its
// own, dropped at the end.
import { describe, expect, it } from 'vitest';
import { SqlChallengeStore, SqlPasskeyStore, sweepExpired } from '../../runtime/stores/sql/index.js';
import {
  challengeRaceContract,
  challengeStoreContract,
  emptyPasskeyTables,
  passkeyRaceContract,
  passkeyStoreContract,
} from './contracts/passkey-store.js';
import { freshDatabaseWithTwoPools } from './contracts/two-pools.js';
import { sameAssertionRace } from './contracts/passkey-sign-in-race.js';

const ROOM = 20;
const T0 = 1_700_000_000_000;

const pools = freshDatabaseWithTwoPools();

passkeyStoreContract('SqlPasskeyStore (PostgreSQL)', async () => {
  await emptyPasskeyTables(pools.client);
  return new SqlPasskeyStore(pools.client);
});

passkeyRaceContract('SqlPasskeyStore (PostgreSQL, two pools)', async () => {
  await emptyPasskeyTables(pools.client);
  return [new SqlPasskeyStore(pools.client), new SqlPasskeyStore(pools.otherProcess)];
});

challengeStoreContract('SqlChallengeStore (PostgreSQL)', async () => {
  await emptyPasskeyTables(pools.client);
  return new SqlChallengeStore(pools.client);
});

challengeRaceContract('SqlChallengeStore (PostgreSQL, two pools)', async () => {
  await emptyPasskeyTables(pools.client);
  return [new SqlChallengeStore(pools.client), new SqlChallengeStore(pools.otherProcess)];
});

/** The SQLSTATE of a failed statement, or 'ok'. */
function outcome(running: Promise<unknown>): Promise<string | undefined> {
  return running.then(
    () => 'ok',
    (error: { code?: string }) => error.code,
  );
}

describe('svc_passkeys and svc_webauthn_challenges (PostgreSQL)', () => {
  it('refuses a negative counter, whatever writes it, and keeps counters beyond 32 bits', async () => {
    await emptyPasskeyTables(pools.client);
    const insertPasskey = (id: string, counter: number) =>
      outcome(
        pools.client.query(
          `INSERT INTO svc_passkeys (id, user_id, public_key, counter, label, created_at)
           VALUES ($1, 'u', 'pk', $2, 'label', 1)`,
          [id, counter],
        ),
      );
    expect(await insertPasskey('negative', -1)).toBe('23514');
    expect(await insertPasskey('zero', 0)).toBe('ok');
    // A counter beyond 32 bits fits: authenticators may count that far.
    expect(await insertPasskey('large', 2 ** 32 + 5)).toBe('ok');
    expect((await new SqlPasskeyStore(pools.client).get('large'))?.counter).toBe(2 ** 32 + 5);
  });

  it('compare credential ids byte for byte: ids differing only in case are two credentials', async () => {
    await emptyPasskeyTables(pools.client);
    const store = new SqlPasskeyStore(pools.client);
    const passkey = (id: string) => ({
      id,
      userId: 'alice',
      publicKey: 'pk',
      counter: 0,
      transports: [],
      label: 'key',
      createdAt: T0,
      lastUsedAt: undefined,
    });
    expect(await store.add(passkey('AbC-_x'), ROOM)).toBe('added');
    expect(await store.add(passkey('abc-_x'), ROOM)).toBe('added');
    expect((await store.listByUser('alice')).map((found) => found.id)).toEqual(['AbC-_x', 'abc-_x']);
  });
});

describe('sweepExpired and WebAuthn challenges (PostgreSQL)', () => {
  it('deletes the challenges expired at `now`, keeps the live ones, and never touches passkeys', async () => {
    await emptyPasskeyTables(pools.client);
    const challenges = new SqlChallengeStore(pools.client);
    for (const [key, expiresAt] of [
      ['gone', T0 - 1],
      ['edge', T0],
      ['live', T0 + 1],
    ] as const) {
      await challenges.put(key, { challenge: 'c', userId: 'u', expiresAt });
    }
    await new SqlPasskeyStore(pools.client).add(
      {
        id: 'cred-1',
        userId: 'u',
        publicKey: 'pk',
        counter: 0,
        transports: [],
        label: 'key',
        createdAt: T0 - 1_000_000,
        lastUsedAt: undefined,
      },
      ROOM,
    );

    expect(await sweepExpired(pools.client, T0)).toMatchObject({ svc_webauthn_challenges: 2 });
    const { rows } = await pools.client.query<{ key: string }>('SELECT key FROM svc_webauthn_challenges');
    expect(rows.map((row) => row.key)).toEqual(['live']);
    expect((await pools.client.query('SELECT 1 FROM svc_passkeys')).rowCount).toBe(1);
  });
});

sameAssertionRace('passkey sign-in on PostgreSQL (two pools)', async () => {
  await emptyPasskeyTables(pools.client);
  return [
    { credentials: new SqlPasskeyStore(pools.client), challenges: new SqlChallengeStore(pools.client) },
    {
      credentials: new SqlPasskeyStore(pools.otherProcess),
      challenges: new SqlChallengeStore(pools.otherProcess),
    },
  ];
});
