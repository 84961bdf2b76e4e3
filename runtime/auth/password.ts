// Password hashing with node's scrypt ("Passwords are stored only as scrypt hashes"). A stored hash
// is a PHC string carrying its own parameters, `$scrypt$ln=15,r=8,p=1$<salt>$<hash>` (unpadded base64), so
// the cost can be raised later without invalidating old hashes. Hashing runs on libuv's thread pool through
// the asynchronous scrypt, never on the event loop. A stored hash declaring more work than PASSWORD_HASH_LIMITS
// never verifies, and is refused before any hashing: a planted hash must not be able to stall the service.
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import { invalidOption } from '../config/option-errors.js';

export interface PasswordHashParams {
  /** log2 of scrypt's cost N. */
  ln: number;
  /** Block size. */
  r: number;
  /** Parallelisation. */
  p: number;
}

/** New hashes: N = 2^15, r = 8, p = 1 (32 MiB, about 90 ms on this project's reference machine). */
export const DEFAULT_PASSWORD_HASH_PARAMS: Readonly<PasswordHashParams> = Object.freeze({
  ln: 15,
  r: 8,
  p: 1,
});

/** The most work a stored hash may declare; beyond it the hash never verifies. */
export const PASSWORD_HASH_LIMITS = Object.freeze({
  maxLn: 20,
  maxR: 32,
  maxP: 16,
  maxMemoryBytes: 512 * 1024 * 1024,
});

const SALT_BYTES = 16;
const HASH_BYTES = 32;
/** Salts and hashes a stored string may carry: enough for any sane hasher, small enough to cost nothing. */
const STORED_BYTES = { min: 8, max: 64 };
const PHC = /^\$scrypt\$ln=([1-9]\d?),r=([1-9]\d?),p=([1-9]\d?)\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/;

/** The memory scrypt needs for these parameters, in bytes (node refuses more than `maxmem`). */
function memoryOf({ ln, r, p }: PasswordHashParams): number {
  return 128 * r * (2 ** ln + p + 2);
}

function withinLimits(params: PasswordHashParams): boolean {
  return (
    params.ln <= PASSWORD_HASH_LIMITS.maxLn &&
    params.r <= PASSWORD_HASH_LIMITS.maxR &&
    params.p <= PASSWORD_HASH_LIMITS.maxP &&
    memoryOf(params) <= PASSWORD_HASH_LIMITS.maxMemoryBytes
  );
}

function derive(password: string, salt: Buffer, length: number, params: PasswordHashParams): Promise<Buffer> {
  const options: ScryptOptions = {
    N: 2 ** params.ln,
    r: params.r,
    p: params.p,
    maxmem: memoryOf(params) + 1024,
  };
  // NFC, so the same password typed on keyboards that compose accents differently is the same password.
  const normalised = password.normalize('NFC');
  return new Promise((resolve, reject) => {
    scryptCallback(normalised, salt, length, options, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function checkedParams(params: PasswordHashParams): PasswordHashParams {
  const { ln, r, p } = params;
  const whole = (value: unknown, min: number): boolean =>
    typeof value === 'number' && Number.isInteger(value) && value >= min;
  if (!whole(ln, 1) || !whole(r, 1) || !whole(p, 1) || !withinLimits(params)) {
    throw invalidOption(
      'hashPassword()',
      'passwordHash',
      `{ ln, r, p } whole numbers within ln <= ${PASSWORD_HASH_LIMITS.maxLn}, ` +
        `r <= ${PASSWORD_HASH_LIMITS.maxR}, p <= ${PASSWORD_HASH_LIMITS.maxP} and 512 MiB of memory`,
    );
  }
  return { ln, r, p };
}

const toBase64 = (bytes: Buffer) => bytes.toString('base64').replace(/=+$/, '');

/** A new hash of `password` with a fresh random salt. */
export async function hashPassword(
  password: string,
  params: PasswordHashParams = DEFAULT_PASSWORD_HASH_PARAMS,
): Promise<string> {
  if (typeof password !== 'string') throw new TypeError('hashPassword(): the password must be a string.');
  const checked = checkedParams(params);
  const salt = randomBytes(SALT_BYTES);
  const hash = await derive(password, salt, HASH_BYTES, checked);
  return `$scrypt$ln=${checked.ln},r=${checked.r},p=${checked.p}$${toBase64(salt)}$${toBase64(hash)}`;
}

interface StoredHash {
  params: PasswordHashParams;
  salt: Buffer;
  hash: Buffer;
}

/** The parts of a stored hash svc will verify against; undefined for anything else. */
function parseStored(stored: string): StoredHash | undefined {
  const match = typeof stored === 'string' ? PHC.exec(stored) : null;
  if (match === null) return undefined;
  const [, ln = '', r = '', p = '', salt = '', hash = ''] = match;
  const params = { ln: Number(ln), r: Number(r), p: Number(p) };
  if (!withinLimits(params)) return undefined;
  const saltBytes = Buffer.from(salt, 'base64');
  const hashBytes = Buffer.from(hash, 'base64');
  const inRange = (bytes: Buffer) => bytes.length >= STORED_BYTES.min && bytes.length <= STORED_BYTES.max;
  if (!inRange(saltBytes) || !inRange(hashBytes)) return undefined;
  return { params, salt: saltBytes, hash: hashBytes };
}

/**
 * Whether `password` matches `stored`. False, without hashing anything, for a stored value that is not an
 * svc scrypt hash or that declares more work than PASSWORD_HASH_LIMITS.
 */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  if (typeof password !== 'string') return false;
  const parsed = parseStored(stored);
  if (parsed === undefined) return false;
  const candidate = await derive(password, parsed.salt, parsed.hash.length, parsed.params);
  return timingSafeEqual(candidate, parsed.hash);
}

/** True when `stored` was made with other parameters than `params`: rehash it at the next successful login. */
export function passwordHashNeedsUpgrade(
  stored: string,
  params: PasswordHashParams = DEFAULT_PASSWORD_HASH_PARAMS,
): boolean {
  const parsed = parseStored(stored);
  if (parsed === undefined) return true;
  return parsed.params.ln !== params.ln || parsed.params.r !== params.r || parsed.params.p !== params.p;
}
