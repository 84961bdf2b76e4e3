// The authentication module (seed 000): passwords so far; tokens, sessions, throttle and the auth plugin follow.
export {
  DEFAULT_PASSWORD_HASH_PARAMS,
  PASSWORD_HASH_LIMITS,
  hashPassword,
  passwordHashNeedsUpgrade,
  verifyPassword,
  type PasswordHashParams,
} from './password.js';
