// `authRoutes()`: the handlers of the routes spec/modules/auth.yaml declares,
// bound to the generated definitions. Each route can be omitted or replaced one by one; the two-factor
// routes (mfa-routes.ts) are left out of an Auth without MFA, and the passkey routes (passkey-routes.ts) of one
// without passkeys, and the API-key routes (apikey-routes.ts) of one without API keys, so such an app serves
// what it always did.
import {
  routeDefinitions,
  type Handlers as AuthHandlers,
  type RouteId as AuthRouteId,
} from '../../../generated/modules/auth/routes.js';
import { errors } from '../../../generated/modules/errors.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { bindRoutes } from '../../http/route.js';
import type { Route } from '../../http/types.js';
import type { Auth } from '../auth.js';
import type { PublicUser } from '../stores/users.js';
import type { SessionCookie } from './cookie.js';
import { API_KEY_ROUTE_IDS, apiKeyHandlers } from './apikey-routes.js';
import { logoutHandler } from './logout.js';
import { MFA_ROUTE_IDS, mfaHandlers } from './mfa-routes.js';
import { noStore } from './no-store.js';
import { PASSKEY_ROUTE_IDS, passkeyHandlers } from './passkey-routes.js';
import { OAUTH_ROUTE_IDS, type OAuthRouteId } from './oauth-routes.js';
import { signedInResponder } from './signed-in.js';

export type { AuthHandlers, AuthRouteId };

/**
 * The meta the account routes carry: about the caller, and exempt from the MFA policy (all but mfaDisable,
 * which turning the second factor off keeps subject to it).
 */
export const ACCOUNT_META = Object.freeze({ account: true, mfa: false } as const);

export interface AuthRoutesOptions {
  /**
   * Route ids left out (not mounted). The MFA routes are left out anyway when the Auth has no MFA, the
   * passkey routes when it has no passkeys, the API-key routes when it has no API keys.
   */
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
  rejectUnknownOptions(options, ['omit', 'replace'], 'authRoutes()');
  const handlers: AccountHandlers = { ...authHandlers(auth, settings), ...options.replace };
  const omitted = new Set<string>([
    ...(options.omit ?? []),
    ...(auth.mfaEnabled ? [] : MFA_ROUTE_IDS),
    ...(auth.passkeysEnabled ? [] : PASSKEY_ROUTE_IDS),
    ...(auth.apiKeys !== undefined ? [] : API_KEY_ROUTE_IDS),
    // Mounted by oauthPlugin(), which holds the providers.
    ...OAUTH_ROUTE_IDS,
  ]);
  return bindRoutes(
    routeDefinitions.filter((definition) => !omitted.has(definition.id)),
    handlers,
  );
}

/** The handlers authRoutes() binds: every route of spec/modules/auth.yaml but the provider sign-in ones. */
type AccountHandlers = Omit<AuthHandlers, OAuthRouteId>;

function authHandlers(auth: Auth, settings: AuthRouteSettings): AccountHandlers {
  const { cookie } = settings;
  const signedIn = signedInResponder(auth, cookie);

  return {
    async register({ body, reply }) {
      noStore(reply);
      return signedIn(await auth.register(body.email, body.password), reply);
    },

    async login({ body, request, reply }) {
      noStore(reply);
      const result = await auth.login(body.email, body.password, body.mfaCode, {
        ip: request.ip,
        session: true,
      });
      return signedIn(result, reply);
    },

    async refresh({ body, reply }) {
      noStore(reply);
      return auth.refresh(body.refreshToken);
    },

    logout: logoutHandler(auth, settings),

    me({ context, reply }) {
      noStore(reply);
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

    ...mfaHandlers(auth),

    ...passkeyHandlers(auth, cookie, signedIn),

    ...apiKeyHandlers(auth),
  };
}
