// Tokens of the auth module: the signing secret and its derived keys, opaque tokens and their stored hash,
// HS256 access tokens with a cache of verified tokens, and HMAC-signed session ids.
export {
  KEY_PURPOSES,
  MIN_SIGNING_SECRET_LENGTH,
  assertSigningSecret,
  deriveKey,
  isProductionEnv,
} from './secret.js';
export { hashToken, newOpaqueToken } from './opaque.js';
export { isCanonicalCompactJws } from './canonical.js';
export { AMR_LIMITS, assertAmrList, isAmrList } from './amr.js';
export {
  AccessTokens,
  DEFAULT_ACCESS_TOKEN_CACHE_SIZE,
  DEFAULT_ACCESS_TOKEN_TTL_MS,
  MAX_ACCESS_TOKEN_LENGTH,
  type AccessTokenSubject,
  type AccessTokensOptions,
  type VerifiedAccessToken,
} from './access-tokens.js';
export {
  MAX_SESSION_ID_LENGTH,
  SessionIds,
  sessionIdHash,
  type ParsedSessionId,
  type SessionIdsOptions,
} from './session-ids.js';
