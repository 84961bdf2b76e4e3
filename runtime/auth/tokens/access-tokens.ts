// Access tokens: HS256 JWTs typed `at+jwt` (RFC 9068) carrying `sub`,
// `amr`, `iat`, `exp` and, when configured, `iss`, signed with a key derived from the signing secret.
// Verifying one with jose costs more than a whole request, so verified tokens are cached.
//
// Why the cache is safe: only tokens that passed full verification are stored; the key is the whole token
// string, so a token differing in any byte (header, payload or signature) misses and goes through jose;
// only the one canonical spelling of a token is accepted (canonical.ts), checked before the cache, so a
// token cannot be presented under many keys; every hit re-checks `exp` against the clock, so a cached
// token expires exactly when jose would say so; and the cache holds at most `cacheSize` entries, evicting
// the oldest insertion first (FIFO, so a hit stays a bare Map lookup). What it does not do: revocation.
// Access tokens are stateless for their lifetime (15 minutes by default) with or without the cache; logout
// and password resets end refresh tokens and sessions, and an access token already issued runs until its
// `exp`.
import { createSecretKey, type KeyObject } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { errors } from '../../../generated/modules/errors.js';
import { assertAmrList, isAmrList } from './amr.js';
import { isCanonicalCompactJws } from './canonical.js';
import { KEY_PURPOSES, assertSigningSecret, deriveKey } from './secret.js';
import { invalidOption } from '../../config/option-errors.js';

/** Tokens longer than this are refused before any parsing. */
export const MAX_ACCESS_TOKEN_LENGTH = 4096;
export const DEFAULT_ACCESS_TOKEN_TTL_MS = 15 * 60 * 1000;
export const DEFAULT_ACCESS_TOKEN_CACHE_SIZE = 10_000;

const ALGORITHM = 'HS256';
/** RFC 9068's media type for JWT access tokens; jose also accepts `application/at+jwt`. */
const TOKEN_TYPE = 'at+jwt';
const MAX_SUBJECT_LENGTH = 256;

export interface AccessTokensOptions {
  /** The signing secret; the JWT key is derived from it (deriveKey, KEY_PURPOSES.accessToken). */
  secret: string;
  /** Lifetime of a new token in ms. Default 15 minutes; at least one second. */
  ttlMs?: number;
  /** Unix ms now. Default Date.now. */
  clock?: () => number;
  /** Most verified tokens kept in memory. Default 10 000; 0 disables the cache. */
  cacheSize?: number;
  /** Written to `iss` when signing and then required when verifying. */
  issuer?: string;
  /** Read for the secret-strength rule (assertSigningSecret). Default process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
}

export interface AccessTokenSubject {
  userId: string;
  amr: readonly string[];
  /**
   * The user's address and its verification (OIDC's `email`, `email_verified` claims), so a request can show
   * its user without a lookup. As fresh as the token: a refresh carries the current values.
   */
  email?: string;
  emailVerified?: boolean;
}

export interface VerifiedAccessToken {
  userId: string;
  amr: string[];
  /** Present when the token was signed with them. */
  email?: string;
  emailVerified?: boolean;
  /** The token's `exp`, in unix ms. */
  expiresAt: number;
}

const isSubject = (value: unknown): value is string =>
  typeof value === 'string' && value.length > 0 && value.length <= MAX_SUBJECT_LENGTH;

/** The claims svc needs from a payload jose accepted, or undefined when `sub`, `amr` or `exp` is unusable. */
function claimsOf(payload: JWTPayload): VerifiedAccessToken | undefined {
  const { sub, amr, exp, email, email_verified: emailVerified } = payload;
  if (!isSubject(sub) || !isAmrList(amr) || typeof exp !== 'number' || !Number.isSafeInteger(exp)) {
    return undefined;
  }
  if (email !== undefined && typeof email !== 'string') return undefined;
  if (emailVerified !== undefined && typeof emailVerified !== 'boolean') return undefined;
  return {
    userId: sub,
    amr: [...amr],
    ...(email === undefined ? {} : { email }),
    ...(emailVerified === undefined ? {} : { emailVerified }),
    expiresAt: exp * 1000,
  };
}

/** A copy for the caller, so nothing it does to the result can change the cached entry. */
const copyOf = (claims: VerifiedAccessToken): VerifiedAccessToken => ({ ...claims, amr: [...claims.amr] });

function checkedWholeNumber(name: string, value: number, min: number): number {
  if (!Number.isSafeInteger(value) || value < min) {
    throw invalidOption('AccessTokens', name, `a whole number of at least ${min}`);
  }
  return value;
}

