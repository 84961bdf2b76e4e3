// The verification/reset token store contract (docs/auth.md, "Stores"). Keys are the SHA-256 of the token sent by mail; a token works once, before it expires, and only
// for the purpose it was made for.

export type OneTimeTokenPurpose = 'verify-email' | 'reset-password';

export interface OneTimeTokenRecord {
  purpose: OneTimeTokenPurpose;
  userId: string;
  /** The address the token was sent to; verifying an email that changed since must not succeed. */
  email: string;
  createdAt: number;
  expiresAt: number;
  /** Set by the one consume call that won. */
  usedAt?: number;
}

export interface OneTimeTokenStore {
  create(tokenHash: string, record: OneTimeTokenRecord): Promise<void>;
  /**
   * Compare-and-swap: marks the token used and returns its record only when it exists, has `purpose`, is
   * unused and has not expired at `now`; otherwise undefined and nothing changes. Of concurrent calls for one
   * token, exactly one gets the record.
   */
  consume(
    tokenHash: string,
    purpose: OneTimeTokenPurpose,
    now: number,
  ): Promise<OneTimeTokenRecord | undefined>;
  /** Forgets every unused token of the user for `purpose` (a password reset voids older reset links). */
  deleteByUser(userId: string, purpose: OneTimeTokenPurpose): Promise<void>;
}
