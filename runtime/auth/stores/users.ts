// The user-source contract. The application supplies it; svc only hashes
// passwords and asks. Email is the sign-in identity and matches case-insensitively.

export interface AuthUser {
  id: string;
  /** Compared case-insensitively; svc stores and looks up the trimmed, lower-cased address. */
  email: string;
  /**
   * A PHC scrypt string (password.ts); absent for passwordless accounts (social login). A source that answers
   * null or '' instead is read the same way: no password.
   */
  passwordHash?: string;
  emailVerified: boolean;
}

/** What the API, events and the request context show of a user: never the hash. */
export interface PublicUser {
  id: string;
  email: string;
  emailVerified: boolean;
}

export interface NewUser {
  email: string;
  passwordHash?: string;
  emailVerified?: boolean;
}

/** What `update` changes: an absent field is left as it is. */
export interface UserPatch {
  email?: string;
  /**
   * A new hash, or null to remove the password: the answer then has no `passwordHash` (the account signs in
   * only another way). Social sign-in relies on it when an account's email owner takes it over from whoever
   * opened it, and refuses the takeover (AUTH_UPDATE_UNSUPPORTED) when the answer still has a hash.
   */
  passwordHash?: string | null;
  emailVerified?: boolean;
}

export interface UserSource {
  /**
   * The user whose email equals `email` ignoring case, or null. Several rows that differ only in case make
   * the identity ambiguous: throw `errors.AUTH_EMAIL_AMBIGUOUS()` rather than pick one.
   */
  findByEmail(email: string): Promise<AuthUser | null>;
  findById(id: string): Promise<AuthUser | null>;
  /** `passwordHash` is already computed. An email taken (ignoring case) throws `errors.AUTH_EMAIL_TAKEN()`. */
  create(user: NewUser): Promise<AuthUser>;
  /**
   * Optional; email verification and password reset need it (else AUTH_UPDATE_UNSUPPORTED). Answers the user as
   * updated, or null for no such id. `passwordHash: null` removes the password (see UserPatch).
   */
  update?(id: string, patch: UserPatch): Promise<AuthUser | null>;
  /**
   * Optional bulk lookup: one PublicUser per found id in the order of `ids`, unknown ids omitted, duplicates
   * collapsed to one entry, never a hash; an empty list answers [] without touching storage.
   */
  findByIds?(ids: readonly string[]): Promise<PublicUser[]>;
}

/** The public part of a user record; never copies the hash. */
export function publicUser(user: AuthUser | PublicUser): PublicUser {
  return { id: user.id, email: user.email, emailVerified: user.emailVerified };
}

/** The form svc stores and looks emails up in. */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
