// The auth module svc.config.yaml enables under `modules.auth` (docs/spec.md): `true` for the defaults or a
// mapping of options. The signing secret comes from the option `secret` (usually `${SVC_SECRET}`), else from
// SVC_SECRET; in development without either, one is created once under `.svc/`. `mfa: true` adds two-factor
// sign-in, its TOTP secrets sealed with the key ring in SVC_MFA_KEYS; in development without it the key is
// derived from the secret kept under `.svc/`, so restarts and local processes open each other's secrets.
// `requireMfa: true` turns on the MFA requirement policy (authPlugin's `requireMfa`). `passkeys: { rpId,
// origins, rpName?, userVerification? }` adds WebAuthn registration and sign-in, verified with
// @simplewebauthn/server, the credentials in the database (in memory outside production). `apiKeys: true` (or
// `{ scopes, header?, allowTenantlessKeys?, allowNarrowKeysOnUnscopedRoutes?, maxPerUser?, page? }`) adds API
// keys: the routes, the key plugin (apiKeyPlugin) and, with `page`, the key-management page. `oauth: {
// providers, ... }` adds sign-in with OAuth 2.0 / OpenID Connect providers (oauth-module.ts), the links of
// provider identities to accounts in the database (in memory outside production).
import { hkdfSync } from 'node:crypto';
import { join } from 'node:path';
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
import { invalidOption } from '../config/option-errors.js';
import { isProductionEnv } from '../config/node-env.js';
import { Auth } from './auth.js';
import { developmentSecret, serviceSecret } from './dev-secret.js';
import { keyInvalid, MFA_KEYS_ENV, parseMfaKeys, type MfaKey } from './mfa/keys.js';
import { MemoryMfaStore } from './mfa/memory-store.js';
import { SecretBox } from './mfa/secret-box.js';
import { MfaService } from './mfa/service.js';
import type { MfaStore } from './mfa/store.js';
import { ApiKeys } from './apikeys/service.js';
import { oauthModule } from './oauth-module.js';
import type { AccountLinkStore } from './stores/account-links.js';
import type { ApiKeyStore } from './apikeys/store.js';
import { apiKeyPlugin, type ApiKeyPluginOptions } from './http/apikey-plugin.js';
import type { ApiKeysUiOptions } from './http/apikeys-ui-routes.js';
import { PasskeyService, type UserVerification } from './passkeys/service.js';
import { simpleWebauthnVerifier } from './passkeys/simplewebauthn-verifier.js';
import type { ChallengeStore, PasskeyStore } from './passkeys/store.js';
import type { SessionCookieOptions } from './http/cookie.js';
import { authPlugin } from './http/plugin.js';
import type { AuthRouteId, AuthRoutesOptions } from './http/routes.js';
import type { AuthOptions } from './options.js';
import type { OneTimeTokenStore } from './stores/one-time-tokens.js';
import type { RefreshTokenStore } from './stores/refresh-tokens.js';
import type { SessionStore } from './stores/sessions.js';
import { MemoryUserSource } from './stores/memory-users.js';
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
  /** The service's name: the issuer authenticator apps show for its MFA secrets. Needed with `mfa: true`. */
  serviceName?: string;
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
  mfa?: MfaStore;
  passkeys?: PasskeyStore;
  webauthnChallenges?: ChallengeStore;
  apiKeys?: ApiKeyStore;
  accountLinks?: AccountLinkStore;
}

const TTL_OPTIONS = ['accessTtl', 'refreshTtl', 'sessionTtl', 'verificationTtl', 'resetTtl'] as const;
const OPTION_NAMES = [
  ...TTL_OPTIONS,
  'secret',
  'sessionCookie',
  'loginThrottle',
  'routes',
  'trustedOrigins',
  'mfa',
  'requireMfa',
  'passkeys',
  'apiKeys',
  'oauth',
];

const API_KEY_SETTINGS = [
  'scopes',
  'header',
  'allowTenantlessKeys',
  'allowNarrowKeysOnUnscopedRoutes',
  'maxPerUser',
  'page',
];

const PASSKEY_SETTINGS = ['rpId', 'rpName', 'origins', 'userVerification'];

/** The id of the development key in envelopes it seals (`bka2.dev.…`): never a production key's. */
const DEV_MFA_KEY_ID = 'dev';

