// Time-based one-time codes (RFC 6238) for two-factor sign-in. The parameters are the ones every authenticator
// app understands without being told: HMAC-SHA-1, 6 digits, 30-second steps, and a 160-bit secret shown as
// unpadded RFC 4648 base32. A match reports the time step the code belongs to rather than a yes/no, so the
// caller's store can accept each code once: it records the last accepted step and accepts only a greater one,
// in one atomic operation.
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { HOTP, Secret, TOTP } from 'otpauth';
import { rejectUnknownOptions, optionKeys } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

export const TOTP_ALGORITHM = 'SHA1';
export const TOTP_DIGITS = 6;
export const TOTP_PERIOD_SECONDS = 30;
/** 160 bits: the HMAC-SHA-1 output size, RFC 4226's recommended secret length. */
export const TOTP_SECRET_BYTES = 20;
/** Steps tried on each side of the current one: one step absorbs clock drift and a code typed at a boundary. */
export const DEFAULT_TOTP_WINDOW = 1;
/** A wider window multiplies the guesses each attempt gets; ten steps (five minutes) is already generous. */
export const MAX_TOTP_WINDOW = 10;
/** RFC 4226 requires at least 128 bits of secret. */
const MIN_SECRET_BYTES = 16;
/**
 * The longest input taken for a code, TOTP or recovery (the routes' `maxLength` says the same): anything
 * longer is refused before any string work.
 */
export const MAX_CODE_INPUT_LENGTH = 64;
const TOTP_CODE = /^[0-9]{6}$/;

export interface MatchTotpOptions {
  /** The current time in milliseconds since the epoch (default `Date.now()`); tests pass a fake clock. */
  now?: number;
  /** Steps accepted before and after the current one (default 1). */
  window?: number;
}

const MATCH_TOTP_OPTIONS = optionKeys<MatchTotpOptions>({ now: true, window: true });

export interface OtpauthUriInput {
  /** The base32 secret from newTotpSecret(). */
  secret: string;
  /** The service name, shown by the app as the account's provider. */
  issuer: string;
  /** The user's email, shown by the app as the account's name. */
  account: string;
}

/** A new TOTP secret: 20 bytes from the CSPRNG, unpadded upper-case RFC 4648 base32 (32 characters). */
export function newTotpSecret(): string {
  return secretFromBytes(randomBytes(TOTP_SECRET_BYTES)).base32;
}

/**
 * The time step a moment falls in: floor(unix seconds / 30). Computed exactly as otpauth does, so a code it
 * generates for `now` belongs to `totpStep(now)`.
 */
export function totpStep(now: number): number {
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp: now });
}

/**
 * The trimmed code when `input` is exactly six ASCII digits (surrounding whitespace allowed), else undefined.
 * Other digits (full-width, Arabic-Indic) are refused: authenticator apps show ASCII.
 */
export function looksLikeTotp(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > MAX_CODE_INPUT_LENGTH) return undefined;
  const trimmed = input.trim();
  return TOTP_CODE.test(trimmed) ? trimmed : undefined;
}

/**
 * The key URI an authenticator app scans (`otpauth://totp/<issuer>:<account>?issuer=<issuer>&secret=…`).
 * The issuer is in both the label and the `issuer` parameter, as the key URI format recommends, and every
 * part is percent-encoded. An issuer may not contain a colon: apps split the label on it.
 */
export function otpauthUri({ secret, issuer, account }: OtpauthUriInput): string {
  const owner = 'otpauthUri()';
  if (typeof issuer !== 'string' || issuer.trim() === '' || issuer.includes(':')) {
    throw invalidOption(owner, 'issuer', 'a non-empty string without a colon');
  }
  if (typeof account !== 'string' || account.trim() === '') {
    throw invalidOption(owner, 'account', 'a non-empty string');
  }
  const totp = new TOTP({
    issuer,
    label: account,
    issuerInLabel: true,
    secret: decodeSecret(secret, owner),
    algorithm: TOTP_ALGORITHM,
    digits: TOTP_DIGITS,
    period: TOTP_PERIOD_SECONDS,
  });
  return totp.toString();
}

/**
 * The time step `code` was generated for, searched within `window` steps either side of `now`, or undefined.
 * Only exactly six ASCII digits (after trimming) are considered: anything else is no match, decided before
 * any HMAC runs. Every step in the window is computed and compared in constant time, whichever matches, so
 * the time taken tells nothing about the code. When two steps share the code, the earliest is reported: a
 * replayed code is then reported at the step it was first accepted at, which the store refuses.
 */
export function matchTotp(secret: string, code: string, options: MatchTotpOptions = {}): number | undefined {
  const owner = 'matchTotp()';
  if (options === null || typeof options !== 'object') throw invalidOptions(owner);
  rejectUnknownOptions(options, MATCH_TOTP_OPTIONS, owner);
  const { now = Date.now(), window = DEFAULT_TOTP_WINDOW } = options;
  if (typeof now !== 'number' || !Number.isFinite(now) || now < 0) {
    throw invalidOption(owner, 'now', 'a time in milliseconds since the epoch, 0 or more');
  }
  if (!Number.isInteger(window) || window < 0 || window > MAX_TOTP_WINDOW) {
    throw invalidOption(owner, 'window', `a whole number from 0 to ${MAX_TOTP_WINDOW}`);
  }
  const key = decodeSecret(secret, owner);
  const candidate = looksLikeTotp(code);
  if (candidate === undefined) return undefined;

  const given = Buffer.from(candidate, 'ascii');
  const current = totpStep(now);
  let matched: number | undefined;
  // Earliest first, no early exit: the same work whether the code matches or where it does.
  for (let step = Math.max(0, current - window); step <= current + window; step++) {
    const expected = Buffer.from(codeAt(key, step), 'ascii');
    if (timingSafeEqual(given, expected) && matched === undefined) matched = step;
  }
  return matched;
}

function codeAt(secret: Secret, step: number): string {
  return HOTP.generate({ secret, algorithm: TOTP_ALGORITHM, digits: TOTP_DIGITS, counter: step });
}

/** otpauth reads a Secret's bytes from an ArrayBuffer: copy the view's bytes into one of their own. */
function secretFromBytes(bytes: Uint8Array): Secret {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer });
}

function decodeSecret(secret: unknown, owner: string): Secret {
  const expected = `a base32 TOTP secret of at least ${MIN_SECRET_BYTES * 8} bits (newTotpSecret())`;
  if (typeof secret !== 'string') throw invalidOption(owner, 'secret', expected);
  let decoded: Secret;
  try {
    decoded = Secret.fromBase32(secret);
  } catch {
    throw invalidOption(owner, 'secret', expected);
  }
  if (decoded.bytes.length < MIN_SECRET_BYTES) throw invalidOption(owner, 'secret', expected);
  return decoded;
}
