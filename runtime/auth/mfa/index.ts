// Two-factor sign-in: the service, the sealed-secret box and its keys, the store contract with its in-memory
// default, and the code primitives an application may want (otpauth URIs, recovery-code handling).
export {
  MfaService,
  type AcceptedCode,
  type MfaEnrollment,
  type MfaServiceOptions,
  type MfaStatus,
} from './service.js';
export { SecretBox, type SecretBoxLegacyOptions, type SecretBoxOptions } from './secret-box.js';
export { MFA_KEYS_ENV, parseMfaKeys, type MfaKey } from './keys.js';
export type { MfaRecord, MfaState, MfaStore } from './store.js';
export { MemoryMfaStore } from './memory-store.js';
export { otpauthUri, type OtpauthUriInput } from './totp.js';
