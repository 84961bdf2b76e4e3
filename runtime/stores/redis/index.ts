// Redis backends of the short-lived store contracts (docs/stores.md): sessions, refresh and one-time tokens,
// login throttle, rate limits, idempotency keys, MCP tool sessions, WebAuthn challenges.
export {
  openRedis,
  pingRedis,
  closeRedis,
  reconnectDelay,
  DEFAULT_REDIS_COMMAND_TIMEOUT_MS,
  DEFAULT_REDIS_CONNECT_TIMEOUT_MS,
  MAX_REDIS_RECONNECT_DELAY_MS,
} from './client.js';
export type { OpenRedisOptions, RedisClient } from './client.js';
export { isRedisUnavailable, redisFailure } from './errors.js';
export { DEFAULT_REDIS_PREFIX } from './keys.js';
export type { RedisStoreOptions } from './keys.js';
export { RedisSessionStore } from './sessions.js';
export { RedisRefreshTokenStore, USER_REVOCATION_MARK_TTL_MS } from './refresh-tokens.js';
export { RedisOneTimeTokenStore } from './one-time-tokens.js';
export { RedisThrottleStore } from './throttle.js';
export { RedisRateLimitStore } from './rate-limit.js';
export type { RedisRateLimitStoreOptions } from './rate-limit.js';
export { RedisIdempotencyStore } from './idempotency.js';
export type { RedisIdempotencyStoreOptions } from './idempotency.js';
export { RedisMcpSessionStore } from './mcp-sessions.js';
export type { RedisMcpSessionStoreOptions } from './mcp-sessions.js';
export { RedisChallengeStore } from './webauthn-challenges.js';
export type { RedisChallengeStoreOptions } from './webauthn-challenges.js';
export { redisStores } from './stores.js';
export type { RedisStores, RedisStoresOptions } from './stores.js';
