// The Auth class's options and their defaults. Durations accept milliseconds or strings
// such as `15m`; a bad value is an OptionError (OPTION_INVALID) naming the option, which the config loader
// turns into CONFIG_INVALID when it came from svc.config.yaml.
import type { MfaService } from './mfa/service.js';
import type { ApiKeys } from './apikeys/service.js';
import type { PasskeyService } from './passkeys/service.js';
import { parseDuration, DURATION_FORMS } from '../../shared/duration.js';
import type { Hooks } from '../app/hooks.js';
import { invalidOption } from '../config/option-errors.js';
import { optionKeys } from '../config/known-options.js';
import type { Logger } from '../log/logger.js';
import type { PasswordHashParams } from './password.js';
import type { AccountLinkStore } from './stores/account-links.js';
import type { OneTimeTokenStore } from './stores/one-time-tokens.js';
import type { RefreshTokenStore } from './stores/refresh-tokens.js';
import type { SessionStore } from './stores/sessions.js';
import type { UserSource } from './stores/users.js';
import type { LoginThrottle } from './throttle/login-throttle.js';

export const AUTH_DEFAULT_TTLS: Readonly<Record<TtlName, number>> = Object.freeze({
  accessTtl: 15 * 60_000,
  refreshTtl: 30 * 86_400_000,
  sessionTtl: 30 * 86_400_000,
  verificationTtl: 24 * 3_600_000,
  resetTtl: 3_600_000,
});

export type Duration = number | string;

export type TtlName = 'accessTtl' | 'refreshTtl' | 'sessionTtl' | 'verificationTtl' | 'resetTtl';

/**
 * The second factor, supplied by the MFA module. Without it no account has MFA and `mfaCode` is ignored.
 */
export interface SecondFactor {
  isEnabled(userId: string): Promise<boolean>;
  /** True when `code` (a TOTP or an unused recovery code) is valid for the user; spends a recovery code. */
  verify(userId: string, code: string): Promise<boolean>;
}

export interface AuthOptions {
  /** HS256 signing secret: at least 32 characters unless NODE_ENV is exactly development or test. */
  secret: string;
  /** Where accounts live. Default: a MemoryUserSource (per process, lost on restart). */
  users?: UserSource;
  sessions?: SessionStore;
  refreshTokens?: RefreshTokenStore;
  /** Email-verification and password-reset tokens. */
  oneTimeTokens?: OneTimeTokenStore;
  /** Social sign-in's links of provider identities to accounts. Default: a MemoryAccountLinkStore. */
  accountLinks?: AccountLinkStore;
  /** Default `new LoginThrottle()` (5 failures per email, 50 per IP, per 15 minutes); false disables. */
  loginThrottle?: LoginThrottle | false;
  accessTtl?: Duration;
  refreshTtl?: Duration;
  sessionTtl?: Duration;
  verificationTtl?: Duration;
  resetTtl?: Duration;
  /** Another second factor than svckit's own (`mfa`); not both. */
  secondFactor?: SecondFactor;
  /** svckit's two-factor sign-in (TOTP and recovery codes): enables enrollMfa() and the rest. */
  mfa?: MfaService;
  /** Passkeys (WebAuthn): enables signInWithPasskey() and the passkey routes. */
  passkeys?: PasskeyService;
  /** API keys: enables issueApiKey() and the rest, and the API-key routes. */
  apiKeys?: ApiKeys;
  /** scrypt parameters for new hashes; stored hashes carry their own. */
  passwordHash?: PasswordHashParams;
  /** The hook bus the events go to; the auth plugin passes the app's. Default: a bus of the Auth's own. */
  hooks?: Hooks;
  /** Unix ms now. Default Date.now. */
  clock?: () => number;
  /** Read for the secret-strength rule. Default process.env.NODE_ENV. */
  nodeEnv?: string | undefined;
  /**
   * Where failures of event listeners go (events never fail the request that raised them). Default: an error
   * line through `logger`.
   */
  onEventError?: (error: unknown, event: string) => void;
  /** Where the Auth logs. Default: the app's logger once authPlugin registers it, JSON on stderr before. */
  logger?: Logger;
}

export type AuthTtls = Record<TtlName, number>;

/** The five lifetimes in ms, each checked: a whole number of ms, at least one second. */
export function resolveTtls(options: AuthOptions): AuthTtls {
  const ttls: AuthTtls = { ...AUTH_DEFAULT_TTLS };
  for (const name of Object.keys(ttls) as (keyof AuthTtls)[]) {
    const given = options[name];
    if (given === undefined) continue;
    const ms = parseDuration(given);
    if (ms === undefined || ms < 1000) {
      throw invalidOption('Auth', name, `${DURATION_FORMS}, at least 1s`, `got ${JSON.stringify(given)}`);
    }
    ttls[name] = ms;
  }
  return ttls;
}

/** The keys of AuthOptions; any other is refused (a misplaced `requireMfa` must not be silently ignored). */
export const AUTH_OPTION_KEYS = optionKeys<AuthOptions>({
  secret: true,
  users: true,
  sessions: true,
  refreshTokens: true,
  oneTimeTokens: true,
  accountLinks: true,
  loginThrottle: true,
  accessTtl: true,
  refreshTtl: true,
  sessionTtl: true,
  verificationTtl: true,
  resetTtl: true,
  secondFactor: true,
  mfa: true,
  passkeys: true,
  apiKeys: true,
  passwordHash: true,
  hooks: true,
  clock: true,
  nodeEnv: true,
  onEventError: true,
  logger: true,
});
