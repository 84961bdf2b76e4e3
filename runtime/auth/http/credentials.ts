// How a request authenticated, kept on the context for the logout route and the CSRF rule: which credential
// the auth enricher accepted, and the session id when it was a session. Also reading the credentials a
// request carries.
import { errors } from '../../../generated/modules/errors.js';
import type { RequestContext, RequestHeaders } from '../../http/types.js';
import type { PublicUser } from '../stores/users.js';
import { readCookieValues, type SessionCookie } from './cookie.js';

export type Credential =
  { kind: 'bearer' } | { kind: 'session'; source: 'cookie' | 'header'; sessionId: string };

/** The Bearer token of an Authorization header, or undefined for another scheme. */
export function bearerToken(authorization: string): string | undefined {
  // The scheme is case-insensitive (RFC 9110 §11.1); one or more spaces before the token.
  if (authorization.length < 8 || authorization.slice(0, 7).toLowerCase() !== 'bearer ') return undefined;
  const token = authorization.slice(7).trim();
  return token === '' ? undefined : token;
}

/** The first value of a request header node may deliver as a list. */
export function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Cookies of the session cookie's name read per request. Browsers send more than one only when they differ in
 * domain or path; the bound keeps a stuffed Cookie header from costing a signature check or lookup per value.
 */
export const MAX_SESSION_COOKIES = 4;

/** The session cookie's values in `headers`, in order, at most MAX_SESSION_COOKIES; '' for undecodable ones. */
export function sessionCookieValues(headers: RequestHeaders, cookie: SessionCookie): string[] {
  return readCookieValues(headerValue(headers.cookie), cookie.name, MAX_SESSION_COOKIES);
}

/** A value newOpaqueToken writes: 32 bytes in unpadded base64url. */
const OPAQUE_VALUE = /^[A-Za-z0-9_-]{43}$/;

/**
 * The one value of a cookie that binds a ceremony to the browser (passkey ceremonies, provider sign-ins), or
 * undefined: none, several that differ (one tossed by a sibling subdomain cannot be told from the browser's
 * own), more copies than a browser keeps of one name (one more is read, so more are refused rather than a
 * different value left unread), or a value this code did not write.
 */
export function boundCookieValue(headers: RequestHeaders, cookie: SessionCookie): string | undefined {
  const read = readCookieValues(headerValue(headers.cookie), cookie.name, MAX_SESSION_COOKIES + 1);
  const values = new Set(read);
  const [value] = values;
  if (read.length > MAX_SESSION_COOKIES || values.size !== 1 || value === undefined) return undefined;
  return OPAQUE_VALUE.test(value) ? value : undefined;
}

/**
 * The signed-in user of a request to an account route (second factors, passkeys): an API key is never their
 * owner, so a request through one is refused (`apiKey: false`) even before an API-key plugin enforces it.
 */
export function signedInUser(context: RequestContext): PublicUser {
  if (context.user === undefined || context.apiKey !== undefined) throw errors.AUTH_REQUIRED();
  return context.user as PublicUser;
}
