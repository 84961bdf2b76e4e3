// The form of an API key: `mk_live_` and 43 characters of unpadded base64url (32 bytes, 256 bits, from the
// CSPRNG). The key is shown once, when it is issued; the store keeps its SHA-256 (the hash every opaque secret
// of svckit is stored as), and for display only the first four characters after the prefix and the last four.
import { hashToken, newOpaqueToken } from '../tokens/opaque.js';

/** Every key svckit issues starts with this; the auth enricher leaves bearer values starting `mk_` to the key plugin. */
export const API_KEY_PREFIX = 'mk_live_';

const API_KEY = /^mk_live_[A-Za-z0-9_-]{43}$/;

/** What a key looks like on a page: `mk_live_AbCd` … `wxyz`. */
export interface KeyDisplay {
  /** The prefix and the first four characters of the secret part. */
  start: string;
  /** The last four characters. */
  last4: string;
}

export interface NewKey extends KeyDisplay {
  /** The plain key: handed to the caller once, never stored. */
  key: string;
  /** What the store keeps. */
  hash: string;
}

export function newApiKey(): NewKey {
  const key = API_KEY_PREFIX + newOpaqueToken();
  return { key, hash: hashToken(key), ...displayOf(key) };
}

/** True for a value of the form svckit issues; anything else is not looked up. */
export function isApiKeyForm(value: string): boolean {
  return value.length === API_KEY_PREFIX.length + 43 && API_KEY.test(value);
}

/** The store key of a presented key. */
export function apiKeyHash(key: string): string {
  return hashToken(key);
}

function displayOf(key: string): KeyDisplay {
  return { start: key.slice(0, API_KEY_PREFIX.length + 4), last4: key.slice(-4) };
}
