// Passkeys (WebAuthn) for one service: the registration and sign-in ceremonies, the user's list, removal.
// The service owns every rule of the ceremony: the challenge (random, single use, bound to the caller's
// session key and, for a registration, to the user it was started for), which account a credential may sign
// in, and the signature counter, moved by a compare-and-set from the value the assertion was verified against.
// Only the cryptography is delegated, to a WebauthnVerifier (svckit's default is on @simplewebauthn/server).
import { randomBytes } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { MemoryChallengeStore, MemoryPasskeyStore } from './memory-store.js';
import type { ChallengeStore, PasskeyCredential, PasskeyStore, WebauthnChallenge } from './store.js';
import type { WebauthnExpectations, WebauthnVerifier } from './verifier.js';

export type UserVerification = 'required' | 'preferred' | 'discouraged';

export interface PasskeyConfig {
  /** The relying party id: the site's registrable domain (`example.com`), or `localhost`. */
  rpId: string;
  /** The name authenticators show. */
  rpName: string;
  /** The origin(s) pages run the ceremony from, each on `rpId` or a subdomain of it. */
  origin: string | readonly string[];
}

export interface PasskeyServiceOptions {
  config: PasskeyConfig;
  verifier: WebauthnVerifier;
  /** Default: in memory (this process, lost on restart). */
  credentials?: PasskeyStore;
  /** Default: in memory. */
  challenges?: ChallengeStore;
  /** Default 'preferred'; 'required' when a passkey is the only factor. */
  userVerification?: UserVerification;
  /** How long a started ceremony may take, ms. Default 5 minutes. */
  challengeTtlMs?: number;
  /** Unix ms now. Default Date.now. */
  clock?: () => number;
}

const OPTIONS = optionKeys<PasskeyServiceOptions>({
  config: true,
  verifier: true,
  credentials: true,
  challenges: true,
  userVerification: true,
  challengeTtlMs: true,
  clock: true,
});

const CONFIG = optionKeys<PasskeyConfig>({ rpId: true, rpName: true, origin: true });

const OWNER = 'webauthnPlugin';
const DEFAULT_CHALLENGE_TTL_MS = 5 * 60_000;
/** A label longer than this is cut: it is shown in lists, not stored as a document. */
const MAX_LABEL_LENGTH = 64;
/** ES256 first (every authenticator), then RS256 (Windows Hello). */
const ALGORITHMS = [-7, -257] as const;
/** Passkeys one account may hold: its list, and the browser's exclude list, stay short. */
const MAX_PASSKEYS_PER_USER = 20;
/** A credential id is at most 1023 bytes (WebAuthn); longer is refused before it reaches a store. */
const MAX_CREDENTIAL_ID_BYTES = 1023;
/** The transports WebAuthn names; others are dropped, and a list is kept to this many. */
const TRANSPORTS = new Set(['usb', 'nfc', 'ble', 'smart-card', 'hybrid', 'internal']);
const MAX_TRANSPORTS = TRANSPORTS.size;

/** A passkey as its owner sees it: never the public key. */
export interface PasskeyView {
  id: string;
  label: string;
  transports: string[];
  createdAt: number;
  lastUsedAt: number | undefined;
}

/** What `navigator.credentials.create({ publicKey })` takes, as JSON (binary fields base64url). */
export interface PasskeyRegistrationOptions {
  challenge: string;
  rp: { id: string; name: string };
  user: { id: string; name: string; displayName: string };
  pubKeyCredParams: { type: 'public-key'; alg: number }[];
  timeout: number;
  attestation: 'none';
  authenticatorSelection: {
    residentKey: 'required';
    requireResidentKey: true;
    userVerification: UserVerification;
  };
  excludeCredentials: { type: 'public-key'; id: string; transports: string[] }[];
}

/** What `navigator.credentials.get({ publicKey })` takes, as JSON. */
export interface PasskeyAuthenticationOptions {
  challenge: string;
  rpId: string;
  timeout: number;
  userVerification: UserVerification;
  /** Empty: the browser offers every passkey it holds for the site (sign-in without a name). */
  allowCredentials: { type: 'public-key'; id: string; transports: string[] }[];
}

export interface PasskeySignIn {
  userId: string;
  credentialId: string;
  /** Whether the authenticator verified the person (PIN, biometrics): a second factor in itself. */
  userVerified: boolean;
}

