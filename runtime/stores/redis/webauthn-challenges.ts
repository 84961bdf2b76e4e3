// The Redis WebAuthn challenge store (ChallengeStore). Key layout, under the prefix (default 'svc:'):
//   webauthn-challenge:<key>   string: the challenge as JSON; TTL expiresAt - now on the store's clock (1 ms
//                              at least: SET refuses 0)
// A challenge is taken by one script that reads and deletes the key, so of concurrent takes one at most gets
// it, on any Redis the other stores run on (GETDEL would need Redis 6.2). Expiry is checked against the
// caller's `now` and the stored expiresAt; the TTL only reclaims memory.
import type { ChallengeStore, WebauthnChallenge } from '../../auth/passkeys/store.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { redisCall } from './errors.js';
import { prefixOf, type RedisStoreOptions } from './keys.js';
import { RedisScript } from './script.js';

// KEYS: challenge. Replies its value, or nil when there is none; the key is gone after.
const TAKE = new RedisScript(`
local value = redis.call('GET', KEYS[1])
if value then redis.call('DEL', KEYS[1]) end
return value
`);

export interface RedisChallengeStoreOptions extends RedisStoreOptions {
  /** Clock in epoch milliseconds, for the keys' TTL; tests pass a fake one. Default `Date.now`. */
  now?: () => number;
}

/** The keys of RedisChallengeStoreOptions, its parent's included. */
const STORE_OPTIONS = optionKeys<RedisChallengeStoreOptions>({ prefix: true, now: true });

/** The stored JSON: userId left out when undefined. */
type StoredChallenge = Omit<WebauthnChallenge, 'userId'> & { userId?: string };

function challengeOf(value: string): WebauthnChallenge {
  const stored = JSON.parse(value) as StoredChallenge;
  return {
    challenge: stored.challenge,
    userId: stored.userId,
    expiresAt: stored.expiresAt,
  };
}

export class RedisChallengeStore implements ChallengeStore {
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(
    private readonly client: RedisClient,
    options: RedisChallengeStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'RedisChallengeStore');
    this.prefix = `${prefixOf(options)}webauthn-challenge:`;
    this.now = options.now ?? Date.now;
  }

  async put(key: string, challenge: WebauthnChallenge): Promise<void> {
    const stored: StoredChallenge = {
      challenge: challenge.challenge,
      userId: challenge.userId,
      expiresAt: challenge.expiresAt,
    };
    const ttlMs = Math.max(1, Math.ceil(challenge.expiresAt - this.now()));
    await redisCall(() => this.client.set(this.prefix + key, JSON.stringify(stored), 'PX', ttlMs));
  }

  async take(key: string, now: number): Promise<WebauthnChallenge | undefined> {
    const reply = await TAKE.run(this.client, [this.prefix + key], []);
    if (typeof reply !== 'string') return undefined;
    const challenge = challengeOf(reply);
    return challenge.expiresAt <= now ? undefined : challenge;
  }
}
