// `authPlugin({ auth, ... })`: the enricher that reads credentials, the request hook that expires
// unverifiable session cookies, the guards of `meta.auth` and `meta.mfa: true` (and of the MFA requirement
// policy, `requireMfa`), the account routes, the Auth on the app container, and the auth events on the app's
// hook bus.
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { Auth } from '../auth.js';
import { AUTH_EVENT_NAMES } from '../events.js';
import { isProductionEnv } from '../tokens/secret.js';
import { SESSION_COOKIE, sessionCookie, type SessionCookieOptions } from './cookie.js';
import { CookieExpiry } from './cookie-expiry.js';
import { authEnricher } from './enricher.js';
import { authRequiredGuard, authVisibility, mfaStepUpGuard } from './guards.js';
import { mfaPolicyGuard, type MfaRequirement } from './mfa-policy.js';
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
  /**
   * The MFA requirement policy: every request with a user's credential must have been signed in with a second
   * factor (403 AUTH_MFA_ENROLLMENT_REQUIRED when the user has no MFA enabled, 403 AUTH_MFA_REQUIRED when
   * they have), except on routes with `meta.mfa: false`; API-key and anonymous requests are not subject to
   * it. `true` for every user, a function for those it answers true for. Needs an Auth with `mfa`. Default off.
   */
  requireMfa?: MfaRequirement;
  /** For the cookie's Secure default. Default process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
}

const OPTION_NAMES = optionKeys<AuthPluginOptions>({
  auth: true,
  sessionCookie: true,
  trustedOrigins: true,
  routes: true,
  requireMfa: true,
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

  const mfaPolicy = mfaPolicyGuard(auth, options.requireMfa, OWNER);
  const expiry = new CookieExpiry(auth, cookie);

  return {
    name: 'svc:auth',
    setup(app: App) {
      app.container.provide(Auth, auth);
      app.container.provide(SESSION_COOKIE, cookie);
      auth.logTo(app.logger);
      app.metadata.add('http:request-hooks', expiry.hook());
      app.metadata.add('http:enrichers', authEnricher(auth, cookie, expiry, trustedOrigins));
      // The policy before step-up: a user without MFA is told to enrol rather than to sign in with a code.
      app.metadata.add(
        'http:guards',
        authRequiredGuard,
        ...(mfaPolicy === undefined ? [] : [mfaPolicy]),
        mfaStepUpGuard,
      );
      app.metadata.add('http:route-visibility', authVisibility);
      // For documents: the enricher refuses a bad credential, and a cross-site unsafe request, on every route.
      app.metadata.add('http:route-error-modules', {
        auth: options.requireMfa === undefined || options.requireMfa === false ? {} : { requireMfa: true },
      });
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
