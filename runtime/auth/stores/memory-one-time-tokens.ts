// The in-memory verification/reset token store: per process, lost on restart. Bounded by
// `maxEntries` (100000, as every in-memory store is bounded). A consumed token is forgotten at once (it can never work again). When
// full, a new token first sweeps expired ones (as of its `createdAt`), then evicts the oldest (creation order).
// An evicted link stops working (the user asks for a new one); it never verifies or resets anything else.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type { OneTimeTokenPurpose, OneTimeTokenRecord, OneTimeTokenStore } from './one-time-tokens.js';

export const DEFAULT_ONE_TIME_TOKEN_MAX_ENTRIES = 100_000;

export interface MemoryOneTimeTokenStoreOptions {
  /** Unused tokens kept at most. Default 100000. */
  maxEntries?: number;
}

/** The keys of MemoryOneTimeTokenStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemoryOneTimeTokenStoreOptions>({ maxEntries: true });

export class MemoryOneTimeTokenStore implements OneTimeTokenStore {
  private readonly tokens: ExpiringMap<OneTimeTokenRecord, 'user'>;

  constructor(options: MemoryOneTimeTokenStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryOneTimeTokenStore');
    this.tokens = new ExpiringMap<OneTimeTokenRecord, 'user'>({
      owner: 'MemoryOneTimeTokenStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_ONE_TIME_TOKEN_MAX_ENTRIES,
      expiresAt: (record) => record.expiresAt,
      indexes: { user: (record) => record.userId },
    });
  }

  get maxEntries(): number {
    return this.tokens.maxEntries;
  }

  /** Tokens currently held (expired ones included until swept). */
  get size(): number {
    return this.tokens.size;
  }

  async create(tokenHash: string, record: OneTimeTokenRecord): Promise<void> {
    this.tokens.set(tokenHash, { ...record }, record.createdAt);
  }

  // No await: the check and the removal happen in one step, so of concurrent calls exactly one wins.
  async consume(
    tokenHash: string,
    purpose: OneTimeTokenPurpose,
    now: number,
  ): Promise<OneTimeTokenRecord | undefined> {
    const record = this.tokens.peek(tokenHash);
    if (record === undefined || record.purpose !== purpose || record.usedAt !== undefined) return undefined;
    this.tokens.delete(tokenHash);
    if (record.expiresAt <= now) return undefined;
    return { ...record, usedAt: now };
  }

  async deleteByUser(userId: string, purpose: OneTimeTokenPurpose): Promise<void> {
    for (const tokenHash of this.tokens.keysBy('user', userId)) {
      if (this.tokens.peek(tokenHash)?.purpose === purpose) this.tokens.delete(tokenHash);
    }
  }
}
