// `authRoutes()` (seed 000 "Account routes"): the handlers of the routes spec/modules/auth.yaml declares,
// bound to the generated definitions. Each route can be omitted or replaced one by one.
import {
  routes as bindAuthRoutes,
  type Handlers as AuthHandlers,
  type RouteId as AuthRouteId,
} from '../../../generated/modules/auth/routes.js';
import { errors } from '../../../generated/modules/errors.js';
import type { Route, SvcReply } from '../../http/types.js';
import type { Auth, LoginResult } from '../auth.js';
import type { PublicUser } from '../stores/users.js';
import { expireCookieLine, readCookie, setCookieLine, type SessionCookie } from './cookie.js';
import { headerValue, type Credential } from './credentials.js';
import { isCrossSite } from './cross-site.js';

export type { AuthHandlers, AuthRouteId };

/** The meta every account route carries (seed 000): about the caller, and exempt from the MFA policy. */
export const ACCOUNT_META = Object.freeze({ account: true, mfa: false } as const);

export interface AuthRoutesOptions {
  /** Route ids left out (not mounted). */
  omit?: readonly AuthRouteId[];
  /** Handlers used instead of svc's, by route id. */
  replace?: Partial<AuthHandlers>;
}

export interface AuthRouteSettings {
  cookie: SessionCookie;
  trustedOrigins: ReadonlySet<string>;
}

const ACCEPTED = { ok: true } as const;

export function authRoutes(
  auth: Auth,
  settings: AuthRouteSettings,
  options: AuthRoutesOptions = {},
): Route[] {
  const handlers: AuthHandlers = { ...authHandlers(auth, settings), ...options.replace };
  const omitted = new Set<string>(options.omit ?? []);
  return bindAuthRoutes(handlers).filter((route) => route.id === undefined || !omitted.has(route.id));
}

function authHandlers(auth: Auth, { cookie, trustedOrigins }: AuthRouteSettings): AuthHandlers {
  /** Starts the browser session that goes with a sign-in and answers the token pair. */
  const signedIn = async (result: LoginResult, reply: SvcReply) => {
    const sessionId = result.sessionId ?? (await auth.createSession(result.user.id, { amr: result.amr }));
    reply.header('set-cookie', setCookieLine(cookie, sessionId, auth.ttls.sessionTtl));
    return { user: result.user, ...result.tokens };
  };

  return {
    async register({ body, reply }) {
      return signedIn(await auth.register(body.email, body.password), reply);
    },

    async login({ body, request, reply }) {
      const result = await auth.login(body.email, body.password, body.mfaCode, {
        ip: request.ip,
        session: true,
      });
      return signedIn(result, reply);
    },

    async refresh({ body }) {
      return auth.refresh(body.refreshToken);
    },

    async logout({ body, request, reply, context }) {
      const credential = context.credential as Credential | undefined;
      const session = credential?.kind === 'session' ? credential : undefined;
      const cookieId = readCookie(headerValue(request.headers.cookie), cookie.name);
      if (body?.refreshToken !== undefined) {
        await auth.revoke(body.refreshToken);
      } else if (
        session === undefined &&
        cookieId !== undefined &&
        isCrossSite(request.headers, trustedOrigins)
      ) {
        // A cookie-only logout from another site (the enricher refuses live ones; this covers ended ones).
        throw errors.AUTH_CSRF_REJECTED();
      }
      if (session !== undefined) await auth.logout(session.sessionId);
      if (cookieId !== undefined) reply.header('set-cookie', expireCookieLine(cookie));
      reply.status(204);
      return undefined;
    },

    me({ context }) {
      if (context.user === undefined) throw errors.AUTH_REQUIRED();
      return { user: context.user as PublicUser, amr: [...(context.amr ?? [])] };
    },

    async requestVerification({ body }) {
      await auth.requestEmailVerification(body.email);
      return ACCEPTED;
    },

    async verifyEmail({ body }) {
      await auth.verifyEmail(body.token);
      return ACCEPTED;
    },

    async forgotPassword({ body }) {
      await auth.requestPasswordReset(body.email);
      return ACCEPTED;
    },

    async resetPassword({ body }) {
      await auth.resetPassword(body.token, body.password);
      return ACCEPTED;
    },
  };
}
