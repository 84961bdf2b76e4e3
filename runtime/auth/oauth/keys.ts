// The keys of social sign-in, each derived from the service secret with HKDF under its own label
// (KEY_PURPOSES in tokens/secret.ts): one signs the state, one derives PKCE verifiers, one derives nonces. The secret itself
// keys nothing, so a value made for one purpose is worthless for another.
import { deriveKey, KEY_PURPOSES } from '../tokens/secret.js';

export interface OAuthKeys {
  readonly state: Buffer;
  readonly verifier: Buffer;
  readonly nonce: Buffer;
}

export function oauthKeys(secret: string): OAuthKeys {
  return Object.freeze({
    state: deriveKey(secret, KEY_PURPOSES.oauthState),
    verifier: deriveKey(secret, KEY_PURPOSES.oauthVerifier),
    nonce: deriveKey(secret, KEY_PURPOSES.oauthNonce),
  });
}
