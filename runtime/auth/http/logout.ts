// POST /auth/logout (docs/auth.md, "The plugin and the routes"). A logout signs
// out the client that sends it: every session the request presents ends (the `x-session-id` header and each
// session cookie, whichever credential the enricher accepted), a refresh token in the body has its family
// revoked, and a cookie that was sent is expired. A cross-site logout that only the cookie speaks for (no
// bearer, header, API key or refresh token, none of which a browser attaches by itself) is a forged request:
// 403 AUTH_CSRF_REJECTED, and nothing ends.
import { errors } from '../../../generated/modules/errors.js';
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import type { Auth } from '../auth.js';
import { expireCookieLine, type SessionCookie } from './cookie.js';
import { headerValue, sessionCookieValues, type Credential } from './credentials.js';
import { isCrossSite } from './cross-site.js';
import { SESSION_ID_HEADER } from './enricher.js';
import { putSessionCookie } from './set-cookie.js';

export function logoutHandler(
  auth: Auth,
  settings: { cookie: SessionCookie; trustedOrigins: ReadonlySet<string> },
): AuthHandlers['logout'] {
  const { cookie, trustedOrigins } = settings;
  return async ({ body, request, reply, context }) => {
    const credential = context.credential as Credential | undefined;
    const refreshToken = body?.refreshToken;
    const cookieValues = sessionCookieValues(request.headers, cookie);
    const cookieOnly =
      refreshToken === undefined &&
      context.apiKey === undefined &&
      (credential === undefined || (credential.kind === 'session' && credential.source === 'cookie'));
    // The enricher refuses a cross-site write with a live cookie; this covers ended and unverifiable ones.
    if (cookieOnly && cookieValues.length > 0 && isCrossSite(request.headers, trustedOrigins)) {
      throw errors.AUTH_CSRF_REJECTED();
    }

    if (refreshToken !== undefined) await auth.revoke(refreshToken);
    // Only ids signed by this secret can name a session; the rest never resolved and are skipped.
    const headerId = headerValue(request.headers[SESSION_ID_HEADER]);
    const presented = new Set([...(headerId === undefined ? [] : [headerId]), ...cookieValues]);
    for (const sessionId of presented) {
      if (sessionId !== '' && auth.isSignedSessionId(sessionId)) await auth.logout(sessionId);
    }
    if (cookieValues.length > 0) putSessionCookie(reply, cookie, expireCookieLine(cookie));
    reply.status(204);
    return undefined;
  };
}