export class PasskeyService {
  readonly rpId: string;
  readonly rpName: string;
  readonly origins: readonly string[];
  readonly userVerification: UserVerification;
  private readonly verifier: WebauthnVerifier;
  private readonly credentials: PasskeyStore;
  private readonly challenges: ChallengeStore;
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: PasskeyServiceOptions) {
    if (typeof options !== 'object' || options === null) throw invalidOptions(OWNER);
    rejectUnknownOptions(options, OPTIONS, OWNER);
    const config = checkConfig(options.config);
    this.rpId = config.rpId;
    this.rpName = config.rpName;
    this.origins = config.origins;
    const verifier = options.verifier as Partial<WebauthnVerifier> | undefined;
    if (
      typeof verifier?.verifyRegistration !== 'function' ||
      typeof verifier.verifyAuthentication !== 'function'
    ) {
      throw invalidOption(OWNER, 'verifier', 'a WebauthnVerifier (verifyRegistration, verifyAuthentication)');
    }
    this.verifier = options.verifier;
    this.credentials = options.credentials ?? new MemoryPasskeyStore();
    // Without the compare-and-set, two sign-ins with one assertion (or a clone) could both pass.
    if (typeof (this.credentials as Partial<PasskeyStore>).updateCounter !== 'function') {
      throw errors.PASSKEY_STORE_OUTDATED();
    }
    this.challenges = options.challenges ?? new MemoryChallengeStore();
    const verification = options.userVerification ?? 'preferred';
    if (!['required', 'preferred', 'discouraged'].includes(verification)) {
      throw invalidOption(OWNER, 'userVerification', "'required', 'preferred' or 'discouraged'");
    }
    this.userVerification = verification;
    const ttl = options.challengeTtlMs ?? DEFAULT_CHALLENGE_TTL_MS;
    if (!Number.isSafeInteger(ttl) || ttl < 1_000) {
      throw invalidOption(OWNER, 'challengeTtlMs', 'a whole number of milliseconds, 1000 or more');
    }
    this.ttlMs = ttl;
    this.now = options.clock ?? Date.now;
  }

  /** Starts registering a passkey for `user`; the challenge is bound to `sessionKey` and to `user.id`. */
  async startRegistration(
    sessionKey: string,
    user: { id: string; name: string; displayName?: string },
  ): Promise<PasskeyRegistrationOptions> {
    const challenge = await this.issue(sessionKey, 'registration', user.id);
    const existing = await this.credentials.listByUser(user.id);
    return {
      challenge,
      rp: { id: this.rpId, name: this.rpName },
      user: { id: userHandleOf(user.id), name: user.name, displayName: user.displayName ?? user.name },
      pubKeyCredParams: ALGORITHMS.map((alg) => ({ type: 'public-key' as const, alg })),
      timeout: this.ttlMs,
      attestation: 'none',
      authenticatorSelection: {
        residentKey: 'required',
        requireResidentKey: true,
        userVerification: this.userVerification,
      },
      // The browser refuses to register a second passkey on an authenticator that holds one of these.
      excludeCredentials: existing.map(descriptor),
    };
  }

  /**
   * Finishes the registration started under `sessionKey`: for `userId` only (another user → 403
   * WEBAUTHN_SUBJECT_MISMATCH), once, before the challenge expires. A credential id registered already, to
   * anyone, is refused (409 PASSKEY_EXISTS).
   */
  async finishRegistration(
    sessionKey: string,
    userId: string,
    response: unknown,
    label?: string,
  ): Promise<PasskeyView> {
    const challenge = await this.take(sessionKey, 'registration');
    if (challenge.userId !== userId) throw errors.WEBAUTHN_SUBJECT_MISMATCH();
    const verified = await this.verifier.verifyRegistration(response, this.expectations(challenge));
    if (!verified.verified) throw errors.WEBAUTHN_VERIFICATION_FAILED({ status: 400 });
    const { credential } = verified;
    if (!isCredentialId(credential.id) || !isCounter(credential.counter)) {
      throw errors.WEBAUTHN_VERIFICATION_FAILED({ status: 400 });
    }
    const now = this.now();
    const stored: PasskeyCredential = {
      id: credential.id,
      userId,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: [...new Set(credential.transports)]
        .filter((transport) => TRANSPORTS.has(transport))
        .slice(0, MAX_TRANSPORTS),
      label: labelOf(label, now),
      createdAt: now,
      lastUsedAt: undefined,
    };
    const added = await this.credentials.add(stored, MAX_PASSKEYS_PER_USER);
    if (added === 'taken') throw errors.PASSKEY_EXISTS();
    if (added === 'full') throw errors.PASSKEY_LIMIT_REACHED();
    return viewOf(stored);
  }

  /**
   * Starts a sign-in. Naming `userId` refuses any other account's passkey at finish. The options list no
   * passkeys either way (listing a user's would tell that the account exists): every passkey is
   * discoverable, so the browser offers those it holds for the site.
   */
  async startAuthentication(sessionKey: string, userId?: string): Promise<PasskeyAuthenticationOptions> {
    const challenge = await this.issue(sessionKey, 'authentication', userId);
    return {
      challenge,
      rpId: this.rpId,
      timeout: this.ttlMs,
      userVerification: this.userVerification,
      allowCredentials: [],
    };
  }

  /**
   * Finishes the sign-in started under `sessionKey`: the assertion must verify against the stored credential
   * it names, and its counter must move the stored one forward (401 PASSKEY_CLONED otherwise, and when a
   * concurrent sign-in moved it first).
   */
  async finishAuthentication(sessionKey: string, response: unknown): Promise<PasskeySignIn> {
    const challenge = await this.take(sessionKey, 'authentication');
    const id = credentialIdOf(response);
    const credential = id === undefined ? undefined : await this.credentials.get(id);
    if (credential === undefined) throw errors.WEBAUTHN_VERIFICATION_FAILED();
    // The authenticator names the account it signed for: it must be the credential's owner. A sign-in
    // started without naming a user learns the user from it, so there it must be present.
    const handle = userHandleIn(response);
    if (handle === undefined ? challenge.userId === undefined : handle !== userHandleOf(credential.userId)) {
      throw errors.WEBAUTHN_VERIFICATION_FAILED();
    }
    const verified = await this.verifier.verifyAuthentication(response, this.expectations(challenge), {
      id: credential.id,
      publicKey: credential.publicKey,
      counter: credential.counter,
      transports: credential.transports,
    });
    if (!verified.verified || !isCounter(verified.newCounter)) throw errors.WEBAUTHN_VERIFICATION_FAILED();
    // Only once the signature holds: a credential id alone must not tell whose passkey it is.
    if (challenge.userId !== undefined && credential.userId !== challenge.userId) {
      throw errors.WEBAUTHN_SUBJECT_MISMATCH();
    }
    const moved = await this.moveCounter(credential, verified.newCounter);
    // Removed while the sign-in was verified: as unknown as a credential that was never registered.
    if (moved === 'gone') throw errors.WEBAUTHN_VERIFICATION_FAILED();
    if (moved === 'refused') throw errors.PASSKEY_CLONED();
    return { userId: credential.userId, credentialId: credential.id, userVerified: verified.userVerified };
  }

  /** The user's passkeys, oldest first. */
  async list(userId: string): Promise<PasskeyView[]> {
    return (await this.credentials.listByUser(userId)).map(viewOf);
  }

  /** Removes one of the user's passkeys; an unknown id or another user's is 404 PASSKEY_NOT_FOUND. */
  async remove(userId: string, credentialId: string): Promise<void> {
    if (!(await this.credentials.remove(userId, credentialId))) throw errors.PASSKEY_NOT_FOUND();
  }

  /**
   * Moves the stored counter to `next` by compare-and-set. An authenticator that keeps no counter reports 0
   * every time; a counter in use must go up. Lost to a concurrent sign-in, the counter is read once more: a
   * later assertion of the same authenticator (a higher counter) still goes through, a clone's does not.
   */
  private async moveCounter(
    credential: PasskeyCredential,
    next: number,
  ): Promise<'moved' | 'refused' | 'gone'> {
    let stored = credential.counter;
    for (let attempt = 0; attempt < 2; attempt++) {
      const counterless = next === 0 && stored === 0;
      if (!counterless && next <= stored) return 'refused';
      if (await this.credentials.updateCounter(credential.id, stored, next, this.now())) return 'moved';
      const now = await this.credentials.get(credential.id);
      if (now === undefined) return 'gone';
      stored = now.counter;
    }
    return 'refused';
  }

  private async issue(sessionKey: string, kind: CeremonyKind, userId: string | undefined): Promise<string> {
    checkSessionKey(sessionKey);
    const challenge = randomBytes(32).toString('base64url');
    await this.challenges.put(keyOf(kind, sessionKey), {
      challenge,
      userId,
      expiresAt: this.now() + this.ttlMs,
    });
    return challenge;
  }

  /** The challenge of the caller's ceremony, taken (single use); 400 WEBAUTHN_CHALLENGE_INVALID without one. */
  private async take(sessionKey: string, kind: CeremonyKind): Promise<WebauthnChallenge> {
    checkSessionKey(sessionKey);
    const challenge = await this.challenges.take(keyOf(kind, sessionKey), this.now());
    if (challenge === undefined) throw errors.WEBAUTHN_CHALLENGE_INVALID();
    return challenge;
  }

  private expectations(challenge: WebauthnChallenge): WebauthnExpectations {
    return {
      challenge: challenge.challenge,
      origins: this.origins,
      rpId: this.rpId,
      requireUserVerification: this.userVerification === 'required',
      algorithms: ALGORITHMS,
    };
  }
}

