// The passkey store contracts (docs/stores.md, "Passkeys"): the credentials a user registered, and the
// challenges of ceremonies in progress. Every step that must happen once is one atomic operation in every
// implementation (one SQL statement, one Redis command or script, one synchronous map update in memory),
// never a read followed by a write: a credential id is registered once across all users, a challenge is taken
// once, and a sign-in moves a credential's counter only from the value it was verified against.
// Credentials are durable (losing one locks its owner out of that sign-in method): memory or the database,
// never Redis. Challenges live minutes: memory, the database or Redis.

/** A registered passkey. */
export interface PasskeyCredential {
  /** The credential id the authenticator chose, base64url. Unique across every user. */
  id: string;
  userId: string;
  /** The COSE public key, base64url. */
  publicKey: string;
  /** The signature counter last accepted; 0 for an authenticator that keeps none. */
  counter: number;
  /** How the authenticator was reached (`internal`, `usb`, `hybrid`, …), as the browser reported it. */
  transports: string[];
  /** The device label the user gave, or one made at registration. */
  label: string;
  /** Unix ms. */
  createdAt: number;
  /** Unix ms of the last sign-in with it; undefined before the first. */
  lastUsedAt: number | undefined;
}

/** What `add` did: registered it, or not because the id is taken (by anyone) or its user holds `maxPerUser`. */
export type PasskeyAddResult = 'added' | 'taken' | 'full';

export interface PasskeyStore {
  /**
   * Registers `credential` unless its id is registered already, to any user ('taken', whatever the count), or
   * its user holds `maxPerUser` credentials already ('full'); nothing changes then. The count and the insert are one step:
   * concurrent adds for one user never leave more than `maxPerUser`.
   */
  add(credential: PasskeyCredential, maxPerUser: number): Promise<PasskeyAddResult>;
  /** The credential with this id (a copy), or undefined. */
  get(id: string): Promise<PasskeyCredential | undefined>;
  /** The user's credentials (copies), oldest first. */
  listByUser(userId: string): Promise<PasskeyCredential[]>;
  /**
   * The compare-and-set of a sign-in: counter := `next` and lastUsedAt := `now`, only while the stored counter
   * is still `expected`. False when it is not (another sign-in moved it first) or the credential is gone.
   */
  updateCounter(id: string, expected: number, next: number, now: number): Promise<boolean>;
  /** Deletes the credential only when `userId` owns it; false otherwise (unknown or another user's). */
  remove(userId: string, id: string): Promise<boolean>;
}

/**
 * What a ceremony in progress remembers until it finishes. Which ceremony it is is in the key it is kept under
 * (the passkey service keeps registrations and sign-ins apart), not in the record.
 */
export interface WebauthnChallenge {
  /** The random challenge sent to the browser, base64url. */
  challenge: string;
  /**
   * The user the ceremony is bound to: always for a registration; for an authentication only when it was
   * started naming one.
   */
  userId: string | undefined;
  /** Unix ms after which it is refused. */
  expiresAt: number;
}

export interface ChallengeStore {
  /** Keeps `challenge` under `key`, replacing whatever was there; gone at `expiresAt` at the latest. */
  put(key: string, challenge: WebauthnChallenge): Promise<void>;
  /**
   * Takes the challenge under `key`: answers and deletes it in one step, so that of concurrent calls one at
   * most gets it. Undefined when there is none, or it expired by `now` (deleted all the same).
   */
  take(key: string, now: number): Promise<WebauthnChallenge | undefined>;
}
