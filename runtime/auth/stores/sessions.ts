// The session-store contract (docs/auth.md, "Stores"). Keys are the SHA-256 of the session id
// (secrets at rest are hashes), so a leaked store cannot be replayed as cookies.

export interface SessionRecord {
  userId: string;
  /** How the user signed in; the signed session id carries the same list. */
  amr: string[];
  createdAt: number;
  /** Unix ms; the store answers undefined from then on. */
  expiresAt: number;
}

export interface SessionStore {
  create(idHash: string, record: SessionRecord): Promise<void>;
  /** The record, or undefined when unknown, deleted or expired at `now`. */
  get(idHash: string, now: number): Promise<SessionRecord | undefined>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of a user (password reset); returns how many ended. */
  deleteByUser(userId: string): Promise<number>;
}
