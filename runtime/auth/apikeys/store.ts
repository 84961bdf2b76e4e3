// The API-key store contract (docs/stores.md, "API keys"). A key is stored as the SHA-256 of its plain form,
// with what a page shows of it. Every step that must happen at most so often is one atomic operation in every
// implementation (one SQL statement or transaction, one synchronous map update in memory): an owner's keys
// are counted and a new one inserted in one step, and a key is removed once.

/** A stored key. Never holds the plain key. */
export interface ApiKeyRecord {
  /** A UUID. */
  id: string;
  /** SHA-256 of the plain key, unpadded base64url. Unique. */
  hash: string;
  /** What its owner called it; '' when they gave no name. */
  name: string;
  /** `mk_live_` and the first four characters of the secret part. */
  start: string;
  /** The last four characters of the key. */
  last4: string;
  /** What the key may do (`reports:read`, or `*` for everything). */
  scopes: string[];
  /** The tenant it was issued in; undefined for a key that belongs to no tenant. */
  tenantId: string | undefined;
  /** The user it acts for; undefined for a key of no user. */
  userId: string | undefined;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms from which it is refused; undefined for a key that does not expire. */
  expiresAt: number | undefined;
  /** Unix ms of a recent use (kept to a minute or so, not per request); undefined before the first. */
  lastUsedAt: number | undefined;
}

/**
 * Whose keys: `undefined` (absent) matches any value, `null` only keys without one, a string only that one.
 * The routes list a caller's keys with both set: `{ userId, tenantId: tenant ?? null }`.
 */
export interface ApiKeyFilter {
  userId?: string | null;
  tenantId?: string | null;
}

/** What `add` did: stored it, or not because its owner (user and tenant) holds `maxPerOwner` live keys. */
export type ApiKeyAddResult = 'added' | 'full';

export interface ApiKeyStore {
  /**
   * Stores `record` unless the keys of its owner (the same userId and tenantId, either possibly none) that are
   * not expired at `now` number `maxPerOwner` already ('full'; nothing changes). The count and the insert are one step:
   * concurrent adds for one owner never leave more than `maxPerOwner` live keys.
   */
  add(record: ApiKeyRecord, maxPerOwner: number, now: number): Promise<ApiKeyAddResult>;
  /** The key with this hash (a copy), or undefined. */
  findByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  /** The key with this id (a copy), or undefined. */
  get(id: string): Promise<ApiKeyRecord | undefined>;
  /** The keys `filter` matches (copies), expired ones included, oldest first. */
  list(filter: ApiKeyFilter): Promise<ApiKeyRecord[]>;
  /**
   * Deletes the key; with `owner`, only when it matches the key as a filter does. False when nothing was
   * deleted (unknown, already removed, or another owner's).
   */
  remove(id: string, owner?: ApiKeyFilter): Promise<boolean>;
  /**
   * Deletes every key of the user, in every tenant and in none, expired ones included, in one atomic step (a
   * password reset revokes them all). Answers how many were deleted; 0 for a user without keys.
   */
  removeByUser(userId: string): Promise<number>;
  /** lastUsedAt := `at`, unless the stored one is already `at` or later (a write that lost a race changes nothing). */
  touch(id: string, at: number): Promise<void>;
}
