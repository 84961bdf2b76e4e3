// The options of securityPlugin, checked once at creation: a typo or an
// unsafe combination throws an OptionError (a TypeError) naming the option, instead of quietly serving weaker headers.
import { HTTP_METHODS, type HttpMethod } from '../../http/types.js';
import { RATE_LIMIT_HEADERS } from '../rate-limit/headers.js';
import { MemoryRateLimitStore } from '../rate-limit/memory-store.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { isPositiveWholeNumber, nonNegativeWholeNumber } from '../../config/whole-number.js';
import type { RateLimitStore } from '../rate-limit/store.js';
import { normalizeOrigin } from './origin.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

/** Changes to the default secure headers; every other header keeps its default. */
export interface SecureHeadersOptions {
  /** Replaces `content-security-policy`; false sends none. Default `default-src 'none'; frame-ancestors 'none'`. */
  contentSecurityPolicy?: string | false;
  /** Replaces `strict-transport-security`; false sends none. Default `max-age=15552000; includeSubDomains`. */
  hsts?: string | false;
  /**
   * Also sends the headers browsers apply to HTML documents only (DOCUMENT_SECURE_HEADERS: opener policy,
   * origin-keyed agent cluster, DNS prefetch, cross-domain policy files), for a service that serves pages.
   * Default false: on JSON answers they change nothing and cost every response.
   */
  documentHeaders?: boolean;
}

export interface CorsOptions {
  /** Exact origins (`https://app.example.com`, `http://localhost:5173`), or `['*']` for any origin. */
  origin: readonly string[];
  /** Sends `access-control-allow-credentials: true` (cookies, Authorization). Default false; never with `'*'`. */
  credentials?: boolean;
  /** Methods a preflight allows. Default GET, HEAD, PUT, PATCH, POST, DELETE. */
  methods?: readonly HttpMethod[];
  /** Request headers a preflight allows. Default: the ones the preflight asks for, when well-formed. */
  headers?: readonly string[];
  /** Response headers scripts may read, added to `x-request-id` (always exposed). */
  exposeHeaders?: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAge?: number;
}

export interface SecurityPluginOptions {
  /** Secure headers on every answer: true (default) or changes to single headers; false sends none. */
  headers?: boolean | SecureHeadersOptions;
  /** Cross-origin access for browsers; off when absent. */
  cors?: CorsOptions;
  /** The global bucket, per client IP, counted on every request svc answers (preflights excepted). */
  rateLimit?: RateLimitOptions;
}

export interface RateLimitOptions {
  /** Requests one client IP may make per window. Leave out together with `windowMs` for no global bucket. */
  limit?: number;
  /** Length of the fixed window, in milliseconds. */
  windowMs?: number;
  /** Where buckets are counted; default an in-memory store (100000 buckets). Route buckets use it too. */
  store?: RateLimitStore;
  /**
   * Hit the store on every request for the global bucket, even when the store leases hits (Redis, SQL).
   * Default false: the global bucket is counted from leased hits, one round trip per lease.
   */
  exact?: boolean;
}

export const DEFAULT_CONTENT_SECURITY_POLICY = "default-src 'none'; frame-ancestors 'none'";
export const DEFAULT_HSTS = 'max-age=15552000; includeSubDomains';
export const DEFAULT_CORS_METHODS: readonly HttpMethod[] = ['GET', 'HEAD', 'PUT', 'PATCH', 'POST', 'DELETE'];
export const DEFAULT_CORS_MAX_AGE_SECONDS = 600;
/** Exposed to cross-origin scripts whatever `exposeHeaders` says: svc sends it on every answer. */
export const ALWAYS_EXPOSED_HEADERS: readonly string[] = ['x-request-id', ...RATE_LIMIT_HEADERS];

/** The header values the plugin sends, resolved from the options. */
export interface ResolvedSecureHeaders {
  contentSecurityPolicy: string | false;
  hsts: string | false;
  documentHeaders: boolean;
}

export interface ResolvedCors {
  /** `origin: ['*']`: any origin, answered with `*`. */
  anyOrigin: boolean;
  /** Normalised exact origins (empty when anyOrigin). */
  origins: ReadonlySet<string>;
  credentials: boolean;
  /** Header values, joined once. */
  allowMethods: string;
  /** true: a preflight's well-formed `access-control-request-headers` are allowed as asked. */
  echoRequestedHeaders: boolean;
  /** The configured request headers, joined; '' allows none beyond the CORS-safelisted ones. */
  allowHeaders: string;
  exposeHeaders: string;
  maxAge: string;
}

