// The MFA secret box: TOTP secrets are stored sealed, bound to their user, under a key ring that rotates.
//
// Envelope `bka2.<keyId>.<payload>` (the format stored secrets live in; test/fixtures/mfa/bka2-vectors.json
// pins it, so change nothing here without a new envelope version):
//   key      HKDF-SHA256(ikm = key material, salt = "svckit mfa secret box", info = "svc mfa secret bka2", 32 bytes)
//   cipher   AES-256-GCM, 12-byte random iv, 16-byte tag
//   AAD      the user id, UTF-8: a sealed value copied to another user's row does not open
//   payload  base64url without padding of iv(12) ‖ ciphertext ‖ tag(16); ciphertext is the UTF-8 secret
//   keyId    1–32 characters of A–Z a–z 0–9 _ - (keys.ts); the first key of the ring seals, every key opens
//
// Legacy forms, each read only when opted in (`legacy: { v1Keys, plaintext }`) and never written:
//   v1         `v1:<base64url without padding of iv(12) ‖ ciphertext ‖ tag(16)>`, AES-256-GCM keyed with
//              SHA-256(key material), no AAD; every v1 key is tried in turn (v1 names no key).
//   plaintext  a base32 TOTP secret as older versions stored it (A–Z in either case, 2–7, optional `=`
//              padding). Any other value is refused rather than taken for a secret, so an envelope of a format
//              this version does not know is never re-sealed as if it were the secret.
//
// Whatever does not open throws AUTH_SECRET_UNREADABLE with the catalog message; why is in internalDetails
// (never sent to a client) and never includes the value, the secret or a key.
import { createCipheriv, createDecipheriv, createHash, hkdfSync, randomBytes } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { checkedMaterial, MFA_KEY_ID_PATTERN, validateMfaKeys, type MfaKey } from './keys.js';

export const BKA2_PREFIX = 'bka2.';
export const V1_PREFIX = 'v1:';
export const BKA2_HKDF_SALT = 'svckit mfa secret box';
export const BKA2_HKDF_INFO = 'svc mfa secret bka2';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AES_KEY_BYTES = 32;
const OWNER = 'SecretBox';

/** Legacy forms `open` reads; each is off unless given. They are only read, and `needsReseal` says true for them. */
export interface SecretBoxLegacyOptions {
  /** Key material of `v1:` envelopes, tried in order. Without it, v1 values are unreadable. */
  v1Keys?: readonly Buffer[];
  /** true: a base32 secret stored in clear is answered as is. Default false. */
  plaintext?: boolean;
}

export interface SecretBoxOptions {
  /** The key ring, sealing key first; checked like SVC_MFA_KEYS (parseMfaKeys). */
  keys: readonly MfaKey[];
  legacy?: SecretBoxLegacyOptions;
}

const BOX_OPTIONS = optionKeys<SecretBoxOptions>({ keys: true, legacy: true });
const LEGACY_OPTIONS = optionKeys<SecretBoxLegacyOptions>({ v1Keys: true, plaintext: true });

type StoredValue =
  | { form: 'bka2'; keyId: string; payload: Buffer }
  | { form: 'v1'; payload: Buffer }
  | { form: 'plaintext' }
  | { form: 'malformed' };

const BASE32_SECRET = /^[A-Za-z2-7]+=*$/;

/** The bytes of unpadded base64url text, or undefined when it is not exactly what base64url would write. */
function decodeBase64url(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return undefined;
  const bytes = Buffer.from(text, 'base64url');
  // Canonical only: otherwise the unused low bits of the last character could be changed unnoticed.
  return bytes.toString('base64url') === text ? bytes : undefined;
}

function payloadOf(text: string): Buffer | undefined {
  const bytes = decodeBase64url(text);
  return bytes !== undefined && bytes.length >= IV_BYTES + TAG_BYTES ? bytes : undefined;
}