/** The Auth and its plugin `modules.auth` enables, or undefined when it is off. */
export function authModule(
  setting: unknown,
  context: AuthModuleContext = {},
): { auth: Auth; plugins: Plugin[]; secret: string } | undefined {
  const settings = moduleSettings(setting, 'auth');
  if (settings === undefined) return undefined;
  rejectUnknownSettings(settings, OPTION_NAMES, 'auth');
  const env = context.env ?? process.env;
  const projectDir = context.projectDir ?? process.cwd();
  const mfa = flag(settings.mfa, 'mfa');
  const requireMfa = flag(settings.requireMfa, 'requireMfa');
  if (requireMfa && !mfa) {
    throw invalidSetting('auth', 'requireMfa needs mfa: true (without it no user could enrol)');
  }
  const secret = signingSecret(settings.secret, env, projectDir);
  const users = context.users ?? context.stores?.users ?? new MemoryUserSource();
  const mfaService = mfa ? mfaModule(context, users, env, projectDir) : undefined;
  const passkeys = passkeysModule(settings.passkeys, context, env);
  const apiKeys = apiKeysModule(settings.apiKeys, context, env);
  const oauthOn = settings.oauth !== undefined;
  // In memory a link vanishes at a restart: the next provider sign-in would meet the account by its email
  // only, and a changed email at the provider would make a second account. Production needs the database.
  if (oauthOn && context.stores?.accountLinks === undefined && isProductionEnv(env.NODE_ENV)) {
    throw invalidSetting(
      'auth',
      'oauth needs stores.database in production: account links must survive a restart',
    );
  }
  const auth = fromSettings('auth', () => {
    const options: AuthOptions = {
      secret,
      nodeEnv: env.NODE_ENV,
      loginThrottle: throttle(settings.loginThrottle, context.stores?.throttle),
      users,
    };
    for (const name of TTL_OPTIONS) {
      const value = settings[name];
      if (value !== undefined) options[name] = value as number | string;
    }
    if (mfaService) options.mfa = mfaService;
    if (passkeys) options.passkeys = passkeys;
    if (apiKeys) options.apiKeys = apiKeys.keys;
    const { sessions, refreshTokens, oneTimeTokens, accountLinks } = context.stores ?? {};
    if (accountLinks) options.accountLinks = accountLinks;
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
      ...(requireMfa ? { requireMfa: true } : {}),
    }),
  );
  const plugins = [plugin];
  if (apiKeys) plugins.push(fromSettings('auth.apiKeys', () => apiKeyPlugin({ auth, ...apiKeys.plugin })));
  const oauth = fromSettings('auth.oauth', () =>
    oauthModule(settings.oauth, {
      auth,
      secret,
      challenges: context.stores?.webauthnChallenges,
      omit: [...omittedRoutes(settings.routes), ...(context.routes?.omit ?? [])],
    }),
  );
  if (oauth) plugins.push(oauth);
  return { auth, plugins, secret };
}

interface ApiKeysModule {
  keys: ApiKeys;
  plugin: Omit<ApiKeyPluginOptions, 'auth'>;
}

/** API keys on the module's store (in memory outside production), or undefined when off. */
function apiKeysModule(
  setting: unknown,
  context: AuthModuleContext,
  env: Record<string, string | undefined>,
): ApiKeysModule | undefined {
  if (setting === undefined || setting === false) return undefined;
  if (setting !== true && (typeof setting !== 'object' || setting === null || Array.isArray(setting))) {
    throw invalidSetting('auth', 'apiKeys must be true or a mapping { scopes, header?, page?, ... }');
  }
  const options = setting === true ? {} : (setting as Record<string, unknown>);
  rejectUnknownSettings(options, API_KEY_SETTINGS, 'auth.apiKeys');
  const store = context.stores?.apiKeys;
  // In memory every key is forgotten at a restart and unknown to every other process: the programs that
  // hold one would stop working for no visible reason. Production needs the database.
  if (store === undefined && isProductionEnv(env.NODE_ENV)) {
    throw invalidSetting(
      'auth',
      'apiKeys needs stores.database in production: issued keys must survive a restart',
    );
  }
  const keys = fromSettings('auth.apiKeys', () => {
    return new ApiKeys({
      ...(store === undefined ? {} : { store }),
      ...(options.scopes === undefined ? {} : { scopes: options.scopes as string[] }),
      ...(options.maxPerUser === undefined ? {} : { maxPerOwner: options.maxPerUser as number }),
    });
  });
  const plugin: ApiKeysModule['plugin'] = {};
  if (options.header !== undefined) plugin.header = options.header as string;
  if (options.page !== undefined && options.page !== false) {
    plugin.page = options.page === true ? {} : (options.page as ApiKeysUiOptions);
  }
  for (const name of ['allowTenantlessKeys', 'allowNarrowKeysOnUnscopedRoutes'] as const) {
    if (options[name] !== undefined) plugin[name] = options[name] as boolean;
  }
  return { keys, plugin };
}

