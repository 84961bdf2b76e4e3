// Passkeys (WebAuthn): the service running the ceremonies, its store contracts with their in-memory defaults,
// the verifier contract and svckit's default verifier on @simplewebauthn/server.
export {
  PasskeyService,
  webauthnPlugin,
  type PasskeyAuthenticationOptions,
  type PasskeyConfig,
  type PasskeyRegistrationOptions,
  type PasskeyServiceOptions,
  type PasskeySignIn,
  type PasskeyView,
  type UserVerification,
} from './service.js';
export type {
  ChallengeStore,
  PasskeyAddResult,
  PasskeyCredential,
  PasskeyStore,
  WebauthnChallenge,
} from './store.js';
export { MemoryChallengeStore, MemoryPasskeyStore } from './memory-store.js';
export type {
  AuthenticationVerification,
  RegisteredCredential,
  RegistrationVerification,
  WebauthnExpectations,
  WebauthnVerifier,
} from './verifier.js';
export { simpleWebauthnVerifier } from './simplewebauthn-verifier.js';
