// The Redis WebAuthn challenge store: the whole ChallengeStore contract, the take race again across two
// clients (two service instances), then what only Redis promises: one key per challenge under the prefix,
// living until expiresAt on the store's clock (1 ms at least). Needs Redis at REDIS_URL (default
// redis://127.0.0.1:6379).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  closeRedis,
  openRedis,
  RedisChallengeStore,
  type RedisClient,
} from '../../runtime/stores/redis/index.js';
import type { WebauthnChallenge } from '../../runtime/auth/passkeys/store.js';
import { challengeRaceContract, challengeStoreContract } from './contracts/passkey-store.js';
import { sameAssertionRace } from './contracts/passkey-sign-in-race.js';
import { MemoryPasskeyStore } from '../../runtime/auth/passkeys/memory-store.js';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const T0 = 1_700_000_000_000;

let client: RedisClient;
/** Another client on the same Redis: another service instance. */
let other: RedisClient;
const prefixes: string[] = [];

function freshPrefix(): string {
  const prefix = `svc-test:${randomUUID()}:`;
  prefixes.push(prefix);
  return prefix;
}

beforeAll(async () => {
  client = await openRedis(REDIS_URL);
  other = await openRedis(REDIS_URL);
});

afterAll(async () => {
  if (client === undefined) return;
  for (const prefix of prefixes) {
    const keys = await client.keys(`${prefix}*`);
    if (keys.length > 0) await client.del(...keys);
  }
  await closeRedis(client);
  await closeRedis(other);
});

// The real clock: the contract's challenges live a minute from now, so their keys do too.
challengeStoreContract(
  'RedisChallengeStore',
  () => new RedisChallengeStore(client, { prefix: freshPrefix() }),
  Date.now,
);

challengeRaceContract(
  'RedisChallengeStore (two clients)',
  async () => {
    const prefix = freshPrefix();
    return [new RedisChallengeStore(client, { prefix }), new RedisChallengeStore(other, { prefix })];
  },
  Date.now,
);

function challenge(expiresAt: number): WebauthnChallenge {
  return { challenge: 'Y2hhbGxlbmdl', userId: 'alice', expiresAt };
}

describe('RedisChallengeStore keys', () => {
  it('keeps one key per challenge under the prefix, living until expiresAt on the store clock; take deletes it', async () => {
    const prefix = freshPrefix();
    const store = new RedisChallengeStore(client, { prefix, now: () => T0 });
    await store.put('ceremony-1', challenge(T0 + 300_000));
    expect(await client.keys(`${prefix}*`)).toEqual([`${prefix}webauthn-challenge:ceremony-1`]);
    const ttl = await client.pttl(`${prefix}webauthn-challenge:ceremony-1`);
    expect(ttl).toBeGreaterThan(299_000);
    expect(ttl).toBeLessThanOrEqual(300_000);

    expect(await store.take('ceremony-1', T0)).toStrictEqual(challenge(T0 + 300_000));
    expect(await client.exists(`${prefix}webauthn-challenge:ceremony-1`)).toBe(0);
  });

  it('a challenge already expired on the store clock is kept 1 ms (SET refuses a TTL of 0), then gone', async () => {
    const prefix = freshPrefix();
    const store = new RedisChallengeStore(client, { prefix, now: () => T0 });
    await store.put('late', challenge(T0 - 5_000));
    expect(await client.pttl(`${prefix}webauthn-challenge:late`)).toBeLessThanOrEqual(1);
    await expect.poll(() => client.exists(`${prefix}webauthn-challenge:late`)).toBe(0);
    expect(await store.take('late', T0 - 10_000)).toBeUndefined();
  });

  it('prefixes isolate: a store under another prefix sees nothing', async () => {
    const first = new RedisChallengeStore(client, { prefix: freshPrefix() });
    const second = new RedisChallengeStore(client, { prefix: freshPrefix() });
    const now = Date.now();
    await first.put('key', challenge(now + 60_000));
    expect(await second.take('key', now)).toBeUndefined();
    expect(await first.take('key', now)).toStrictEqual(challenge(now + 60_000));
  });

  it('refuses an unknown option', () => {
    expect(() => new RedisChallengeStore(client, { ttl: 5 } as never)).toThrow(TypeError);
  });
});

// Challenges in Redis, taken through two clients (two processes); the credentials, durable, live in the
// database in production and are shared in memory here.
sameAssertionRace('passkey sign-in with challenges in Redis (two clients)', async () => {
  const prefix = freshPrefix();
  const credentials = new MemoryPasskeyStore();
  return [
    { credentials, challenges: new RedisChallengeStore(client, { prefix }) },
    { credentials, challenges: new RedisChallengeStore(other, { prefix }) },
  ];
});
