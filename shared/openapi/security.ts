// How sign-in shows in an OpenAPI document: the security schemes and the requirement a `meta.auth` route
// carries. With the auth module every credential it accepts is a scheme (a bearer access token, the
// session cookie, the session header) and any one of them satisfies a route; without it only the bearer
// scheme, and only when some route requires sign-in, so a public API shows no sign-in control. With API keys
// a key header scheme joins them; a route that asks for scopes lists them on it.
import type { OpenApiSecurityRequirement, OpenApiSecurityScheme } from './types.js';

export const BEARER_AUTH = 'bearerAuth';
/** The auth module's session, sent as its cookie or in the x-session-id header. */
export const SESSION_COOKIE_AUTH = 'sessionCookie';
export const SESSION_HEADER_AUTH = 'sessionHeader';
/** An API key (`modules.auth.apiKeys`) sent in its header; sent as a bearer value it is bearerAuth. */
export const API_KEY_HEADER_AUTH = 'apiKeyHeader';

const BEARER_SCHEME: OpenApiSecurityScheme = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: 'Access token from the sign-in routes, sent as `Authorization: Bearer <token>`.',
};

export interface SecuritySetup {
  /** components.securitySchemes; absent when the document declares none. */
  schemes?: Record<string, OpenApiSecurityScheme>;
  /** The `security` of a `meta.auth` route: any one of the entries satisfies it. */
  requirement: OpenApiSecurityRequirement[];
}

const BEARER_OR_KEY_SCHEME: OpenApiSecurityScheme = {
  ...BEARER_SCHEME,
  description:
    'Access token from the sign-in routes, or an API key (mk_live_...), sent as `Authorization: Bearer <token>`.',
};

/**
 * The auth module's three schemes, given its session cookie and session header names; with `apiKeyHeader`
 * (API keys on) a fourth, the key in that header, and the bearer scheme takes `mk_live_` keys too.
 */
export function sessionSecurity(session: {
  cookie: string;
  header: string;
  apiKeyHeader?: string | undefined;
}): SecuritySetup {
  const keys = session.apiKeyHeader;
  return {
    schemes: {
      [BEARER_AUTH]: keys === undefined ? BEARER_SCHEME : BEARER_OR_KEY_SCHEME,
      [SESSION_COOKIE_AUTH]: {
        type: 'apiKey',
        in: 'cookie',
        name: session.cookie,
        description: 'The session cookie the sign-in routes set for browsers (HttpOnly).',
      },
      [SESSION_HEADER_AUTH]: {
        type: 'apiKey',
        in: 'header',
        name: session.header,
        description: 'A session id, for clients that keep no cookies.',
      },
      ...(keys === undefined
        ? {}
        : {
            [API_KEY_HEADER_AUTH]: {
              type: 'apiKey',
              in: 'header',
              name: keys,
              description: 'An API key (mk_live_...), for programs acting for its owner within its scopes.',
            } satisfies OpenApiSecurityScheme,
          }),
    },
    requirement: [
      { [BEARER_AUTH]: [] },
      { [SESSION_COOKIE_AUTH]: [] },
      { [SESSION_HEADER_AUTH]: [] },
      ...(keys === undefined ? [] : [{ [API_KEY_HEADER_AUTH]: [] }]),
    ],
  };
}

/** Without the auth module: the bearer scheme, declared only when some route requires sign-in. */
export function bearerSecurity(usesAuth: boolean): SecuritySetup {
  return {
    ...(usesAuth ? { schemes: { [BEARER_AUTH]: BEARER_SCHEME } } : {}),
    requirement: [{ [BEARER_AUTH]: [] }],
  };
}

/** The requirement that fits the schemes a document already declares: any one of them. */
export function requirementOf(schemes: Readonly<Record<string, unknown>>): OpenApiSecurityRequirement[] {
  return Object.keys(schemes).map((name) => ({ [name]: [] }));
}

/** What of a route's meta decides its `security`. */
export interface RouteSecurityMeta {
  auth?: boolean | undefined;
  /** API-key scopes (`meta.scopes`): a key must hold them, a signed-in user acts by their own rights. */
  scopes?: readonly string[] | undefined;
  /** `false` refuses every API key. */
  apiKey?: boolean | undefined;
}

/**
 * The `security` of one route: empty (public) unless it signs in (`auth`) or asks for scopes; then any scheme
 * of `requirement`, the key header carrying the route's scopes (OpenAPI 3.1 allows them for any scheme type)
 * and left out on a route that refuses keys.
 */
export function routeSecurity(
  meta: RouteSecurityMeta,
  requirement: readonly OpenApiSecurityRequirement[],
): OpenApiSecurityRequirement[] {
  const scopes = Array.isArray(meta.scopes) ? meta.scopes : [];
  if (meta.auth !== true && scopes.length === 0) return [];
  return requirement
    .filter((entry) => !(API_KEY_HEADER_AUTH in entry) || meta.apiKey !== false)
    .map((entry) => (API_KEY_HEADER_AUTH in entry ? { [API_KEY_HEADER_AUTH]: [...scopes] } : { ...entry }));
}
