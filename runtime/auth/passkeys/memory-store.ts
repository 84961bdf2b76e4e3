// The in-memory passkey stores, for `stores.database: memory`: this process's maps, lost on restart. Every
// check and its write happen inside one synchronous method body (no await between them), so concurrent calls
// cannot interleave; several processes need the SQL stores. Callers get copies: a returned credential or
// challenge never aliases the stored one, and stored arrays are never the caller's.
// Credentials are never evicted (an evicted one would lock its owner out of that sign-in method), so their map
// is not bounded: a few per user, like the users themselves. Challenges live minutes and are bounded by
// `maxEntries` (100000, as every in-memory store is bounded): when full, a new challenge first sweeps the
// expired ones, then evicts the oldest. An evicted ceremony fails and the user starts it again.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type {
  ChallengeStore,
  PasskeyAddResult,
  PasskeyCredential,
  PasskeyStore,
  WebauthnChallenge,
} from './store.js';

export const DEFAULT_CHALLENGE_MAX_ENTRIES = 100_000;

function copyCredential(credential: PasskeyCredential): PasskeyCredential {
  return { ...credential, transports: [...credential.transports] };
}

/**
 * Oldest first, then by id: the SQL store's order. Ids are base64url (ASCII), where UTF-16 order is byte
 * order, PostgreSQL's "C" collation.
 */
function oldestFirst(a: PasskeyCredential, b: PasskeyCredential): number {
  if (a.createdAt !== b.createdAt) return a.createdAt - b.createdAt;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class MemoryPasskeyStore implements PasskeyStore {
  private readonly credentials = new Map<string, PasskeyCredential>();
  /** userId → the ids of that user's credentials. */
  private readonly idsByUser = new Map<string, Set<string>>();

  async add(credential: PasskeyCredential, maxPerUser: number): Promise<PasskeyAddResult> {
    if (this.credentials.has(credential.id)) return 'taken';
    const ids = this.idsByUser.get(credential.userId) ?? new Set<string>();
    if (ids.size >= maxPerUser) return 'full';
    this.credentials.set(credential.id, copyCredential(credential));
    ids.add(credential.id);
    this.idsByUser.set(credential.userId, ids);
    return 'added';
  }

  async get(id: string): Promise<PasskeyCredential | undefined> {
    const credential = this.credentials.get(id);
    return credential === undefined ? undefined : copyCredential(credential);
  }

  async listByUser(userId: string): Promise<PasskeyCredential[]> {
    const ids = this.idsByUser.get(userId) ?? [];
    return [...ids]
      .map((id) => this.credentials.get(id)!)
      .sort(oldestFirst)
      .map(copyCredential);
  }

  async updateCounter(id: string, expected: number, next: number, now: number): Promise<boolean> {
    const credential = this.credentials.get(id);
    if (credential?.counter !== expected) return false;
    credential.counter = next;
    credential.lastUsedAt = now;
    return true;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    if (this.credentials.get(id)?.userId !== userId) return false;
    this.credentials.delete(id);
    const ids = this.idsByUser.get(userId)!;
    ids.delete(id);
    if (ids.size === 0) this.idsByUser.delete(userId);
    return true;
  }
}

export interface MemoryChallengeStoreOptions {
  /** Challenges kept at most. Default 100000. */
  maxEntries?: number;
  /** Clock in epoch ms, for sweeping when full. Default `Date.now`. */
  now?: () => number;
}

/** The keys of MemoryChallengeStoreOptions; any other is refused. */
const CHALLENGE_STORE_OPTIONS = optionKeys<MemoryChallengeStoreOptions>({ maxEntries: true, now: true });

export class MemoryChallengeStore implements ChallengeStore {
  private readonly challenges: ExpiringMap<WebauthnChallenge>;

  constructor(options: MemoryChallengeStoreOptions = {}) {
    rejectUnknownOptions(options, CHALLENGE_STORE_OPTIONS, 'MemoryChallengeStore');
    this.challenges = new ExpiringMap<WebauthnChallenge>({
      owner: 'MemoryChallengeStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_CHALLENGE_MAX_ENTRIES,
      expiresAt: (challenge) => challenge.expiresAt,
      now: options.now,
    });
  }

  get maxEntries(): number {
    return this.challenges.maxEntries;
  }

  /** Challenges currently held (expired ones included until swept). */
  get size(): number {
    return this.challenges.size;
  }

  async put(key: string, challenge: WebauthnChallenge): Promise<void> {
    this.challenges.set(key, { ...challenge });
  }

  // No await: the read and the removal happen in one step, so of concurrent calls one at most gets it.
  async take(key: string, now: number): Promise<WebauthnChallenge | undefined> {
    const challenge = this.challenges.peek(key);
    if (challenge === undefined) return undefined;
    this.challenges.delete(key);
    return challenge.expiresAt <= now ? undefined : { ...challenge };
  }
}
