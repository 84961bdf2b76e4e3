// The refresh-token store contract (docs/auth.md, "Stores"). Keys are the SHA-256
// of the opaque token. Every token belongs to a family (one sign-in and its rotations); a reuse revokes the
// family. Revoked records stay until they expire, so a replay of a spent token is still recognised.

export interface RefreshTokenRecord {
  userId: string;
  familyId: string;
  /** The sign-in's methods, carried into every access token the family issues. */
  amr: string[];
  createdAt: number;
  /** Unix ms; the store answers undefined from then on. */
  expiresAt: number;
  /** Set by the one markUsed call that won. */
  usedAt?: number;
  /** Set when the family was revoked (reuse, logout, password reset). */
  revokedAt?: number;
}

export interface RefreshTokenStore {
  create(tokenHash: string, record: RefreshTokenRecord): Promise<void>;
  /** The record (used or revoked ones included), or undefined when unknown or expired at `now`. */
  get(tokenHash: string, now: number): Promise<RefreshTokenRecord | undefined>;
  /**
   * Compare-and-swap: marks the token used at `now` and returns true only when it was unused, not revoked and
   * not expired. Of any number of concurrent calls for one token, exactly one returns true.
   */
  markUsed(tokenHash: string, now: number): Promise<boolean>;
  /**
   * Marks every record of the family revoked at `now`, and the family itself: a token created in it later
   * (a rotation racing the reuse that revoked it) is revoked from the start. The family mark lasts at least
   * as long as the family's longest-lived record.
   */
  revokeFamily(familyId: string, now: number, until: number): Promise<void>;
  /**
   * Marks every record of the user revoked at `now` (password reset), and the user: a record created later
   * but dated (`createdAt`) at or before `now` is revoked from the start. That is a rotation or a sign-in
   * that began before the reset and finished after it.
   */
  revokeUser(userId: string, now: number): Promise<void>;
}