function classify(value: string): StoredValue {
  if (value.startsWith(BKA2_PREFIX)) {
    const parts = value.slice(BKA2_PREFIX.length).split('.');
    const [keyId, text] = parts;
    if (parts.length !== 2 || keyId === undefined || text === undefined) return { form: 'malformed' };
    const payload = payloadOf(text);
    if (!MFA_KEY_ID_PATTERN.test(keyId) || payload === undefined) return { form: 'malformed' };
    return { form: 'bka2', keyId, payload };
  }
  if (value.startsWith(V1_PREFIX)) {
    const payload = payloadOf(value.slice(V1_PREFIX.length));
    return payload === undefined ? { form: 'malformed' } : { form: 'v1', payload };
  }
  return BASE32_SECRET.test(value) ? { form: 'plaintext' } : { form: 'malformed' };
}

/** The AES key of a bka2 ring key. */
function bka2Key(material: Buffer): Buffer {
  return Buffer.from(hkdfSync('sha256', material, BKA2_HKDF_SALT, BKA2_HKDF_INFO, AES_KEY_BYTES));
}

/** The AES key of a v1 key. */
function v1Key(material: Buffer): Buffer {
  return createHash('sha256').update(material).digest();
}

/** iv ‖ ciphertext ‖ tag of `plaintext` under `key`, bound to `aad` when given. */
function encrypt(key: Buffer, iv: Buffer, plaintext: string, aad: Buffer | undefined): Buffer {
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad !== undefined) cipher.setAAD(aad);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return Buffer.concat([iv, ciphertext, cipher.getAuthTag()]);
}