function flag(setting: unknown, name: string): boolean {
  if (setting === undefined) return false;
  if (typeof setting !== 'boolean') throw invalidSetting('auth', `${name} must be true or false`);
  return setting;
}

/** Two-factor sign-in on the module's MFA store (in memory without a database) and key ring. */
function mfaModule(
  context: AuthModuleContext,
  users: UserSource,
  env: Record<string, string | undefined>,
  projectDir: string,
): MfaService {
  const issuer = context.serviceName;
  if (issuer === undefined || issuer === '') {
    throw invalidOption('authModule()', 'serviceName', 'the service name, with modules.auth.mfa');
  }
  const box = new SecretBox({ keys: mfaKeys(env, projectDir) });
  const store = context.stores?.mfa;
  // In memory a second factor vanishes at a restart and is unknown to every other process: sign-in would
  // quietly stop asking for it. Production needs the database.
  if (store === undefined && isProductionEnv(env.NODE_ENV)) {
    throw invalidSetting(
      'auth',
      'mfa needs stores.database in production: enabled second factors must survive a restart',
    );
  }
  return new MfaService({
    store: store ?? new MemoryMfaStore(),
    box,
    issuer,
    users,
  });
}

/** Passkeys on the module's stores (challenges in Redis when there is one), or undefined when off. */
function passkeysModule(
  setting: unknown,
  context: AuthModuleContext,
  env: Record<string, string | undefined>,
): PasskeyService | undefined {
  if (setting === undefined) return undefined;
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) {
    throw invalidSetting('auth', 'passkeys must be a mapping { rpId, origins, rpName?, userVerification? }');
  }
  const options = setting as Record<string, unknown>;
  rejectUnknownSettings(options, PASSKEY_SETTINGS, 'auth.passkeys');
  const rpName = options.rpName ?? context.serviceName;
  const store = context.stores?.passkeys;
  // In memory a passkey vanishes at a restart and is unknown to every other process: its owner could no
  // longer sign in with it. Production needs the database.
  if (store === undefined && isProductionEnv(env.NODE_ENV)) {
    throw invalidSetting(
      'auth',
      'passkeys needs stores.database in production: registered passkeys must survive a restart',
    );
  }
  return fromSettings('auth.passkeys', () => {
    const service = new PasskeyService({
      config: {
        rpId: options.rpId as string,
        rpName: rpName as string,
        // An empty entry is an optional `${VAR:-}` left unset.
        origin: Array.isArray(options.origins)
          ? (options.origins as string[]).filter((origin) => origin !== '')
          : (options.origins as string[]),
      },
      verifier: simpleWebauthnVerifier(),
      ...(store === undefined ? {} : { credentials: store }),
      ...(context.stores?.webauthnChallenges === undefined
        ? {}
        : { challenges: context.stores.webauthnChallenges }),
      ...(options.userVerification === undefined
        ? {}
        : { userVerification: options.userVerification as UserVerification }),
    });
    return service;
  });
}

/**
 * The ring in SVC_MFA_KEYS. In production it must be set (a secret sealed with a key nobody keeps is lost);
 * in development without it, one key derived from the secret kept under `.svc/` (never the signing secret
 * itself: a key serves one purpose).
 */
function mfaKeys(env: Record<string, string | undefined>, projectDir: string): MfaKey[] {
  const text = env[MFA_KEYS_ENV];
  if (text !== undefined && text !== '') return parseMfaKeys(text);
  if (isProductionEnv(env.NODE_ENV)) {
    throw keyInvalid(
      `modules.auth.mfa needs ${MFA_KEYS_ENV} in production: the key ring that seals the TOTP secrets.`,
    );
  }
  const kept = developmentSecret(join(projectDir, '.svc'));
  const material = Buffer.from(hkdfSync('sha256', kept, 'svckit mfa development key', 'svc mfa dev key', 32));
  return [{ id: DEV_MFA_KEY_ID, material }];
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