/**
 * The passkey service for `options`: give it to `new Auth({ passkeys })`, whose plugin then serves the passkey
 * routes (`modules.auth.passkeys` in svc.config.yaml does both, with svckit's default verifier).
 */
export function webauthnPlugin(options: PasskeyServiceOptions): PasskeyService {
  return new PasskeyService(options);
}

type CeremonyKind = 'registration' | 'authentication';

/** One ceremony of each kind per session key: starting another replaces the earlier challenge. */
function keyOf(kind: CeremonyKind, sessionKey: string): string {
  return `${kind}:${sessionKey}`;
}

function checkSessionKey(sessionKey: string): void {
  if (typeof sessionKey !== 'string' || sessionKey === '' || sessionKey.length > 512) {
    throw new TypeError(`${OWNER}: the session key must be a non-empty string of at most 512 characters.`);
  }
}

/** WebAuthn's user handle for an account: its id's UTF-8 bytes, base64url. */
function userHandleOf(userId: string): string {
  return Buffer.from(userId, 'utf8').toString('base64url');
}

function isCounter(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/** A base64url credential id of 1 to 1023 bytes. */
function isCredentialId(id: unknown): id is string {
  if (typeof id !== 'string' || !/^[A-Za-z0-9_-]+$/.test(id)) return false;
  const bytes = Buffer.from(id, 'base64url');
  return bytes.length >= 1 && bytes.length <= MAX_CREDENTIAL_ID_BYTES && bytes.toString('base64url') === id;
}

function credentialIdOf(response: unknown): string | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const id = (response as { id?: unknown }).id;
  return isCredentialId(id) ? id : undefined;
}

