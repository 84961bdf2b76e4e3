// The authentication module (seed 000): passwords and the login throttle so far; tokens, sessions and the
// auth plugin follow.
export {
  DEFAULT_PASSWORD_HASH_PARAMS,
  PASSWORD_HASH_LIMITS,
  hashPassword,
  passwordHashNeedsUpgrade,
  verifyPassword,
  type PasswordHashParams,
} from './password.js';
export * from './throttle/index.js';