export interface ResolvedRateLimit {
  /** The global bucket; undefined when only route buckets (`meta.rateLimit`) are counted. */
  global: { limit: number; windowMs: number; exact: boolean } | undefined;
  store: RateLimitStore;
}

export interface ResolvedSecurity {
  headers: ResolvedSecureHeaders | undefined;
  cors: ResolvedCors | undefined;
  rateLimit: ResolvedRateLimit;
}

const OWNER = 'securityPlugin()';
// The keys of each options interface above: anything else is refused at
// creation, by the one check every options object shares (config/known-options.ts).
const SECURITY_OPTIONS = optionKeys<SecurityPluginOptions>({
  headers: true,
  cors: true,
  rateLimit: true,
});
const HEADERS_OPTIONS = optionKeys<SecureHeadersOptions>({
  contentSecurityPolicy: true,
  hsts: true,
  documentHeaders: true,
});
const CORS_OPTIONS = optionKeys<CorsOptions>({
  origin: true,
  credentials: true,
  methods: true,
  headers: true,
  exposeHeaders: true,
  maxAge: true,
});
const RATE_LIMIT_OPTIONS = optionKeys<RateLimitOptions>({
  limit: true,
  windowMs: true,
  store: true,
  exact: true,
});

/** RFC 9110 token: a header or method name. */
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** A header value the plugin will send: visible ASCII and spaces, no control characters (so no CR/LF). */
const FIELD_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
const HSTS_MAX_AGE = /(?:^|;)\s*max-age=(?:\d+|"\d+")\s*(?:;|$)/i;

export function isToken(value: string): boolean {
  return TOKEN.test(value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function headerValue(value: unknown, name: string, fallback: string): string | false {
  if (value === undefined) return fallback;
  if (value === false) return false;
  if (typeof value !== 'string' || !FIELD_VALUE.test(value)) {
    throw invalidOption(
      OWNER,
      `headers.${name}`,
      'false or a non-empty header value without control characters',
    );
  }
  return value;
}

function resolveHeaders(value: unknown): ResolvedSecureHeaders | undefined {
  if (value === false) return undefined;
  if (value === undefined || value === true) {
    return {
      contentSecurityPolicy: DEFAULT_CONTENT_SECURITY_POLICY,
      hsts: DEFAULT_HSTS,
      documentHeaders: false,
    };
  }
  if (!isPlainObject(value)) {
    throw invalidOption(
      OWNER,
      'headers',
      'true, false or { contentSecurityPolicy?, hsts?, documentHeaders? }',
    );
  }
  rejectUnknownOptions(value, HEADERS_OPTIONS, `${OWNER}: headers`);
  const contentSecurityPolicy = headerValue(
    value.contentSecurityPolicy,
    'contentSecurityPolicy',
    DEFAULT_CONTENT_SECURITY_POLICY,
  );
  const hsts = headerValue(value.hsts, 'hsts', DEFAULT_HSTS);
  if (hsts !== false && !HSTS_MAX_AGE.test(hsts)) {
    throw invalidOption(OWNER, 'headers.hsts', `a value with max-age=<seconds> (e.g. "${DEFAULT_HSTS}")`);
  }
  const documentHeaders = value.documentHeaders ?? false;
  if (typeof documentHeaders !== 'boolean') {
    throw invalidOption(OWNER, 'headers.documentHeaders', 'a boolean');
  }
  return { contentSecurityPolicy, hsts, documentHeaders };
}

function resolveOrigins(value: unknown): { anyOrigin: boolean; origins: Set<string> } {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidOption(
      OWNER,
      'cors.origin',
      `a non-empty array of origins ("https://app.example.com") or ['*']`,
    );
  }
  if (value.includes('*')) {
    if (value.length > 1)
      throw invalidOption(
        OWNER,
        'cors.origin',
        "origins, or '*' as the only entry",
        "'*' is listed with origins",
      );
    return { anyOrigin: true, origins: new Set() };
  }
  const origins = new Set<string>();
  for (const entry of value as unknown[]) {
    const origin = typeof entry === 'string' ? normalizeOrigin(entry) : undefined;
    if (origin === undefined) {
      const hint =
        entry === 'null'
          ? ' The "null" origin is sent by sandboxed frames and local files: any page can claim it.'
          : '';
      throw invalidOption(
        OWNER,
        'cors.origin',
        'a list of origins: scheme://host[:port] with no path, query or trailing slash',
        `${JSON.stringify(entry)} is not an origin.${hint}`,
      );
    }
    origins.add(origin);
  }
  return { anyOrigin: false, origins };
}

function tokenList(value: unknown, name: string): string[] {
  if (!Array.isArray(value) || value.some((entry) => typeof entry !== 'string' || !isToken(entry))) {
    throw invalidOption(OWNER, `cors.${name}`, 'an array of header names');
  }
  return [...new Set((value as string[]).map((entry) => entry.toLowerCase()))];
}

function resolveMethods(value: unknown): readonly string[] {
  if (value === undefined) return DEFAULT_CORS_METHODS;
  const known: readonly string[] = HTTP_METHODS;
  if (!Array.isArray(value) || value.length === 0 || value.some((entry) => !known.includes(entry))) {
    throw invalidOption(OWNER, 'cors.methods', `a non-empty array of ${HTTP_METHODS.join(', ')}`);
  }
  return [...new Set(value as string[])];
}

function resolveCors(value: unknown): ResolvedCors | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) throw invalidOption(OWNER, 'cors', 'an object { origin: [...] }');
  rejectUnknownOptions(value, CORS_OPTIONS, `${OWNER}: cors`);
  const { anyOrigin, origins } = resolveOrigins(value.origin);
  const credentials = value.credentials ?? false;
  if (typeof credentials !== 'boolean') throw invalidOption(OWNER, 'cors.credentials', 'a boolean');
  if (anyOrigin && credentials) {
    // Echoing any origin with credentials would let every website act with the user's cookies.
    throw invalidOption(
      OWNER,
      'cors.origin',
      'the trusted origins when credentials is true',
      "['*'] cannot be combined with credentials: true",
    );
  }
  const maxAge = nonNegativeWholeNumber(
    value.maxAge,
    DEFAULT_CORS_MAX_AGE_SECONDS,
    OWNER,
    'cors.maxAge',
    'seconds',
  );
  const allowHeaders = value.headers === undefined ? undefined : tokenList(value.headers, 'headers');
  const exposed = value.exposeHeaders === undefined ? [] : tokenList(value.exposeHeaders, 'exposeHeaders');
  return {
    anyOrigin,
    origins,
    credentials,
    allowMethods: resolveMethods(value.methods).join(', '),
    echoRequestedHeaders: allowHeaders === undefined,
    allowHeaders: allowHeaders?.join(', ') ?? '',
    exposeHeaders: [...new Set([...ALWAYS_EXPOSED_HEADERS, ...exposed])].join(', '),
    maxAge: String(maxAge),
  };
}

