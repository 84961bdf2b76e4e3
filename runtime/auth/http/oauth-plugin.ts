// `oauthPlugin({ auth, service, callbackBaseUrl?, successRedirect?, bindingCookie?, rateLimit?, tickets? })`:
// sign-in with OAuth 2.0 / OpenID Connect providers. It mounts the routes of the `oauth` feature
// (oauth-routes.ts) over the providers an OAuthService holds, and signs people in through the Auth's account
// rules (Auth.socialLogin). Registered after authPlugin(), whose session cookie a sign-in sets.
import { routeDefinitions } from '../../../generated/modules/auth/routes.js';
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { bindRoutes } from '../../http/route.js';
import type { Route } from '../../http/types.js';
import { Auth } from '../auth.js';
import { checkedBaseUrl } from '../oauth/callback-url.js';
import { OAuthService } from '../oauth/service.js';
import { MemoryChallengeStore } from '../passkeys/memory-store.js';
import type { ChallengeStore } from '../passkeys/store.js';
import { SESSION_COOKIE, type SessionCookie } from './cookie.js';
import {
  OAUTH_ROUTE_IDS,
  OAUTH_SIGN_IN_ROUTE_IDS,
  oauthHandlers,
  type OAuthRouteId,
  type OAuthRouteSettings,
} from './oauth-routes.js';
import { signedInResponder } from './signed-in.js';

export interface OAuthPluginOptions {
  auth: Auth;
  /** The providers and the rules of the flow (`new OAuthService({ secret, providers, ... })`). */
  service: OAuthService;
  /**
   * The application's public base URL (`https://api.example.com`): each provider's redirect URI is
   * `<callbackBaseUrl>/auth/oauth/<provider>/callback`, character for character. Default: the URL the app
   * listens at (right for local development; behind a proxy or on a public host, set it).
   */
  callbackBaseUrl?: string;
  /**
   * Where the browser goes once signed in, the tokens in the URL fragment (`#accessToken=…&refreshToken=…`),
   * or a failure's code (`#error=AUTH_…`, with `mfaTicket` when the account's second factor is needed).
   * Default none: the callback answers JSON `{ user, accessToken, refreshToken }` (or the error envelope).
   */
  successRedirect?: string;
  /** The binding cookie's name. Default `__Host-svc_oauth` when cookies are Secure, else `svc_oauth`. */
  bindingCookie?: string;
  /** false removes the per-IP limit of the two sign-in routes (10 a minute per route). Default kept. */
  rateLimit?: false;
  /** Where second-factor tickets are kept (shared by every process). Default in memory. */
  tickets?: ChallengeStore;
  /** Route ids left out (not mounted), as `modules.auth.routes` omits them. */
  omit?: readonly OAuthRouteId[];
  clock?: () => number;
}

const OPTION_NAMES = optionKeys<OAuthPluginOptions>({
  auth: true,
  service: true,
  callbackBaseUrl: true,
  successRedirect: true,
  bindingCookie: true,
  rateLimit: true,
  tickets: true,
  omit: true,
  clock: true,
});

const OWNER = 'oauthPlugin()';
const COOKIE_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

function redirectTarget(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw invalidOption(OWNER, 'successRedirect', 'an absolute URL', `got "${value}"`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.hash !== '') {
    throw invalidOption(OWNER, 'successRedirect', 'an http(s) URL without fragment', `got "${value}"`);
  }
  return url.href;
}

function bindingCookie(name: string | undefined, session: SessionCookie): SessionCookie {
  const secure = session.secure;
  const chosen = name ?? (secure ? '__Host-svc_oauth' : 'svc_oauth');
  if (!COOKIE_NAME.test(chosen)) throw invalidOption(OWNER, 'bindingCookie', 'a cookie name (an HTTP token)');
  if (chosen.startsWith('__Host-') && !secure) {
    throw invalidOption(OWNER, 'bindingCookie', 'a name without __Host- while cookies are not Secure');
  }
  // Without the prefix a sibling subdomain could plant a binding of its own in the victim's browser.
  if (secure && !chosen.startsWith('__Host-')) {
    throw invalidOption(OWNER, 'bindingCookie', 'a name starting with __Host- while cookies are Secure');
  }
  // Path=/ and no Domain, which the __Host- prefix requires: only this host ever receives it.
  return { name: chosen, path: '/', sameSite: 'Lax', secure, domain: undefined };
}