/** The secret in `payload`, or undefined when it does not authenticate under `key` and `aad`. */
function decrypt(key: Buffer, payload: Buffer, aad: Buffer | undefined): string | undefined {
  const iv = payload.subarray(0, IV_BYTES);
  const tag = payload.subarray(payload.length - TAG_BYTES);
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  if (aad !== undefined) decipher.setAAD(aad);
  decipher.setAuthTag(tag);
  try {
    const plaintext = decipher.update(payload.subarray(IV_BYTES, payload.length - TAG_BYTES));
    return Buffer.concat([plaintext, decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}

function unreadable(reason: string, keyId?: string) {
  return errors.AUTH_SECRET_UNREADABLE({
    internalDetails: keyId === undefined ? { reason } : { reason, keyId },
  });
}

function checkedIv(iv: unknown): Buffer {
  if (!(iv instanceof Uint8Array) || iv.length !== IV_BYTES) {
    throw invalidOption(`${OWNER}.seal()`, 'iv', `a Buffer of ${IV_BYTES} bytes`);
  }
  return Buffer.from(iv);
}

/** `#seal` with a given iv, for sealWithIvForTesting; assigned in SecretBox's static block, which can reach it. */
let sealWithGivenIv!: (box: SecretBox, userId: string, secret: string, iv: Buffer) => string;

export class SecretBox {
  /** AES keys by key id; the key material itself is not kept. */
  readonly #keys: Map<string, Buffer>;
  readonly #sealingKeyId: string;
  readonly #v1Keys: readonly Buffer[];
  readonly #readPlaintext: boolean;

  static {
    sealWithGivenIv = (box, userId, secret, iv) => box.#seal(userId, secret, iv);
  }

  constructor(options: SecretBoxOptions) {
    if (options === null || typeof options !== 'object' || Array.isArray(options)) {
      throw invalidOptions(OWNER, 'an object { keys, legacy? }');
    }
    rejectUnknownOptions(options, BOX_OPTIONS, OWNER);
    const ring = validateMfaKeys(options.keys, OWNER);
    this.#keys = new Map(ring.map((key) => [key.id, bka2Key(key.material)]));
    this.#sealingKeyId = (ring[0] as MfaKey).id;
    const legacy = readLegacyOptions(options.legacy);
    this.#v1Keys = legacy.v1Keys;
    this.#readPlaintext = legacy.plaintext;
  }

  /** The id of the key new seals use (the first of the ring). */
  get sealingKeyId(): string {
    return this.#sealingKeyId;
  }

  /** `bka2.<sealing key id>.<payload>` holding `secret` for `userId`, with a fresh random iv. */
  seal(userId: string, secret: string): string {
    return this.#seal(userId, secret, randomBytes(IV_BYTES));
  }

  /**
   * The secret in `value` as stored for `userId`: a bka2 envelope under any key of the ring, or a legacy form
   * when enabled. Throws AUTH_SECRET_UNREADABLE for anything else (another user's value, an unknown key id, an
   * altered or malformed value, a legacy form not enabled).
   */
  open(userId: string, value: string): string {
    if (typeof userId !== 'string' || userId === '') throw unreadable('no user id');
    if (typeof value !== 'string') throw unreadable('not a string');
    const stored = classify(value);
    switch (stored.form) {
      case 'bka2': {
        const key = this.#keys.get(stored.keyId);
        if (key === undefined) throw unreadable('unknown key id', stored.keyId);
        const secret = decrypt(key, stored.payload, Buffer.from(userId, 'utf8'));
        if (secret === undefined) {
          throw unreadable('does not authenticate (another user, another key or altered)');
        }
        return secret;
      }
      case 'v1': {
        if (this.#v1Keys.length === 0) throw unreadable('v1 envelope, legacy.v1Keys not given');
        for (const key of this.#v1Keys) {
          const secret = decrypt(key, stored.payload, undefined);
          if (secret !== undefined) return secret;
        }
        throw unreadable('v1 envelope opens under no v1 key');
      }
      case 'plaintext':
        if (!this.#readPlaintext) throw unreadable('plaintext secret, legacy.plaintext not enabled');
        return value;
      case 'malformed':
        throw unreadable('malformed');
    }
  }

  /**
   * true when `value` is not a bka2 envelope under the sealing key: another key id, v1, plaintext, or
   * malformed. Reads the form only, decrypts nothing: `open` still decides whether the value is readable.
   */
  needsReseal(value: string): boolean {
    const stored = typeof value === 'string' ? classify(value) : { form: 'malformed' as const };
    return stored.form !== 'bka2' || stored.keyId !== this.#sealingKeyId;
  }

  #seal(userId: string, secret: string, iv: Buffer): string {
    if (typeof userId !== 'string' || userId === '') {
      throw invalidOption(`${OWNER}.seal()`, 'userId', 'a non-empty string');
    }
    if (typeof secret !== 'string' || secret === '') {
      throw invalidOption(`${OWNER}.seal()`, 'secret', 'a non-empty string');
    }
    const key = this.#keys.get(this.#sealingKeyId) as Buffer;
    const payload = encrypt(key, iv, secret, Buffer.from(userId, 'utf8'));
    return `${BKA2_PREFIX}${this.#sealingKeyId}.${payload.toString('base64url')}`;
  }
}

function readLegacyOptions(legacy: unknown): { v1Keys: Buffer[]; plaintext: boolean } {
  if (legacy === undefined) return { v1Keys: [], plaintext: false };
  if (legacy === null || typeof legacy !== 'object' || Array.isArray(legacy)) {
    throw invalidOption(OWNER, 'legacy', 'an object { v1Keys?, plaintext? }');
  }
  rejectUnknownOptions(legacy, LEGACY_OPTIONS, `${OWNER}: legacy`);
  const { v1Keys = [], plaintext = false } = legacy as SecretBoxLegacyOptions;
  if (typeof plaintext !== 'boolean') throw invalidOption(OWNER, 'legacy.plaintext', 'true or false');
  if (!Array.isArray(v1Keys)) throw invalidOption(OWNER, 'legacy.v1Keys', 'a list of Buffers');
  // Legacy keys are read as they were (any length): they only open old rows, never seal new ones.
  return {
    v1Keys: v1Keys.map((material: unknown, index) =>
      v1Key(checkedMaterial(material, `${OWNER}: legacy.v1Keys ${index + 1}`, 1)),
    ),
    plaintext,
  };
}

/**
 * Testing only, never exported from the package entry: `box.seal` with a given 12-byte iv instead of a random
 * one, so golden vectors can be re-sealed to the same string. Reusing an iv under one key breaks AES-GCM.
 */
export function sealWithIvForTesting(box: SecretBox, userId: string, secret: string, iv: Buffer): string {
  return sealWithGivenIv(box, userId, secret, checkedIv(iv));
}

/** Testing only, never exported from the package entry: a `v1:` envelope, as older versions wrote them. */
export function sealV1ForTesting(material: Buffer, secret: string, iv: Buffer): string {
  return `${V1_PREFIX}${encrypt(v1Key(material), checkedIv(iv), secret, undefined).toString('base64url')}`;
}
