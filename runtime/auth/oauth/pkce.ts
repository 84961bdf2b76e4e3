// PKCE (RFC 7636, S256) and the OIDC nonce of one sign-in, both derived from its state id: the verifier is
// base64url(HMAC(verifier key, state id)) and the nonce base64url(HMAC(nonce key, state id)), so the
// callback recomputes them and nothing but the state's single-use mark is stored. The state id is public (it
// travels in URLs); without the derived keys it tells nothing about either value.
import { createHmac, hash } from 'node:crypto';
import type { OAuthKeys } from './keys.js';

/** The code verifier of the sign-in whose state id is `stateId`: 43 base64url characters (256 bits). */
export function codeVerifierFor(keys: OAuthKeys, stateId: string): string {
  return createHmac('sha256', keys.verifier).update(stateId).digest('base64url');
}

/** The S256 challenge of a verifier: base64url(SHA-256(verifier)). */
export function codeChallengeOf(verifier: string): string {
  return hash('sha256', verifier, 'base64url');
}

/** The nonce the ID token of that sign-in must carry. */
export function nonceFor(keys: OAuthKeys, stateId: string): string {
  return createHmac('sha256', keys.nonce).update(stateId).digest('base64url');
}
