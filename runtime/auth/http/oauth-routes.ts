// The provider sign-in routes of spec/modules/auth.yaml (`features: { oauth }`), which oauthPlugin() mounts:
// sending the browser to a provider, its return, the second factor of an account that has one, and the
// caller's provider links. None is cached: each answers a redirect carrying a state, tokens, or one user's
// data.
//
// A sign-in is bound to the browser that started it: the start sets the binding cookie (32 random bytes,
// HttpOnly, SameSite=Lax so that the provider's top-level redirect back carries it, `__Host-` prefixed when
// Secure so no sibling subdomain can plant one) whose hash the signed state holds; the callback reads it back.
// One sign-in per browser at a time: starting another replaces the cookie, and the first one's return is
// refused. An account with two-factor sign-in gets, instead of tokens, 401 AUTH_MFA_REQUIRED with a single-use
// ticket (`details.mfaTicket`, 5 minutes) that POST /auth/oauth/mfa exchanges with a code.
import type { Handlers as AuthHandlers } from '../../../generated/modules/auth/routes.js';
import type { SignedIn } from '../../../generated/modules/auth/types.js';
import { errors } from '../../../generated/modules/errors.js';
import { HttpError } from '../../http/errors.js';
import type { RequestHeaders, SvcReply } from '../../http/types.js';
import type { Auth, LoginResult } from '../auth.js';
import type { OAuthService } from '../oauth/service.js';
import type { OAuthProfile } from '../oauth/types.js';
import type { ChallengeStore } from '../passkeys/store.js';
import { hashToken, newOpaqueToken } from '../tokens/opaque.js';
import { expireCookieLine, setCookieLine, type SessionCookie } from './cookie.js';
import { boundCookieValue, signedInUser } from './credentials.js';
import { noStore } from './no-store.js';
import { putSessionCookie } from './set-cookie.js';
import type { SignedInResponder } from './signed-in.js';

/** The route ids of the `oauth` feature: mounted by oauthPlugin(), never by authRoutes(). */
export const OAUTH_ROUTE_IDS = [
  'oauthStart',
  'oauthCallback',
  'oauthMfa',
  'accountLinkList',
  'accountLinkRemove',
] as const;

export type OAuthRouteId = (typeof OAUTH_ROUTE_IDS)[number];

/** The two routes a browser reaches from another site, which carry the per-IP limit. */
export const OAUTH_SIGN_IN_ROUTE_IDS: readonly OAuthRouteId[] = ['oauthStart', 'oauthCallback'];

/** How long the second factor may take once the provider said who it is. */
const MFA_TICKET_TTL_MS = 5 * 60_000;
const MFA_TICKET_PREFIX = 'oauth-mfa:';

export interface OAuthRouteSettings {
  auth: Auth;
  service: OAuthService;
  /** The binding cookie. */
  binding: SessionCookie;
  /** The application's base URL redirect URIs are built on (known once the app listens, by default). */
  callbackBaseUrl: () => string;
  /** Where the browser goes after the callback, the outcome in the fragment; undefined answers JSON. */
  successRedirect: string | undefined;
  /** Second-factor tickets: single use, shared by the processes of the service. */
  tickets: ChallengeStore;
  signedIn: SignedInResponder;
  clock: () => number;
}

/** `successRedirect` with `values` in the fragment (never the query: a fragment is not sent to servers). */
function redirectWith(reply: SvcReply, target: string, values: Record<string, string>): void {
  const url = new URL(target);
  url.hash = new URLSearchParams(values).toString();
  // The page the tokens land on must not pass its URL on as a referrer.
  reply.header('referrer-policy', 'no-referrer');
  reply.status(302).header('location', url.href);
  reply.send();
}

/** A profile kept across the second-factor step, read back only from the store this code wrote it to. */
function profileOf(text: string): OAuthProfile | undefined {
  try {
    const value = JSON.parse(text) as Partial<OAuthProfile>;
    const { provider, subject, email, emailVerified } = value;
    if (
      typeof provider !== 'string' ||
      typeof subject !== 'string' ||
      typeof email !== 'string' ||
      typeof emailVerified !== 'boolean'
    )
      return undefined;
    return { provider, subject, email, emailVerified };
  } catch {
    return undefined;
  }
}

