// The session cookie: reading its value (or values) from a Cookie header
// without a parser dependency, and writing the Set-Cookie line that sets or expires it.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { DEFAULT_SESSION_COOKIE } from '../../../shared/module-defaults.js';

export interface SessionCookieOptions {
  /** Default `svc_session`. */
  name?: string;
  /** Default `/`. */
  path?: string;
  /** Default `lax`. `none` needs `secure`. */
  sameSite?: 'lax' | 'strict' | 'none';
  /** Default: true in production (NODE_ENV not exactly development or test). */
  secure?: boolean;
  /** Default none: the cookie belongs to the host that set it only. */
  domain?: string;
}

/** The container token authPlugin() provides its session cookie under, for the plugins that sign people in. */
export const SESSION_COOKIE = Symbol('svc:session-cookie');

export interface SessionCookie {
  readonly name: string;
  readonly path: string;
  readonly sameSite: 'Lax' | 'Strict' | 'None';
  readonly secure: boolean;
  readonly domain: string | undefined;
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const COOKIE_PATH = /^\/[\x21-\x3a\x3c-\x7e]*$/;
const DOMAIN = /^[A-Za-z0-9.-]+$/;
const SAME_SITE = { lax: 'Lax', strict: 'Strict', none: 'None' } as const;
const SESSION_COOKIE_OPTIONS = optionKeys<SessionCookieOptions>({
  name: true,
  path: true,
  sameSite: true,
  secure: true,
  domain: true,
});

const OWNER = 'sessionCookie';

/** Checks and completes the options; a bad value is an OptionError naming `sessionCookie: <option>`. */
export function sessionCookie(options: SessionCookieOptions, production: boolean): SessionCookie {
  rejectUnknownOptions(options, SESSION_COOKIE_OPTIONS, OWNER);
  const name = options.name ?? DEFAULT_SESSION_COOKIE;
  if (typeof name !== 'string' || !TOKEN.test(name))
    throw invalidOption(OWNER, 'name', `a cookie name (an HTTP token)`);
  const path = options.path ?? '/';
  if (typeof path !== 'string' || !COOKIE_PATH.test(path))
    throw invalidOption(OWNER, 'path', 'a path starting with / without ; or control characters');
  const sameSite = SAME_SITE[options.sameSite ?? 'lax'];
  if (sameSite === undefined) throw invalidOption(OWNER, 'sameSite', 'lax, strict or none');
  const secure = options.secure ?? production;
  if (typeof secure !== 'boolean') throw invalidOption(OWNER, 'secure', 'a boolean');
  // Browsers drop SameSite=None cookies without Secure: refuse the setting instead of failing silently.
  if (sameSite === 'None' && !secure)
    throw invalidOption(OWNER, 'sameSite', 'lax or strict unless secure is true', 'none needs secure: true');
  const domain = options.domain;
  if (domain !== undefined && (typeof domain !== 'string' || !DOMAIN.test(domain))) {
    throw invalidOption(OWNER, 'domain', 'a host name');
  }
  return { name, path, sameSite, secure, domain };
}

/**
 * The value of cookie `name` in a Cookie header, percent-decoded; undefined when absent or when its value
 * cannot be decoded (such a cookie is ignored and the request is anonymous). The first one wins.
 */
export function readCookie(header: string | undefined, name: string): string | undefined {
  const [first] = rawCookieValues(header, name, 1);
  return first === undefined ? undefined : decodedValue(first);
}

/**
 * The values of every cookie `name` in a Cookie header, in order, at most `limit` of them, percent-decoded;
 * a value that cannot be decoded is ''. A browser sends several cookies of one name when they differ in
 * domain or path (one set by a sibling subdomain, say); which comes first is not ours to choose.
 */
export function readCookieValues(header: string | undefined, name: string, limit: number): string[] {
  return rawCookieValues(header, name, limit).map((raw) => decodedValue(raw) ?? '');
}

function rawCookieValues(header: string | undefined, name: string, limit: number): string[] {
  const values: string[] = [];
  if (header === undefined || header.length === 0) return values;
  let start = 0;
  while (start < header.length && values.length < limit) {
    let end = header.indexOf(';', start);
    if (end === -1) end = header.length;
    const eq = header.indexOf('=', start);
    if (eq !== -1 && eq < end && header.slice(start, eq).trim() === name) {
      values.push(header.slice(eq + 1, end).trim());
    }
    start = end + 1;
  }
  return values;
}

function decodedValue(raw: string): string | undefined {
  const value = raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"') ? raw.slice(1, -1) : raw;
  try {
    return decodeURIComponent(value);
  } catch {
    return undefined;
  }
}

/** Set-Cookie for a session id, living `maxAgeMs` (rounded down to seconds). */
export function setCookieLine(cookie: SessionCookie, value: string, maxAgeMs: number): string {
  return attributes(cookie, `${cookie.name}=${encodeURIComponent(value)}`, Math.floor(maxAgeMs / 1000));
}

/** Set-Cookie that makes the browser drop the session cookie. */
export function expireCookieLine(cookie: SessionCookie): string {
  return `${attributes(cookie, `${cookie.name}=`, 0)}; Expires=Thu, 01 Jan 1970 00:00:00 GMT`;
}

function attributes(cookie: SessionCookie, pair: string, maxAgeSeconds: number): string {
  let line = `${pair}; Path=${cookie.path}; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=${cookie.sameSite}`;
  if (cookie.domain !== undefined) line += `; Domain=${cookie.domain}`;
  if (cookie.secure) line += '; Secure';
  return line;
}
