// An unverifiable session cookie is expired in the answer. A cookie is sent by the browser, not presented
// by the caller: one whose signature fails (SVC_SECRET rotated, a cookie tossed from a sibling subdomain,
// garbage) leaves the request anonymous, and this makes the browser drop it, so it stops riding on every
// request. Enrichers get no reply, so the auth plugin's request hook, which runs before them on every answer,
// keeps the reply for the enricher to use once it has read the cookie. On answers without enrichers (the
// neutral 404/405, edge routes) the hook checks the cookie itself: a synchronous HMAC, no store lookup.
//
// A genuinely signed cookie of a session that ended is left alone (docs/auth.md): a lookup that misses is a
// fact of the store at that moment, not of the cookie, and expiring on it would turn a transient miss into a
// sign-out.
import type { Auth } from '../auth.js';
import { existingHookSlots, hookSlots } from '../../http/hook-slots.js';
import type { RequestHook, SvcReply, SvcRequest } from '../../http/types.js';
import { expireCookieLine, type SessionCookie } from './cookie.js';
import { sessionCookieValues } from './credentials.js';
import { putSessionCookie } from './set-cookie.js';

/** Where the hook keeps the reply of a request an enricher will look at (a slot on the request's context). */
const REPLY: unique symbol = Symbol('svc:auth-cookie');

export class CookieExpiry {
  private readonly auth: Auth;
  private readonly cookie: SessionCookie;

  constructor(auth: Auth, cookie: SessionCookie) {
    this.auth = auth;
    this.cookie = cookie;
  }

  /** Expires the session cookie in the answer to `request` (when the hook saw it and nothing was sent). */
  expire(request: SvcRequest): void {
    const reply = existingHookSlots(request)?.[REPLY] as SvcReply | undefined;
    if (reply !== undefined && !reply.sent)
      putSessionCookie(reply, this.cookie, expireCookieLine(this.cookie));
  }

  /** The request hook: registered by the auth plugin in `http:request-hooks`. */
  hook(): RequestHook {
    return {
      name: 'svc:auth-cookie',
      onRequest: ({ request, reply, route }) => {
        if (request.headers.cookie === undefined) return;
        // Routes that run enrichers: the auth enricher reads the cookie anyway and says when to expire it.
        if (route !== undefined && route.edge !== true) {
          hookSlots(request)[REPLY] = reply;
          return;
        }
        const values = sessionCookieValues(request.headers, this.cookie);
        if (values.length > 0 && !values.some((value) => this.auth.isSignedSessionId(value))) {
          putSessionCookie(reply, this.cookie, expireCookieLine(this.cookie));
        }
      },
    };
  }
}
