// The key ring of the MFA secret box: read from SVC_MFA_KEYS (`<id>:<base64 key material>,…`, the first key
// seals, every key opens) or given in code, checked the same way either way. A bad ring refuses to boot with
// AUTH_SECRET_BOX_KEY_INVALID; the message says which entry is wrong and why, and never repeats the text of
// an entry, since a misplaced separator can put key material where an id was expected.
import { errors } from '../../../generated/modules/errors.js';
import { rejectUnknownOptions } from '../../config/known-options.js';

/** One key of the ring: an id stored in every envelope it seals, and its secret material. */
export interface MfaKey {
  /** 1–32 characters of `A–Z a–z 0–9 _ -`; written in clear into `bka2.<keyId>.<payload>`. */
  id: string;
  /** At least MIN_MFA_KEY_BYTES random bytes; the AES key is derived from it. */
  material: Buffer;
}

/** The shortest key material accepted: a 256-bit key must come from at least 256 bits. */
export const MIN_MFA_KEY_BYTES = 32;

/** A key id: short, and safe inside the dot-separated envelope and in logs. */
export const MFA_KEY_ID_PATTERN = /^[A-Za-z0-9_-]{1,32}$/;

/** The environment variable the ring is read from. */
export const MFA_KEYS_ENV = 'SVC_MFA_KEYS';

const KEY_HINT = `set ${MFA_KEYS_ENV}=<id>:<base64 of 32+ random bytes>, e.g. k1:$(openssl rand -base64 32); list the sealing key first`;

const KEY_ID_RULE = 'must be 1-32 characters of A-Z a-z 0-9 _ -';

/** AUTH_SECRET_BOX_KEY_INVALID with the one hint on how to write the ring. */
export function keyInvalid(message: string) {
  return errors.AUTH_SECRET_BOX_KEY_INVALID({ message, hint: KEY_HINT });
}

/**
 * The bytes of a base64 (or base64url) text, or undefined when it is not canonical base64: Buffer.from()
 * skips characters it does not know, so a typo would otherwise become a silently different key.
 */
function decodeBase64(text: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(text)) return undefined;
  const unpadded = text.replace(/=+$/, '');
  if (text.length !== unpadded.length && text.length % 4 !== 0) return undefined;
  const bytes = Buffer.from(unpadded.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  const canonical = bytes.toString('base64').replace(/=+$/, '');
  return canonical === unpadded.replace(/-/g, '+').replace(/_/g, '/') ? bytes : undefined;
}

/**
 * The ring in SVC_MFA_KEYS: `<id>:<base64 key material>` entries separated by commas (spaces around an entry
 * are ignored), first key first. Throws AUTH_SECRET_BOX_KEY_INVALID when the text is empty or unset, an entry
 * has no `:`, an id is malformed or repeated, or key material is not base64 or decodes to fewer than
 * MIN_MFA_KEY_BYTES bytes.
 */
export function parseMfaKeys(text: string | undefined, source: string = MFA_KEYS_ENV): MfaKey[] {
  if (typeof text !== 'string' || text.trim() === '') {
    throw keyInvalid(`${source} is empty: it needs at least one key.`);
  }
  const keys = text.split(',').map((entry, index): MfaKey => {
    const where = `${source}: key ${index + 1}`;
    const trimmed = entry.trim();
    if (trimmed === '') throw keyInvalid(`${where} is empty (a stray comma?).`);
    const colon = trimmed.indexOf(':');
    if (colon === -1) throw keyInvalid(`${where} has no ":" between the key id and the key material.`);
    const id = trimmed.slice(0, colon);
    if (!MFA_KEY_ID_PATTERN.test(id)) throw keyInvalid(`${where}: the key id ${KEY_ID_RULE}.`);
    const material = decodeBase64(trimmed.slice(colon + 1));
    if (material === undefined) {
      throw keyInvalid(`${where} (key "${id}"): the key material is not valid base64.`);
    }
    return { id, material };
  });
  return validateMfaKeys(keys, source);
}

/**
 * A checked copy of a ring given in code (`[{ id, material }]`, first key seals): the same refusals as
 * parseMfaKeys, with AUTH_SECRET_BOX_KEY_INVALID. The material is copied, so later changes to the caller's
 * buffers do not change the ring.
 */
export function validateMfaKeys(keys: unknown, owner: string): MfaKey[] {
  if (!Array.isArray(keys) || keys.length === 0) {
    throw keyInvalid(`${owner}: keys must be a non-empty list of { id, material }.`);
  }
  const seen = new Set<string>();
  return keys.map((key: unknown, index): MfaKey => {
    const where = `${owner}: key ${index + 1}`;
    if (key === null || typeof key !== 'object' || Array.isArray(key)) {
      throw keyInvalid(`${where} must be an object { id, material }.`);
    }
    rejectUnknownOptions(key, ['id', 'material'], `${owner}: key ${index + 1}`);
    const { id, material } = key as { id?: unknown; material?: unknown };
    if (typeof id !== 'string' || !MFA_KEY_ID_PATTERN.test(id)) {
      throw keyInvalid(`${where}: the key id ${KEY_ID_RULE}.`);
    }
    if (seen.has(id)) {
      throw keyInvalid(`${where}: the key id "${id}" is used twice; every key needs its own id.`);
    }
    seen.add(id);
    return { id, material: checkedMaterial(material, `${where} (key "${id}")`, MIN_MFA_KEY_BYTES) };
  });
}

/**
 * A copy of key material that is a Buffer (or Uint8Array) of at least `minBytes` bytes; otherwise
 * AUTH_SECRET_BOX_KEY_INVALID naming `where` and the length, never the bytes.
 */
export function checkedMaterial(material: unknown, where: string, minBytes: number): Buffer {
  if (!(material instanceof Uint8Array)) throw keyInvalid(`${where}: the key material must be a Buffer.`);
  if (material.length < minBytes) {
    throw keyInvalid(
      `${where}: the key material is ${material.length} bytes; at least ${minBytes} are needed.`,
    );
  }
  return Buffer.from(material);
}