export function oauthPlugin(options: OAuthPluginOptions): Plugin {
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const { auth, service } = options;
  if (!(auth instanceof Auth)) throw invalidOption(OWNER, 'auth', 'an Auth (new Auth({ secret }))');
  if (!(service instanceof OAuthService)) {
    throw invalidOption(OWNER, 'service', 'an OAuthService (new OAuthService({ secret, providers }))');
  }
  if (options.rateLimit !== undefined && options.rateLimit !== false) {
    throw invalidOption(OWNER, 'rateLimit', 'false (to remove the limit) or absent');
  }
  // Checked now, by the rule the redirect URIs are built with: a bad base refuses the plugin, not each sign-in.
  const configuredBase =
    options.callbackBaseUrl === undefined
      ? undefined
      : checkedBaseUrl(options.callbackBaseUrl, OWNER, 'callbackBaseUrl');
  const successRedirect =
    options.successRedirect === undefined ? undefined : redirectTarget(options.successRedirect);
  if (options.bindingCookie !== undefined && typeof options.bindingCookie !== 'string') {
    throw invalidOption(OWNER, 'bindingCookie', 'a cookie name');
  }
  const omitted = new Set<string>(options.omit ?? []);
  for (const id of omitted) {
    if (!(OAUTH_ROUTE_IDS as readonly string[]).includes(id)) {
      throw invalidOption(OWNER, 'omit', `route ids among ${OAUTH_ROUTE_IDS.join(', ')}`, `got "${id}"`);
    }
  }
  const tickets = options.tickets ?? new MemoryChallengeStore();
  const clock = options.clock ?? Date.now;

  let listeningAt: string | undefined;
  const callbackBaseUrl = (): string => {
    const base = configuredBase ?? listeningAt;
    // Only reachable before the app listens (a request through inject() with no base configured).
    if (base === undefined) throw invalidOption(OWNER, 'callbackBaseUrl', 'set, or the app listening');
    return base;
  };

  return {
    name: 'svc:oauth',
    setup(app: App) {
      const session = app.container.get<SessionCookie>(SESSION_COOKIE);
      if (session === undefined) {
        throw invalidOption(OWNER, 'auth', 'registered after authPlugin()', 'no session cookie to set');
      }
      service.logTo(app.logger);
      if (configuredBase === undefined) {
        app.hooks.on('app:listening', ({ url }) => {
          listeningAt = checkedBaseUrl(url);
        });
      }
      const settings: OAuthRouteSettings = {
        auth,
        service,
        binding: bindingCookie(options.bindingCookie, session),
        callbackBaseUrl,
        successRedirect,
        tickets,
        signedIn: signedInResponder(auth, session),
        clock,
      };
      const ids = new Set<string>(OAUTH_ROUTE_IDS.filter((id) => !omitted.has(id)));
      const routes: Route[] = bindRoutes(
        routeDefinitions.filter((definition) => ids.has(definition.id)),
        oauthHandlers(settings),
      );
      app.metadata.add(
        'http:routes',
        ...(options.rateLimit === false ? routes.map(withoutRateLimit) : routes),
      );
    },
  };
}

/** The sign-in routes without their per-IP limit (`rateLimit: false`). */
function withoutRateLimit(route: Route): Route {
  if (!(OAUTH_SIGN_IN_ROUTE_IDS as readonly (string | undefined)[]).includes(route.id)) return route;
  const { rateLimit: _removed, ...meta } = route.meta ?? {};
  return { ...route, meta };
}