export class AccessTokens {
  private readonly key: KeyObject;
  private readonly ttlMs: number;
  private readonly clock: () => number;
  private readonly cacheSize: number;
  private readonly issuer: string | undefined;
  /** Verified tokens by the full token string; Map order is insertion order, the eviction order. */
  private readonly verified = new Map<string, VerifiedAccessToken>();

  constructor(options: AccessTokensOptions) {
    if ('nodeEnv' in options) assertSigningSecret(options.secret, options.nodeEnv);
    else assertSigningSecret(options.secret);
    this.key = createSecretKey(deriveKey(options.secret, KEY_PURPOSES.accessToken));
    this.ttlMs = checkedWholeNumber('ttlMs', options.ttlMs ?? DEFAULT_ACCESS_TOKEN_TTL_MS, 1000);
    this.cacheSize = checkedWholeNumber('cacheSize', options.cacheSize ?? DEFAULT_ACCESS_TOKEN_CACHE_SIZE, 0);
    this.clock = options.clock ?? Date.now;
    if (options.issuer !== undefined && (typeof options.issuer !== 'string' || options.issuer === '')) {
      throw invalidOption('AccessTokens', 'issuer', 'a non-empty string');
    }
    this.issuer = options.issuer;
  }

  /** How many verified tokens the cache holds now (never more than `cacheSize`). */
  get cachedCount(): number {
    return this.verified.size;
  }

  /** A new access token for `userId`, expiring `ttlMs` from now (rounded down to the second). */
  async sign({ userId, amr, email, emailVerified }: AccessTokenSubject): Promise<string> {
    if (!isSubject(userId)) {
      throw new TypeError(
        `AccessTokens.sign(): userId must be a string of 1 to ${MAX_SUBJECT_LENGTH} characters.`,
      );
    }
    assertAmrList(amr, 'AccessTokens.sign()');
    const now = this.clock();
    const jwt = new SignJWT({
      amr: [...amr],
      ...(email === undefined ? {} : { email }),
      ...(emailVerified === undefined ? {} : { email_verified: emailVerified }),
    })
      .setProtectedHeader({ alg: ALGORITHM, typ: TOKEN_TYPE })
      .setSubject(userId)
      .setIssuedAt(Math.floor(now / 1000))
      .setExpirationTime(Math.floor((now + this.ttlMs) / 1000));
    if (this.issuer !== undefined) jwt.setIssuer(this.issuer);
    return jwt.sign(this.key);
  }

  /**
   * The user and amr of a valid token. 401 AUTH_TOKEN_EXPIRED for a token that is valid but past its `exp`;
   * 401 AUTH_TOKEN_INVALID for anything else.
   */
  async verify(token: string): Promise<VerifiedAccessToken> {
    if (typeof token !== 'string' || token.length > MAX_ACCESS_TOKEN_LENGTH)
      throw errors.AUTH_TOKEN_INVALID();
    // The cache holds canonical spellings only (checked below before one is verified), so an exact hit needs
    // no check, and another spelling of a cached token misses and is refused: it never takes a slot.
    const cached = this.verified.get(token);
    if (cached !== undefined) {
      if (this.clock() < cached.expiresAt) return copyOf(cached);
      this.verified.delete(token);
      throw errors.AUTH_TOKEN_EXPIRED();
    }
    if (!isCanonicalCompactJws(token)) throw errors.AUTH_TOKEN_INVALID();
    const claims = await this.verifyWithJose(token);
    this.remember(token, claims);
    return copyOf(claims);
  }

  private async verifyWithJose(token: string): Promise<VerifiedAccessToken> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key, {
        algorithms: [ALGORITHM],
        typ: TOKEN_TYPE,
        currentDate: new Date(this.clock()),
        requiredClaims: ['sub', 'amr', 'iat', 'exp'],
        ...(this.issuer === undefined ? {} : { issuer: this.issuer }),
      }));
    } catch (error) {
      // jose reports expiry only after the signature, typ, required claims and issuer passed; the claims
      // svc reads are checked here too, so a malformed expired token is invalid rather than expired.
      if (error instanceof joseErrors.JWTExpired && claimsOf(error.payload) !== undefined) {
        throw errors.AUTH_TOKEN_EXPIRED({ cause: error });
      }
      throw errors.AUTH_TOKEN_INVALID({ cause: error });
    }
    const claims = claimsOf(payload);
    if (claims === undefined) throw errors.AUTH_TOKEN_INVALID();
    return claims;
  }

  private remember(token: string, claims: VerifiedAccessToken): void {
    if (this.cacheSize === 0 || this.verified.has(token)) return;
    while (this.verified.size >= this.cacheSize) {
      const oldest = this.verified.keys().next();
      if (oldest.done === true) break;
      this.verified.delete(oldest.value);
    }
    this.verified.set(token, claims);
  }
}
