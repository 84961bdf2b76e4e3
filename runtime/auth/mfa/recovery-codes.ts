// One-time recovery codes, the way into an account whose authenticator is lost. A code is 80 random bits shown
// as 16 characters of RFC 4648 base32, lower-cased, in groups of four (`abcd-efgh-ijkl-mnop`). That alphabet
// (a–z and 2–7) has no 0, 1, 8 or 9, so nothing in it can be misread as o, l, i or b: no look-alike pairs to
// fold. What is typed back is normalized (spaces, dashes and case dropped) and must then be exactly 16 letters
// of the alphabet, so a six-digit TOTP code is never taken for one. The store keeps only hashes; using a code
// is "remove this hash if present", atomically, so each code works once.
import { createHash, randomBytes } from 'node:crypto';
import { Secret } from 'otpauth';
import { invalidOption } from '../../config/option-errors.js';
import { looksLikeTotp, MAX_CODE_INPUT_LENGTH } from './totp.js';

/** 80 bits: 16 base32 characters exactly, no padding. */
export const RECOVERY_CODE_BYTES = 10;
export const RECOVERY_CODE_LENGTH = 16;
export const DEFAULT_RECOVERY_CODE_COUNT = 10;
export const MAX_RECOVERY_CODE_COUNT = 100;
const GROUP_LENGTH = 4;
const SEPARATORS = /[\s-]/g;
const NORMALIZED_ASCII = new RegExp(`^[A-Za-z2-7]{${RECOVERY_CODE_LENGTH}}$`);

export interface NewRecoveryCodes {
  /** Shown to the user once, grouped: `abcd-efgh-ijkl-mnop`. */
  codes: string[];
  /** hashRecoveryCode() of each code, in the same order: what the store keeps. */
  hashes: string[];
}

/** A second factor as typed at sign-in: a TOTP code, or the hash of a recovery code to look up. */
export type ClassifiedCode = { kind: 'totp'; code: string } | { kind: 'recovery'; hash: string };

/** `count` distinct new recovery codes (default 10) and their hashes. */
export function newRecoveryCodes(count: number = DEFAULT_RECOVERY_CODE_COUNT): NewRecoveryCodes {
  if (!Number.isInteger(count) || count < 1 || count > MAX_RECOVERY_CODE_COUNT) {
    throw invalidOption('newRecoveryCodes()', 'count', `a whole number from 1 to ${MAX_RECOVERY_CODE_COUNT}`);
  }
  const normalized = new Set<string>();
  // A repeat is a 2^-80 event; the set makes "distinct" a guarantee rather than a probability.
  while (normalized.size < count) normalized.add(encodeBase32(randomBytes(RECOVERY_CODE_BYTES)));
  const codes: string[] = [];
  const hashes: string[] = [];
  for (const code of normalized) {
    codes.push(groupsOfFour(code));
    hashes.push(hashRecoveryCode(code));
  }
  return { codes, hashes };
}

/**
 * The canonical form of a typed recovery code: trimmed, spaces and dashes dropped, lower-cased. Undefined
 * unless that leaves exactly 16 characters of the alphabet (a–z, 2–7).
 */
export function normalizeRecoveryCode(input: unknown): string | undefined {
  if (typeof input !== 'string' || input.length > MAX_CODE_INPUT_LENGTH) return undefined;
  const compact = input.trim().replace(SEPARATORS, '');
  // Checked before lower-casing: toLowerCase() maps a few non-ASCII letters (the Kelvin sign) onto ASCII ones.
  return NORMALIZED_ASCII.test(compact) ? compact.toLowerCase() : undefined;
}

/**
 * The store key of a normalized recovery code: SHA-256, lower-case hex. A fast hash is enough: 80 random bits
 * cannot be guessed offline from a leaked table, which is what a slow password hash would defend against.
 */
export function hashRecoveryCode(normalized: string): string {
  if (normalizeRecoveryCode(normalized) !== normalized) {
    throw new TypeError('hashRecoveryCode(): pass a code normalized by normalizeRecoveryCode().');
  }
  return createHash('sha256').update(normalized, 'ascii').digest('hex');
}

/**
 * What a sign-in's second-factor field holds: six ASCII digits are a TOTP code, a well-formed recovery code
 * is returned as its hash, and anything else is undefined (refused without further work).
 */
export function classifyCode(input: unknown): ClassifiedCode | undefined {
  const totp = looksLikeTotp(input);
  if (totp !== undefined) return { kind: 'totp', code: totp };
  const recovery = normalizeRecoveryCode(input);
  if (recovery !== undefined) return { kind: 'recovery', hash: hashRecoveryCode(recovery) };
  return undefined;
}

/** RFC 4648 base32 (otpauth's encoder), lower-cased; 80 bits are a whole number of characters: no padding. */
function encodeBase32(bytes: Uint8Array): string {
  return new Secret({ buffer: Uint8Array.from(bytes).buffer }).base32.toLowerCase();
}

function groupsOfFour(code: string): string {
  const groups: string[] = [];
  for (let index = 0; index < code.length; index += GROUP_LENGTH) {
    groups.push(code.slice(index, index + GROUP_LENGTH));
  }
  return groups.join('-');
}
