// The one rule for which error codes a route can answer: the codes it declares plus the codes the pipeline
// itself may answer for it, in a fixed order and grouped by status. The generator (openapi.json, client.ts,
// docs) and the runtime (the document openapiPlugin serves for handwritten routes) both read it, so a
// route's documented errors never depend on who described it.
import { API_KEY_PROTECTING_META, refusesApiKeys } from '../api-key-meta.js';
import { letsNonMembersThrough } from '../tenancy-roles.js';

/**
 * The part of the module model (IR `moduleSettings`) the rule reads: which built-in modules act on every route
 * besides what its meta asks for. ModuleSettingsIR fits; the runtime builds one from what the registered
 * plugins publish (bucket `http:route-error-modules`).
 */
export interface RouteErrorModules {
  /**
   * The auth module reads a presented credential on every route (and checks cross-site unsafe requests);
   * `requireMfa`: its policy refuses every authenticated request without a second factor. `apiKeys`: its
   * API-key plugin reads a presented key on every route and guards `meta.scopes` and `meta.apiKey`: `true`
   * (what the plugin publishes) or its settings (IR `auth.apiKeys`, which decide no code); absent, off.
   */
  auth?: { requireMfa?: boolean; apiKeys?: boolean | object };
  /** `globalRateLimit`: a per-client bucket counted on every route that is not an edge route. */
  edge?: { globalRateLimit: boolean };
  /** Idempotency keys are honoured on routes of these methods (unless a route opts out). */
  idempotency?: { methods: readonly string[] };
  /**
   * The tenancy module reads the tenant a request names on every route and admits the tenant's members only,
   * except on account and central routes; it guards `meta.teamRole` and `meta.can`.
   */
  tenancy?: object;
}

/** What a route is, as far as the pipeline's own refusals go. */
export interface RouteErrorFacts {
  /** The route validates params, query or a JSON body. */
  validates: boolean;
  body: 'json' | 'upload' | 'raw' | undefined;
  /** `meta.auth: true`: a caller without a credential is refused, and so is one whose credential fails. */
  auth: boolean;
  /** `meta.mfa: true`: a credential obtained without a second factor is refused. */
  mfa: boolean;
  /** The auth module's `requireMfa` policy covers the route (it does not say `mfa: false`). */
  mfaPolicy: boolean;
  /** The auth module reads a presented credential on every route: a bad one is refused even here. */
  readsCredentials: boolean;
  /** ...and refuses a cookie-authenticated cross-site request with an unsafe method (CSRF). */
  checksCrossSite: boolean;
  /** The API-key plugin reads a presented key (two different ones, a key of another tenant are refused). */
  readsApiKeys: boolean;
  /** `meta.scopes` (with API keys): a key must hold them, and an anonymous caller is refused. */
  scopes: boolean;
  /**
   * A key lacking a scope may be refused: the route asks for scopes, or protects something (auth, can, ...)
   * and a key without `*` acts there only with allowNarrowKeysOnUnscopedRoutes (a runtime setting).
   */
  narrowKeysRefused: boolean;
  /** `meta.apiKey: false` (with API keys): every key is refused. */
  refusesApiKeys: boolean;
  /** `meta.rateLimit` is set (anything but false/null), or a global rate limit counts every route. */
  rateLimited: boolean;
  idempotency: 'required' | 'optional' | undefined;
  /** The tenancy module reads the tenant the request names (its header, or the `tenantId` path parameter). */
  readsTenant: boolean;
  /** ...and refuses a caller who is not a member of it (not on account or central routes). */
  tenantMembers: boolean;
  /** `meta.teamRole` (with the tenancy module): the caller's role must be that role or more powerful. */
  teamRole: boolean;
  /** `meta.can` (with the tenancy module): the caller's role must be granted each permission. */
  can: boolean;
}

/** What both a spec route (RouteIR) and a runtime route (Route) carry that decides its implied codes. */
export interface RouteErrorSource {
  method: string;
  params?: unknown;
  query?: unknown;
  body?: { kind: 'json' | 'upload' | 'raw' } | undefined;
  meta: {
    auth?: unknown;
    mfa?: unknown;
    rateLimit?: unknown;
    idempotency?: unknown;
    account?: unknown;
    central?: unknown;
    teamRole?: unknown;
    can?: unknown;
    audience?: unknown;
    scopes?: unknown;
    apiKey?: unknown;
  };
}

const SAFE_METHODS: readonly string[] = ['GET', 'HEAD', 'OPTIONS'];

/** `meta.idempotency` as a route declares it: 'required' or 'optional', else undefined. */
export function declaredIdempotency(meta: { idempotency?: unknown }): 'required' | 'optional' | undefined {
  const declared = meta.idempotency;
  return declared === 'required' || declared === 'optional' ? declared : undefined;
}