export function oauthHandlers(settings: OAuthRouteSettings): Pick<AuthHandlers, OAuthRouteId> {
  const { auth, service, binding: cookie, tickets, signedIn, clock } = settings;

  const signIn = (profile: OAuthProfile, ip: string | undefined, mfaCode?: string): Promise<LoginResult> =>
    auth.socialLogin(profile.email, {
      emailVerified: profile.emailVerified,
      identity: { provider: profile.provider, subject: profile.subject },
      ...(service.subjectConflict === undefined ? {} : { subjectConflict: service.subjectConflict }),
      ...(service.mfa === undefined ? {} : { mfa: service.mfa }),
      ...(mfaCode === undefined ? {} : { mfaCode }),
      from: { ip, session: true },
    });

  /** AUTH_MFA_REQUIRED carrying a ticket that resumes this sign-in with a code. */
  const mfaTicket = async (profile: OAuthProfile, error: HttpError): Promise<HttpError> => {
    const ticket = newOpaqueToken();
    await tickets.put(MFA_TICKET_PREFIX + hashToken(ticket), {
      challenge: JSON.stringify(profile),
      userId: undefined,
      expiresAt: clock() + MFA_TICKET_TTL_MS,
    });
    return errors.AUTH_MFA_REQUIRED({ message: error.message, details: { mfaTicket: ticket } });
  };

  const finishCallback = async (
    provider: string,
    query: { code?: string; state?: string; error?: string },
    headers: RequestHeaders,
    ip: string | undefined,
  ): Promise<LoginResult> => {
    const profile = await service.finish(provider, {
      callbackBaseUrl: settings.callbackBaseUrl(),
      state: query.state,
      code: query.code,
      error: query.error,
      binding: boundCookieValue(headers, cookie),
    });
    try {
      return await signIn(profile, ip);
    } catch (error) {
      if (error instanceof HttpError && error.code === 'AUTH_MFA_REQUIRED')
        throw await mfaTicket(profile, error);
      throw error;
    }
  };

  return {
    async oauthStart({ params, reply }) {
      noStore(reply);
      const { url, binding, expiresAt } = await service.start(params.provider, {
        callbackBaseUrl: settings.callbackBaseUrl(),
      });
      putSessionCookie(reply, cookie, setCookieLine(cookie, binding, expiresAt - clock()));
      reply.status(302).header('location', url.href);
      reply.send();
      return undefined;
    },

    async oauthCallback({ params, query, request, reply }) {
      noStore(reply);
      // The binding has served its purpose whatever follows: the state it vouches for is single use.
      putSessionCookie(reply, cookie, expireCookieLine(cookie));
      const target = settings.successRedirect;
      if (target === undefined) {
        return signedIn(await finishCallback(params.provider, query, request.headers, request.ip), reply);
      }
      let answer: SignedIn;
      try {
        answer = await signedIn(
          await finishCallback(params.provider, query, request.headers, request.ip),
          reply,
        );
      } catch (error) {
        // The browser is on its way back to the application: the outcome goes there, not to a JSON page.
        if (!(error instanceof HttpError)) throw error;
        const details = error.details as { mfaTicket?: unknown } | undefined;
        const outcome: Record<string, string> = { error: error.code };
        if (typeof details?.mfaTicket === 'string') outcome.mfaTicket = details.mfaTicket;
        redirectWith(reply, target, outcome);
        return undefined;
      }
      redirectWith(reply, target, { accessToken: answer.accessToken, refreshToken: answer.refreshToken });
      return undefined;
    },

    async oauthMfa({ body, request, reply }) {
      noStore(reply);
      const kept = await tickets.take(MFA_TICKET_PREFIX + hashToken(body.ticket), clock());
      const profile = kept === undefined ? undefined : profileOf(kept.challenge);
      if (profile === undefined) {
        throw errors.AUTH_OAUTH_STATE_INVALID({ message: 'The sign-in ticket is invalid or has expired.' });
      }
      return signedIn(await signIn(profile, request.ip, body.mfaCode), reply);
    },

    async accountLinkList({ context, reply }) {
      noStore(reply);
      const user = signedInUser(context);
      return { links: await auth.listAccountLinks(user.id) };
    },

    async accountLinkRemove({ params, context, reply }) {
      noStore(reply);
      await auth.removeAccountLink(signedInUser(context), params.provider, params.subject);
      return undefined;
    },
  };
}
