// The signing secret: at least 32 characters unless NODE_ENV is explicitly
// `development` or `test`, and never empty. Every key the auth module uses (access-token JWTs, session-id
// MACs, later OAuth state) is derived from that one secret with HKDF-SHA256 under its own purpose label, so
// the keys are independent: a MAC made for one purpose is worthless for another.
import { hkdfSync } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { isProductionEnv } from '../../config/node-env.js';

export { isProductionEnv };

/** The shortest signing secret accepted in production. */
export const MIN_SIGNING_SECRET_LENGTH = 32;

/** HKDF `info` labels of the keys derived from the signing secret; a new use gets a new label. */
export const KEY_PURPOSES = Object.freeze({
  accessToken: 'svc access token v1',
  sessionId: 'svc session id v1',
  /** The MCP endpoint's key for anonymous callers' fingerprints, so sessions are recognised on every process. */
  mcpCallerFingerprint: 'svc mcp caller fingerprint v1',
  /** The file service's temporary URLs, so every process of a service opens the links the others made. */
  fileUrl: 'svc files url v1',
  /** Social sign-in: the state's signature, the PKCE verifiers and the nonces, each from its own key. */
  oauthState: 'svc oauth state v1',
  oauthVerifier: 'svc oauth pkce verifier v1',
  oauthNonce: 'svc oauth nonce v1',
});

const DERIVED_KEY_BYTES = 32;
/** Fixed, public HKDF salt: separates svc's keys from anything else derived from the same secret. */
const HKDF_SALT = 'svckit auth';

/**
 * Refuses a signing secret at boot with AUTH_WEAK_SECRET: an empty one always, one shorter than
 * MIN_SIGNING_SECRET_LENGTH characters in production (see isProductionEnv for how `nodeEnv` is read).
 */
export function assertSigningSecret(secret: string, ...nodeEnv: [nodeEnv?: string | undefined]): void {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw errors.AUTH_WEAK_SECRET({ message: 'The signing secret must be a non-empty string.' });
  }
  if (secret.length < MIN_SIGNING_SECRET_LENGTH && isProductionEnv(...nodeEnv)) {
    throw errors.AUTH_WEAK_SECRET({
      details: { minLength: MIN_SIGNING_SECRET_LENGTH, length: secret.length },
    });
  }
}

/** A 32-byte key for `purpose`, derived from `secret` with HKDF-SHA256; the same inputs give the same key. */
export function deriveKey(secret: string, purpose: string): Buffer {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw errors.AUTH_WEAK_SECRET({ message: 'The signing secret must be a non-empty string.' });
  }
  if (typeof purpose !== 'string' || purpose.length === 0) {
    throw new TypeError('deriveKey(): the purpose must be a non-empty string.');
  }
  return Buffer.from(hkdfSync('sha256', secret, HKDF_SALT, purpose, DERIVED_KEY_BYTES));
}
