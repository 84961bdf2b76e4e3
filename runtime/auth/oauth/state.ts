// The `state` of a sign-in: `<payload>.<mac>`, where the payload is base64url JSON of the state id (random,
// the key of its single-use mark), the provider it was made for, the SHA-256 of the browser's binding value
// (the cookie set at start) and its expiry, and the mac is HMAC-SHA256 under the state key. A state is
// accepted only with a valid mac, before its expiry, for the provider it names, from the browser holding the
// binding; that it is used once is the service's (the mark it takes). Every refusal is one answer: invalid.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { hashToken } from '../tokens/opaque.js';
import type { OAuthKeys } from './keys.js';

/** Longer states are refused before they are parsed: a real one is about 250 characters. */
const MAX_STATE_LENGTH = 1024;
const STATE_ID_BYTES = 16;

interface StatePayload {
  /** The state id. */
  i: string;
  /** The provider's name. */
  p: string;
  /** SHA-256 of the binding value, base64url. */
  b: string;
  /** Expiry, Unix ms. */
  e: number;
}

export interface IssuedState {
  state: string;
  id: string;
  expiresAt: number;
}

function macOf(keys: OAuthKeys, payload: string): Buffer {
  return createHmac('sha256', keys.state).update(payload).digest();
}

export function issueState(
  keys: OAuthKeys,
  provider: string,
  binding: string,
  expiresAt: number,
): IssuedState {
  const id = randomBytes(STATE_ID_BYTES).toString('base64url');
  const body: StatePayload = { i: id, p: provider, b: hashToken(binding), e: expiresAt };
  const payload = Buffer.from(JSON.stringify(body)).toString('base64url');
  return { state: `${payload}.${macOf(keys, payload).toString('base64url')}`, id, expiresAt };
}

/**
 * The state id when `state` is one this service signed, not expired at `now`, for `provider`, and bound to
 * `binding`; undefined otherwise (the caller answers AUTH_OAUTH_STATE_INVALID).
 */
export function verifyState(
  keys: OAuthKeys,
  state: string | undefined,
  provider: string,
  binding: string | undefined,
  now: number,
): string | undefined {
  if (typeof state !== 'string' || state.length > MAX_STATE_LENGTH) return undefined;
  const dot = state.indexOf('.');
  if (dot <= 0 || dot !== state.lastIndexOf('.')) return undefined;
  const payload = state.slice(0, dot);
  // Compared as text: base64url decoding ignores stray bits, so two spellings of one mac would both pass.
  const mac = Buffer.from(state.slice(dot + 1));
  const expected = Buffer.from(macOf(keys, payload).toString('base64url'));
  if (mac.length !== expected.length || !timingSafeEqual(mac, expected)) return undefined;
  const body = parsePayload(payload);
  if (body === undefined || now >= body.e || body.p !== provider) return undefined;
  if (typeof binding !== 'string' || binding === '') return undefined;
  const given = Buffer.from(hashToken(binding));
  const bound = Buffer.from(body.b);
  if (given.length !== bound.length || !timingSafeEqual(given, bound)) return undefined;
  return body.i;
}

function parsePayload(payload: string): StatePayload | undefined {
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const body = value as Partial<StatePayload>;
  const fields = typeof body.i === 'string' && typeof body.p === 'string' && typeof body.b === 'string';
  if (!fields || typeof body.e !== 'number' || !Number.isFinite(body.e) || body.i === '') return undefined;
  return body as StatePayload;
}