/** A store may be a class instance, so any object with a hit method (and, if any, a lease method) passes. */
function isStoreLike(value: unknown): value is RateLimitStore {
  if (value === null || typeof value !== 'object') return false;
  const { hit, lease } = value as { hit?: unknown; lease?: unknown };
  return typeof hit === 'function' && (lease === undefined || typeof lease === 'function');
}

function resolveRateLimit(value: unknown): ResolvedRateLimit {
  if (value === undefined) return { global: undefined, store: new MemoryRateLimitStore() };
  if (!isPlainObject(value)) throw invalidOption(OWNER, 'rateLimit', 'an object { limit, windowMs }');
  rejectUnknownOptions(value, RATE_LIMIT_OPTIONS, `${OWNER}: rateLimit`);
  const { limit, windowMs, store, exact = false } = value;
  if (store !== undefined && !isStoreLike(store)) {
    throw invalidOption(
      OWNER,
      'rateLimit.store',
      'an object with a hit(key, windowMs, limit) method, and lease(key, windowMs, limit, want) if any',
    );
  }
  if (typeof exact !== 'boolean') throw invalidOption(OWNER, 'rateLimit.exact', 'a boolean');
  // `{ store }` alone: no global bucket, but route buckets (`meta.rateLimit`) count in that store.
  if (limit === undefined && windowMs === undefined && store !== undefined)
    return { global: undefined, store };
  if (!isPositiveWholeNumber(limit))
    throw invalidOption(OWNER, 'rateLimit.limit', 'a whole number, 1 or more');
  if (!isPositiveWholeNumber(windowMs)) {
    throw invalidOption(OWNER, 'rateLimit.windowMs', 'a whole number of milliseconds, 1 or more');
  }
  return { global: { limit, windowMs, exact }, store: store ?? new MemoryRateLimitStore() };
}

/** Checks every option and resolves the defaults; throws an OptionError naming the first bad option. */
export function resolveSecurityOptions(options: SecurityPluginOptions | undefined): ResolvedSecurity {
  const given: unknown = options ?? {};
  if (!isPlainObject(given)) {
    throw invalidOptions(OWNER, 'an object { headers?, cors?, rateLimit? }');
  }
  rejectUnknownOptions(given, SECURITY_OPTIONS, OWNER);
  return {
    headers: resolveHeaders(given.headers),
    cors: resolveCors(given.cors),
    rateLimit: resolveRateLimit(given.rateLimit),
  };
}