function userHandleIn(response: unknown): string | undefined {
  if (typeof response !== 'object' || response === null) return undefined;
  const inner = (response as { response?: unknown }).response;
  if (typeof inner !== 'object' || inner === null) return undefined;
  const handle = (inner as { userHandle?: unknown }).userHandle;
  return typeof handle === 'string' && handle !== '' ? handle : undefined;
}

function labelOf(label: string | undefined, now: number): string {
  const trimmed = typeof label === 'string' ? label.trim() : '';
  if (trimmed !== '') return [...trimmed].slice(0, MAX_LABEL_LENGTH).join('');
  return `Passkey added ${new Date(now).toISOString().slice(0, 10)}`;
}

function descriptor(credential: PasskeyCredential): { type: 'public-key'; id: string; transports: string[] } {
  return { type: 'public-key', id: credential.id, transports: [...credential.transports] };
}

function viewOf(credential: PasskeyCredential): PasskeyView {
  return {
    id: credential.id,
    label: credential.label,
    transports: [...credential.transports],
    createdAt: credential.createdAt,
    lastUsedAt: credential.lastUsedAt,
  };
}

/** The relying party, checked: every origin an `https:` one (or `http:` on localhost) on rpId or below it. */
function checkConfig(config: unknown): { rpId: string; rpName: string; origins: string[] } {
  if (typeof config !== 'object' || config === null) {
    throw invalidOption(OWNER, 'config', 'an object { rpId, rpName, origin }');
  }
  rejectUnknownOptions(config, CONFIG, `${OWNER} config`);
  const { rpId, rpName, origin } = config as Partial<PasskeyConfig>;
  if (
    typeof rpId !== 'string' ||
    !/^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/.test(rpId)
  ) {
    throw invalidOption(
      OWNER,
      'config.rpId',
      'a lowercase host name without scheme or port (example.com, localhost)',
    );
  }
  if (typeof rpName !== 'string' || rpName.trim() === '') {
    throw invalidOption(OWNER, 'config.rpName', 'a non-empty string');
  }
  const list = typeof origin === 'string' ? [origin] : origin;
  if (!Array.isArray(list) || list.length === 0) {
    throw invalidOption(OWNER, 'config.origin', 'an origin or a non-empty list of origins');
  }
  const origins = list.map((entry: unknown) => checkOrigin(entry, rpId));
  return { rpId, rpName, origins };
}

function checkOrigin(entry: unknown, rpId: string): string {
  const expected = `https://${rpId} or a subdomain (http: only for localhost)`;
  if (typeof entry !== 'string') throw invalidOption(OWNER, 'config.origin', expected);
  let url: URL;
  try {
    url = new URL(entry);
  } catch {
    throw invalidOption(OWNER, 'config.origin', expected, `got ${JSON.stringify(entry)}`);
  }
  const host = url.hostname;
  const secure = url.protocol === 'https:' || (url.protocol === 'http:' && host === 'localhost');
  const onRp = host === rpId || host.endsWith(`.${rpId}`);
  // The browser reports the origin exactly: scheme, host and port, nothing else.
  if (!secure || !onRp || url.origin !== entry) {
    throw invalidOption(OWNER, 'config.origin', expected, `got ${JSON.stringify(entry)}`);
  }
  return entry;
}
