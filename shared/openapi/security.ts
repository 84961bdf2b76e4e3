// How sign-in shows in an OpenAPI document: the security schemes and the requirement a `meta.auth` route
// carries. With the auth module every credential it accepts is a scheme (a bearer access token, the
// session cookie, the session header) and any one of them satisfies a route; without it only the bearer
// scheme, and only when some route requires sign-in, so a public API shows no sign-in control.
import type { OpenApiSecurityRequirement, OpenApiSecurityScheme } from './types.js';

export const BEARER_AUTH = 'bearerAuth';
/** The auth module's session, sent as its cookie or in the x-session-id header. */
export const SESSION_COOKIE_AUTH = 'sessionCookie';
export const SESSION_HEADER_AUTH = 'sessionHeader';

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

/** The auth module's three schemes, given its session cookie and session header names. */
export function sessionSecurity(session: { cookie: string; header: string }): SecuritySetup {
  return {
    schemes: {
      [BEARER_AUTH]: BEARER_SCHEME,
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
    },
    requirement: [{ [BEARER_AUTH]: [] }, { [SESSION_COOKIE_AUTH]: [] }, { [SESSION_HEADER_AUTH]: [] }],
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
