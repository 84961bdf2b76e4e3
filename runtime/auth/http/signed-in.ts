// The answer of every sign-in route: the browser session that goes with the sign-in (its cookie set on the
// reply) and the user with the token pair.
import type { SignedIn } from '../../../generated/modules/auth/types.js';
import type { SvcReply } from '../../http/types.js';
import type { Auth, LoginResult } from '../auth.js';
import { setCookieLine, type SessionCookie } from './cookie.js';
import { putSessionCookie } from './set-cookie.js';

export type SignedInResponder = (result: LoginResult, reply: SvcReply) => Promise<SignedIn>;

export function signedInResponder(auth: Auth, cookie: SessionCookie): SignedInResponder {
  return async (result, reply) => {
    const sessionId = result.sessionId ?? (await auth.createSession(result.user.id, { amr: result.amr }));
    putSessionCookie(reply, cookie, setCookieLine(cookie, sessionId, auth.ttls.sessionTtl));
    return { user: result.user, ...result.tokens };
  };
}
