// `authPlugin({ auth, ... })`: the enricher that reads credentials, the request hook that expires
// unverifiable session cookies, the guards of `meta.auth` and `meta.mfa: true`, the account routes, the Auth
// on the app container, and the auth events on the app's hook bus.
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { Auth } from '../auth.js';
import { AUTH_EVENT_NAMES } from '../events.js';
import { isProductionEnv } from '../tokens/secret.js';
import { sessionCookie, type SessionCookieOptions } from './cookie.js';
import { CookieExpiry } from './cookie-expiry.js';
import { authEnricher } from './enricher.js';
import { authRequiredGuard, authVisibility, mfaStepUpGuard } from './guards.js';
import { authRoutes, type AuthRoutesOptions } from './routes.js';
import { invalidOption } from '../../config/option-errors.js';

export interface AuthPluginOptions {
  auth: Auth;
  /** The session cookie's name and attributes (defaults: svc_session, Path=/, SameSite=Lax, Secure in production). */
  sessionCookie?: SessionCookieOptions;
  /**
   * Origins (`https://app.example.com`) allowed to send unsafe cookie-authenticated requests from another
   * site. Default none: cross-site cookie-only POSTs are refused with AUTH_CSRF_REJECTED.
   */
  trustedOrigins?: readonly string[];
  /** The account routes: false mounts none; otherwise routes to omit or replace. Default all. */
  routes?: false | AuthRoutesOptions;
  /** For the cookie's Secure default. Default process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
}

const OPTION_NAMES = optionKeys<AuthPluginOptions>({
  auth: true,
  sessionCookie: true,
  trustedOrigins: true,
  routes: true,
  nodeEnv: true,
});

const OWNER = 'authPlugin()';

export function authPlugin(options: AuthPluginOptions): Plugin {
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const { auth } = options;
  if (!(auth instanceof Auth)) throw invalidOption(OWNER, 'auth', 'an Auth (new Auth({ secret }))');
  const production = 'nodeEnv' in options ? isProductionEnv(options.nodeEnv) : isProductionEnv();
  const cookie = sessionCookie(options.sessionCookie ?? {}, production);
  const trustedOrigins = new Set(options.trustedOrigins ?? []);
  for (const origin of trustedOrigins) {
    if (!/^https?:\/\/[^/]+$/.test(origin)) {
      throw invalidOption(OWNER, 'trustedOrigins', 'origins like https://app.example.com', `got "${origin}"`);
    }
  }

  const expiry = new CookieExpiry(auth, cookie);

  return {
    name: 'svc:auth',
    setup(app: App) {
      app.container.provide(Auth, auth);
      auth.logTo(app.logger);
      app.metadata.add('http:request-hooks', expiry.hook());
      app.metadata.add('http:enrichers', authEnricher(auth, cookie, expiry, trustedOrigins));
      app.metadata.add('http:guards', authRequiredGuard, mfaStepUpGuard);
      app.metadata.add('http:route-visibility', authVisibility);
      // For documents: the enricher refuses a bad credential, and a cross-site unsafe request, on every route.
      app.metadata.add('http:route-error-modules', { auth: {} });
      app.metadata.add(
        'http:guarded-meta',
        { key: 'auth', plugin: 'svc:auth' },
        { key: 'mfa', plugin: 'svc:auth' },
      );
      if (options.routes !== false) {
        app.metadata.add(
          'http:routes',
          ...authRoutes(auth, { cookie, trustedOrigins }, options.routes ?? {}),
        );
      }
      if (auth.hooks !== app.hooks) {
        for (const event of AUTH_EVENT_NAMES)
          auth.hooks.on(event, (payload) => app.hooks.emit(event, payload));
      }
    },
  };
}
