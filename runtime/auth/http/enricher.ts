// The auth enricher: a Bearer JWT, the `x-session-id` header
// or the session cookie puts `user` and `amr` on the context. No credential leaves the request anonymous; an
// explicitly invalid one (a bearer token, an `x-session-id`) answers 401, while a cookie that does not verify
// is not presented by the caller and leaves it anonymous. Bearer values starting `mk_` are API keys, left to
// the API-key plugin (the session header and cookie are read as if no bearer value were there).
import { SESSION_ID_HEADER } from '../../../shared/module-defaults.js';
import { errors } from '../../../generated/modules/errors.js';
import type { Enricher, PipelineInput } from '../../http/types.js';
import type { Auth } from '../auth.js';
import type { CookieExpiry } from './cookie-expiry.js';
import type { SessionCookie } from './cookie.js';
import { bearerToken, headerValue, sessionCookieValues, type Credential } from './credentials.js';
import { isCrossSite } from './cross-site.js';

export const API_KEY_BEARER_PREFIX = 'mk_';
export { SESSION_ID_HEADER };

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function authEnricher(
  auth: Auth,
  cookie: SessionCookie,
  expiry: CookieExpiry,
  trustedOrigins: ReadonlySet<string>,
): Enricher {
  const read = async ({ request, context }: PipelineInput, bearer: string | undefined): Promise<void> => {
    if (bearer !== undefined) {
      const verified = await auth.verifyAccess(bearer);
      context.user = verified.user;
      context.amr = verified.amr;
      context.credential = { kind: 'bearer' } satisfies Credential;
      return;
    }

    const headerId = headerValue(request.headers[SESSION_ID_HEADER]);
    if (headerId !== undefined && headerId !== '') {
      // A header is presented on purpose: an unknown, ended or forged session is an invalid credential.
      const session = await auth.sessionAuth(headerId);
      if (!session) throw errors.AUTH_TOKEN_INVALID();
      context.user = session.user;
      context.amr = session.amr;
      context.credential = { kind: 'session', source: 'header', sessionId: headerId } satisfies Credential;
      return;
    }

    const values = sessionCookieValues(request.headers, cookie);
    if (values.length === 0) return;
    // The browser sends the cookie, the caller does not present it: a value that does not verify leaves
    // the request anonymous, and when none is even signed the answer expires the cookie. A signed cookie of
    // a session that ended (logout elsewhere, password reset) is ignored too, and kept (cookie-expiry.ts).
    let signed = false;
    for (const cookieId of values) {
      if (cookieId === '') continue;
      const session = await auth.sessionAuth(cookieId);
      if (!session) {
        signed ||= auth.isSignedSessionId(cookieId);
        continue;
      }
      // Browsers attach cookies to cross-site requests (SameSite=None, or older browsers): an unsafe
      // request authenticated by nothing but the cookie must come from the same site.
      if (!SAFE_METHODS.has(request.method) && isCrossSite(request.headers, trustedOrigins)) {
        throw errors.AUTH_CSRF_REJECTED();
      }
      context.user = session.user;
      context.amr = session.amr;
      context.credential = { kind: 'session', source: 'cookie', sessionId: cookieId } satisfies Credential;
      return;
    }
    if (!signed) expiry.expire(request);
  };

  return {
    name: 'svc:auth',
    enrich(input) {
      const { headers } = input.request;
      const authorization = headerValue(headers.authorization);
      const presented = authorization === undefined ? undefined : bearerToken(authorization);
      // A bearer API key is the key plugin's; the session header or cookie beside it is still read, so a key
      // and a session of two different users are refused however the key was sent.
      const bearer =
        presented !== undefined && !presented.startsWith(API_KEY_BEARER_PREFIX) ? presented : undefined;
      // Nothing of a user's own to read (anonymous and most API-key requests): no lookup and no promise.
      if (bearer === undefined && headers[SESSION_ID_HEADER] === undefined && headers.cookie === undefined) {
        return;
      }
      return read(input, bearer);
    },
  };
}