/**
 * The facts of a route, read the same way from the spec and from a registered route. `modules` is the module
 * model (IR `moduleSettings`): which built-in modules act on every route besides what its meta asks for.
 * Edge routes (probes, documents) skip enrichers, guards and rate limits: they have no such facts.
 */
export function routeErrorFacts(route: RouteErrorSource, modules: RouteErrorModules = {}): RouteErrorFacts {
  const { meta } = route;
  const method = route.method.toUpperCase();
  // The idempotency module honours keys on the methods it lists, unless the route opts out (false).
  const keyed =
    modules.idempotency !== undefined &&
    meta.idempotency !== false &&
    modules.idempotency.methods.includes(method);
  const tenancy = modules.tenancy !== undefined;
  const apiKeys = modules.auth?.apiKeys !== undefined && modules.auth.apiKeys !== false;
  const scoped = apiKeys && Array.isArray(meta.scopes) && meta.scopes.length > 0;
  // `apiKey: false` (and step-up) refuses every key before the guard looks at its tenant or scopes.
  const refusesKeys = apiKeys && refusesApiKeys(meta);
  return {
    validates: route.params !== undefined || route.query !== undefined || route.body?.kind === 'json',
    body: route.body?.kind,
    auth: meta.auth === true,
    mfa: meta.mfa === true,
    mfaPolicy: modules.auth?.requireMfa === true && meta.mfa !== false,
    readsCredentials: modules.auth !== undefined,
    checksCrossSite: modules.auth !== undefined && !SAFE_METHODS.includes(method),
    readsApiKeys: apiKeys,
    scopes: scoped,
    // The guard's rule for keys without `*`: on a route that protects something, only its scopes admit them.
    narrowKeysRefused:
      !refusesKeys && (scoped || (apiKeys && API_KEY_PROTECTING_META.some((key) => asks(meta[key])))),
    refusesApiKeys: refusesKeys,
    rateLimited:
      (meta.rateLimit !== undefined && meta.rateLimit !== false && meta.rateLimit !== null) ||
      modules.edge?.globalRateLimit === true,
    idempotency: declaredIdempotency(meta) ?? (keyed ? 'optional' : undefined),
    readsTenant: tenancy,
    tenantMembers: tenancy && !letsNonMembersThrough(meta),
    teamRole: tenancy && asks(meta.teamRole),
    can: tenancy && asks(meta.can),
  };
}

/** A guarded meta key the guard runs for: anything but absent or the opt-off false (as the guard decides). */
function asks(value: unknown): boolean {
  return value !== undefined && value !== false;
}

/** An error code as a catalog declares it (ErrorIR and the generated catalog's entries fit). */
export interface ErrorCatalogEntry {
  code: string;
  /** HTTP status, or 'boot' for errors that refuse start-up. */
  status: number | 'boot';
  /** Further statuses the same code may be answered with. */
  statuses?: readonly number[];
  message: string;
}

/** One HTTP status a route can answer with an error, and the codes answered with it (sorted by code). */
export interface ErrorStatusGroup<E extends ErrorCatalogEntry = ErrorCatalogEntry> {
  status: number;
  errors: E[];
}

