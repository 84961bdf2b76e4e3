// The in-memory refresh-token store: per process, lost on restart. Bounded by `maxEntries`
// (100000, as every in-memory store is bounded) tokens plus as many family marks. When full, a new token first sweeps expired ones (as of
// its `createdAt`), then evicts the oldest (creation order). An evicted token refreshes no more (the user signs
// in again); an evicted spent token replayed later reads as unknown, so it is still refused, though without
// revoking its family. Family marks evict the same way; nothing evicted is ever accepted in place of another.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { ExpiringMap } from '../../stores/memory/expiring-map.js';
import type { RefreshTokenRecord, RefreshTokenStore } from './refresh-tokens.js';

export const DEFAULT_REFRESH_TOKEN_MAX_ENTRIES = 100_000;

export interface MemoryRefreshTokenStoreOptions {
  /** Tokens kept at most, and revoked-family marks kept at most. Default 100000. */
  maxEntries?: number;
}

/** A revoked family: tokens created in it before `expiresAt` are revoked from the start. */
interface FamilyMark {
  revokedAt: number;
  expiresAt: number;
}

function copyToken(record: RefreshTokenRecord): RefreshTokenRecord {
  return { ...record, amr: [...record.amr] };
}

/** The keys of MemoryRefreshTokenStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemoryRefreshTokenStoreOptions>({ maxEntries: true });

export class MemoryRefreshTokenStore implements RefreshTokenStore {
  private readonly tokens: ExpiringMap<RefreshTokenRecord, 'user' | 'family'>;
  private readonly revokedFamilies: ExpiringMap<FamilyMark>;
  /** When each user's tokens were last revoked: a token created since, but dated at or before, is born revoked. */
  private readonly revokedUsers: ExpiringMap<number>;

  constructor(options: MemoryRefreshTokenStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryRefreshTokenStore');
    this.tokens = new ExpiringMap<RefreshTokenRecord, 'user' | 'family'>({
      owner: 'MemoryRefreshTokenStore',
      maxEntries: options.maxEntries,
      defaultMaxEntries: DEFAULT_REFRESH_TOKEN_MAX_ENTRIES,
      expiresAt: (record) => record.expiresAt,
      indexes: { user: (record) => record.userId, family: (record) => record.familyId },
    });
    const maxEntries = this.tokens.maxEntries;
    this.revokedFamilies = new ExpiringMap<FamilyMark>({
      owner: 'MemoryRefreshTokenStore',
      maxEntries,
      defaultMaxEntries: maxEntries,
      expiresAt: (mark) => mark.expiresAt,
    });
    // Marks only matter to tokens dated before them (races of a few seconds): they never expire, the oldest
    // go first when full.
    this.revokedUsers = new ExpiringMap<number>({
      owner: 'MemoryRefreshTokenStore',
      maxEntries,
      defaultMaxEntries: maxEntries,
      expiresAt: () => Number.POSITIVE_INFINITY,
    });
  }

  get maxEntries(): number {
    return this.tokens.maxEntries;
  }

  /** Tokens currently held (expired ones included until swept). */
  get size(): number {
    return this.tokens.size;
  }

  async create(tokenHash: string, record: RefreshTokenRecord): Promise<void> {
    const now = record.createdAt;
    const stored = copyToken(record);
    const mark = this.revokedFamilies.peek(record.familyId);
    if (mark !== undefined && mark.expiresAt <= now) this.revokedFamilies.delete(record.familyId);
    else if (mark !== undefined) {
      // A rotation that raced the reuse which revoked the family: born revoked.
      stored.revokedAt ??= mark.revokedAt;
      mark.expiresAt = Math.max(mark.expiresAt, record.expiresAt);
    }
    const userMark = this.revokedUsers.peek(record.userId);
    // A rotation or sign-in that began before a password reset and finishes after it: born revoked.
    if (userMark !== undefined && record.createdAt <= userMark) stored.revokedAt ??= userMark;
    this.tokens.set(tokenHash, stored, now);
  }

  async get(tokenHash: string, now: number): Promise<RefreshTokenRecord | undefined> {
    const record = this.tokens.get(tokenHash, now);
    return record === undefined ? undefined : copyToken(record);
  }

  // No await: the check and the mark happen in one step, so of concurrent calls exactly one wins.
  async markUsed(tokenHash: string, now: number): Promise<boolean> {
    const record = this.tokens.get(tokenHash, now);
    if (record === undefined) return false;
    if (record.usedAt !== undefined || record.revokedAt !== undefined) return false;
    record.usedAt = now;
    return true;
  }

  async revokeFamily(familyId: string, now: number, until: number): Promise<void> {
    let lastExpiry = until;
    for (const tokenHash of this.tokens.keysBy('family', familyId)) {
      const record = this.tokens.peek(tokenHash);
      if (record === undefined) continue;
      record.revokedAt ??= now;
      lastExpiry = Math.max(lastExpiry, record.expiresAt);
    }
    const mark = this.revokedFamilies.peek(familyId);
    // Raising a mark's expiry in place keeps the store's earliest-expiry bound a lower bound.
    if (mark !== undefined) mark.expiresAt = Math.max(mark.expiresAt, lastExpiry);
    else this.revokedFamilies.set(familyId, { revokedAt: now, expiresAt: lastExpiry }, now);
  }

  async revokeUser(userId: string, now: number): Promise<void> {
    for (const tokenHash of this.tokens.keysBy('user', userId)) {
      const record = this.tokens.peek(tokenHash);
      if (record !== undefined) record.revokedAt ??= now;
    }
    this.revokedUsers.set(userId, now, now);
  }
}
