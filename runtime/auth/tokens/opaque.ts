// Opaque bearer secrets (refresh tokens, session ids, one-time verification and reset tokens) and the form
// they are stored in. Secrets at rest are hashes: a store keeps only the SHA-256 of a secret, so a leaked table lets nobody
// sign in. The hash is the unpadded base64url of the SHA-256 digest (43 characters) of the token's UTF-8
// bytes, exactly as presented: no trimming or case folding.
import { hash, randomBytes } from 'node:crypto';

const OPAQUE_TOKEN_BYTES = 32;

/** A new random token: 32 bytes from the CSPRNG, unpadded base64url (43 characters). */
export function newOpaqueToken(): string {
  return randomBytes(OPAQUE_TOKEN_BYTES).toString('base64url');
}

/** The store key of a token: SHA-256 of the whole token, unpadded base64url (43 characters). */
export function hashToken(token: string): string {
  if (typeof token !== 'string') throw new TypeError('hashToken(): the token must be a string.');
  // The one-shot hash: a third of createHash's cost, and it runs on every request a token or key authenticates.
  return hash('sha256', token, 'base64url');
}
