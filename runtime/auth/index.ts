// The authentication module: passwords, tokens, sessions, email verification and password reset,
// the login throttle, two-factor sign-in, passkeys, API keys, the store contracts with their in-memory defaults, and
// the auth plugin with the account routes.
export {
  DEFAULT_PASSWORD_HASH_PARAMS,
  PASSWORD_HASH_LIMITS,
  hashPassword,
  passwordHashNeedsUpgrade,
  verifyPassword,
  type PasswordHashParams,
} from './password.js';
export {
  Auth,
  type Authenticated,
  type LoginContext,
  type LoginResult,
  type PasskeyLoginContext,
  type TokenPair,
} from './auth.js';
export {
  SocialSignIn,
  type AccountLinkView,
  type SocialIdentity,
  type SocialLoginOptions,
  type SocialSignInHost,
} from './social-login.js';
export { AUTH_DEFAULT_TTLS, type AuthOptions, type Duration, type SecondFactor } from './options.js';
export {
  AUTH_EVENT_NAMES,
  type AuthEventName,
  type AuthEventPayloads,
  type LoginFailureReason,
} from './events.js';
export * from './throttle/index.js';
export * from './stores/index.js';
export * from './tokens/index.js';
export * from './http/index.js';
export { authModule, type AuthModuleContext, type AuthStores } from './config.js';
export { developmentSecret, serviceSecret } from './dev-secret.js';
export * from './mfa/index.js';
export * from './passkeys/index.js';
export * from './apikeys/index.js';
export * from './oauth/index.js';
