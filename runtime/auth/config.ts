// The auth module svc.config.yaml enables under `modules.auth` (docs/spec.md): `true` for the defaults or a
// mapping of options. The signing secret comes from the option `secret` (usually `${SVC_SECRET}`), else from
// SVC_SECRET; in development without either, one is created once under `.svc/`.
import { routeDefinitions } from '../../generated/modules/auth/routes.js';
import { errors } from '../../generated/modules/errors.js';
import { DURATION_FORMS, parseDuration } from '../../shared/duration.js';
import type { Plugin } from '../app/app.js';
import {
  fromSettings,
  invalidSetting,
  moduleSettings,
  rejectUnknownSettings,
} from '../config/module-settings.js';
import { Auth } from './auth.js';
import { serviceSecret } from './dev-secret.js';
import type { SessionCookieOptions } from './http/cookie.js';
import { authPlugin } from './http/plugin.js';
import type { AuthRouteId, AuthRoutesOptions } from './http/routes.js';
import type { AuthOptions } from './options.js';
import type { OneTimeTokenStore } from './stores/one-time-tokens.js';
import type { RefreshTokenStore } from './stores/refresh-tokens.js';
import type { SessionStore } from './stores/sessions.js';
import type { UserSource } from './stores/users.js';
import { LoginThrottle, type LoginThrottleOptions } from './throttle/login-throttle.js';
import type { ThrottleStore } from './throttle/store.js';

export interface AuthModuleContext {
  /** The application's user source. Default `stores.users`, else in memory. */
  users?: UserSource;
  /** Shared stores (openStores()); each one left undefined stays in memory. */
  stores?: AuthStores;
  /** Where `.svc/` is (the development secret). Default the working directory. */
  projectDir?: string;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
  /**
   * Account routes the app leaves out or answers itself, one by one, on top of those `modules.auth.routes`
   * leaves out.
   */
  routes?: AuthRoutesOptions;
}

/** The stores the auth module keeps its state in (openStores() gives them from `stores` in svc.config.yaml). */
export interface AuthStores {
  users?: UserSource;
  sessions?: SessionStore;
  refreshTokens?: RefreshTokenStore;
  oneTimeTokens?: OneTimeTokenStore;
  throttle?: ThrottleStore;
}

const TTL_OPTIONS = ['accessTtl', 'refreshTtl', 'sessionTtl', 'verificationTtl', 'resetTtl'] as const;
const OPTION_NAMES = [...TTL_OPTIONS, 'secret', 'sessionCookie', 'loginThrottle', 'routes', 'trustedOrigins'];

/** The Auth and its plugin `modules.auth` enables, or undefined when it is off. */
export function authModule(
  setting: unknown,
  context: AuthModuleContext = {},
): { auth: Auth; plugins: Plugin[]; secret: string } | undefined {
  const settings = moduleSettings(setting, 'auth');
  if (settings === undefined) return undefined;
  rejectUnknownSettings(settings, OPTION_NAMES, 'auth');
  const env = context.env ?? process.env;
  const secret = signingSecret(settings.secret, env, context.projectDir ?? process.cwd());
  const auth = fromSettings('auth', () => {
    const options: AuthOptions = {
      secret,
      nodeEnv: env.NODE_ENV,
      loginThrottle: throttle(settings.loginThrottle, context.stores?.throttle),
    };
    for (const name of TTL_OPTIONS) {
      const value = settings[name];
      if (value !== undefined) options[name] = value as number | string;
    }
    const users = context.users ?? context.stores?.users;
    if (users) options.users = users;
    const { sessions, refreshTokens, oneTimeTokens } = context.stores ?? {};
    if (sessions) options.sessions = sessions;
    if (refreshTokens) options.refreshTokens = refreshTokens;
    if (oneTimeTokens) options.oneTimeTokens = oneTimeTokens;
    return new Auth(options);
  });
  const plugin = fromSettings('auth', () =>
    authPlugin({
      auth,
      nodeEnv: env.NODE_ENV,
      ...(settings.sessionCookie === undefined
        ? {}
        : { sessionCookie: settings.sessionCookie as SessionCookieOptions }),
      ...(settings.trustedOrigins === undefined
        ? {}
        : { trustedOrigins: settings.trustedOrigins as string[] }),
      routes: {
        ...context.routes,
        omit: [...omittedRoutes(settings.routes), ...(context.routes?.omit ?? [])],
      },
    }),
  );
  return { auth, plugins: [plugin], secret };
}

function signingSecret(option: unknown, env: Record<string, string | undefined>, projectDir: string): string {
  if (option !== undefined && typeof option !== 'string')
    throw invalidSetting('auth', 'secret must be a string');
  const secret = serviceSecret(option, env, projectDir);
  if (secret === undefined) {
    throw errors.AUTH_WEAK_SECRET({
      message:
        'No signing secret: set SVC_SECRET (at least 32 characters) or modules.auth.secret in production.',
    });
  }
  return secret;
}

function throttle(setting: unknown, store: ThrottleStore | undefined): LoginThrottle | false | undefined {
  if (setting === undefined || setting === true) return store ? new LoginThrottle({ store }) : undefined;
  if (setting === false) return false;
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) {
    throw invalidSetting(
      'auth',
      'loginThrottle must be false or { maxAttempts, maxAttemptsPerIp, windowMs }',
    );
  }
  const options = { ...setting } as LoginThrottleOptions & { windowMs?: unknown };
  if (options.windowMs !== undefined) {
    const windowMs = parseDuration(options.windowMs);
    if (windowMs === undefined)
      throw invalidSetting('auth', `loginThrottle.windowMs must be ${DURATION_FORMS}`);
    options.windowMs = windowMs;
  }
  return new LoginThrottle(store ? { ...options, store } : options);
}

function omittedRoutes(setting: unknown): AuthRouteId[] {
  if (setting === undefined) return [];
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) {
    throw invalidSetting('auth', 'routes must map route ids to false');
  }
  const known = new Set(routeDefinitions.map((definition) => definition.id));
  return Object.entries(setting).flatMap(([id, value]) => {
    if (!known.has(id))
      throw invalidSetting('auth', `routes: no account route "${id}" (${[...known].join(', ')})`);
    if (value !== false && value !== true)
      throw invalidSetting('auth', `routes.${id} must be false (omit) or true`);
    return value === false ? [id as AuthRouteId] : [];
  });
}
