// The keys of social sign-in, each derived from the service secret with HKDF under its own label
// (tokens/secret.ts): one signs the state, one derives PKCE verifiers, one derives nonces. The secret itself
// keys nothing, so a value made for one purpose is worthless for another.
import { deriveKey } from '../tokens/secret.js';

const PURPOSES = Object.freeze({
  state: 'svc oauth state v1',
  verifier: 'svc oauth pkce verifier v1',
  nonce: 'svc oauth nonce v1',
});

export interface OAuthKeys {
  readonly state: Buffer;
  readonly verifier: Buffer;
  readonly nonce: Buffer;
}

export function oauthKeys(secret: string): OAuthKeys {
  return Object.freeze({
    state: deriveKey(secret, PURPOSES.state),
    verifier: deriveKey(secret, PURPOSES.verifier),
    nonce: deriveKey(secret, PURPOSES.nonce),
  });
}