/** What the runtime refuses before the handler sees the body, by body kind. */
const BODY_CODES: Record<NonNullable<RouteErrorFacts['body']> | 'none', readonly string[]> = {
  none: [],
  // Malformed JSON, a non-JSON content type and an oversized body are refused before validation.
  json: ['BAD_REQUEST', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'],
  // Multipart that breaks the grammar or a limit; a body that is not multipart or a file type not allowed.
  upload: [
    'MALFORMED_MULTIPART',
    'TOO_MANY_FILES',
    'TOO_MANY_FIELDS',
    'PAYLOAD_TOO_LARGE',
    'UNSUPPORTED_MEDIA_TYPE',
  ],
  // Past maxBytes; or bytes declared that no adapter could supply (an application-wide parser ate them).
  raw: ['PAYLOAD_TOO_LARGE', 'RAW_BODY_UNAVAILABLE'],
};

/**
 * The one status the pipeline answers an implied code with, for codes whose catalog entry lists several
 * (AUTH_TOKEN_INVALID is 400 for a mailed link, but a refused credential is always 401).
 */
const PIPELINE_STATUS: Readonly<Record<string, number>> = {
  AUTH_TOKEN_INVALID: 401,
  AUTH_MFA_REQUIRED: 403,
};

/** A code the route does not declare is answered by the pipeline only, with its pipeline status. */
export function impliedStatus(declared: readonly string[]): (code: string) => number | undefined {
  return (code) => (declared.includes(code) ? undefined : PIPELINE_STATUS[code]);
}

/** Codes the pipeline may answer for a route whether or not it lists them. */
export function impliedErrorCodes(facts: RouteErrorFacts): string[] {
  const codes: string[] = [];
  if (facts.validates) codes.push('HTTP_VALIDATION');
  codes.push(...BODY_CODES[facts.body ?? 'none']);
  // A team role or a permission is a signed-in member's: an anonymous caller naming no tenant gets 401.
  // Scopes admit a key holding them or a signed-in user; an anonymous caller gets 401 as well.
  if (facts.auth || facts.mfa || facts.teamRole || facts.can || facts.scopes) codes.push('AUTH_REQUIRED');
  // A presented bearer token (or session header) that does not verify: where a route requires a credential,
  // and on every route once the auth module's enricher reads them.
  if (facts.auth || facts.readsCredentials) codes.push('AUTH_TOKEN_INVALID', 'AUTH_TOKEN_EXPIRED');
  if (facts.mfa || facts.mfaPolicy) codes.push('AUTH_MFA_REQUIRED');
  // The policy tells a signed-in user without a second factor to enrol one.
  if (facts.mfaPolicy) codes.push('AUTH_MFA_ENROLLMENT_REQUIRED');
  if (facts.checksCrossSite) codes.push('AUTH_CSRF_REJECTED');
  // Two different keys in the two places, on every route; then the guard: a route refusing keys refuses
  // them all, elsewhere a key issued in another tenant (or none) than the request names is refused.
  if (facts.readsApiKeys) codes.push('AUTH_APIKEY_AMBIGUOUS');
  if (facts.refusesApiKeys) codes.push('AUTH_APIKEY_NOT_ALLOWED');
  else if (facts.readsApiKeys) codes.push('AUTH_APIKEY_TENANT_MISMATCH');
  if (facts.narrowKeysRefused) codes.push('AUTH_SCOPE_REQUIRED');
  // A malformed tenant id, or a path and a header naming different tenants: read on every route.
  if (facts.readsTenant) codes.push('TENANT_INVALID', 'TENANT_CONFLICT');
  // A role or a permission is held in a tenant the caller is a member of, even on account and central routes.
  if (facts.tenantMembers || facts.teamRole || facts.can) codes.push('TENANT_ACCESS_DENIED');
  if (facts.teamRole || facts.can) codes.push('TENANT_REQUIRED');
  if (facts.teamRole) codes.push('TENANT_ROLE_REQUIRED');
  if (facts.can) codes.push('PERMISSION_DENIED');
  if (facts.rateLimited) codes.push('RATE_LIMITED');
  if (facts.idempotency !== undefined) {
    codes.push('IDEMPOTENCY_KEY_INVALID', 'IDEMPOTENCY_CONFLICT', 'IDEMPOTENCY_KEY_REUSED');
    if (facts.idempotency === 'required') codes.push('IDEMPOTENCY_KEY_REQUIRED');
  }
  codes.push('INTERNAL_ERROR');
  return codes;
}

/**
 * `codes` without duplicates and without boot-only codes (they never reach a client), sorted by status,
 * then code. `statusOf` answers a code's status, 'boot', or undefined for an unknown code (sorted last).
 */
export function orderErrorCodes(
  codes: readonly string[],
  statusOf: (code: string) => number | 'boot' | undefined,
): string[] {
  const rank = (code: string): number => {
    const status = statusOf(code);
    if (status === 'boot') return -1;
    return status ?? Number.MAX_SAFE_INTEGER;
  };
  return [...new Set(codes)]
    .filter((code) => rank(code) !== -1)
    .sort((a, b) => rank(a) - rank(b) || compareCodes(a, b));
}

/**
 * Ordered codes grouped by every status each can carry (a code with `statuses` appears under each of
 * them, unless `onlyStatus` names the one it is answered with), sorted by status. Throws when `find` knows
 * a code not: `route` names the route in the message.
 */
export function groupErrorsByStatus<E extends ErrorCatalogEntry>(
  codes: readonly string[],
  find: (code: string) => E | undefined,
  route: string,
  onlyStatus: (code: string) => number | undefined = () => undefined,
): ErrorStatusGroup<E>[] {
  const groups = new Map<number, E[]>();
  for (const code of codes) {
    const entry = find(code);
    if (!entry) throw new Error(`route ${route} answers error code ${code}, which no catalog declares`);
    if (entry.status === 'boot') continue;
    const only = onlyStatus(code);
    const statuses = only !== undefined ? [only] : [entry.status, ...(entry.statuses ?? [])];
    for (const status of new Set(statuses)) {
      const group = groups.get(status) ?? [];
      group.push(entry);
      groups.set(status, group);
    }
  }
  return [...groups.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, errors]) => ({ status, errors: errors.sort((a, b) => compareCodes(a.code, b.code)) }));
}

// Plain code-unit order, so the result never depends on the machine's locale.
function compareCodes(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
