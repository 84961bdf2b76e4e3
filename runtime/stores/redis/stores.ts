// Every store contract Redis implements, on one client and one key prefix. Users are not among them: they
// live in SQL.
import type { McpSessionLimits } from '../../mcp/server/session-store.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { RedisClient } from './client.js';
import { RedisIdempotencyStore } from './idempotency.js';
import type { RedisStoreOptions } from './keys.js';
import { RedisMcpSessionStore } from './mcp-sessions.js';
import { RedisOneTimeTokenStore } from './one-time-tokens.js';
import { RedisRateLimitStore } from './rate-limit.js';
import { RedisRefreshTokenStore } from './refresh-tokens.js';
import { RedisSessionStore } from './sessions.js';
import { RedisThrottleStore } from './throttle.js';
import { RedisChallengeStore } from './webauthn-challenges.js';

export interface RedisStoresOptions extends RedisStoreOptions {
  /**
   * Clock of the rate-limit, idempotency, MCP session and WebAuthn challenge stores, in epoch ms (the others
   * take the caller's `now`).
   */
  now?: () => number;
}

export interface RedisStores {
  sessions: RedisSessionStore;
  refreshTokens: RedisRefreshTokenStore;
  oneTimeTokens: RedisOneTimeTokenStore;
  throttle: RedisThrottleStore;
  rateLimit: RedisRateLimitStore;
  /** An idempotency store keeping keys `ttlMs` (default 24 h): each plugin sets its own retention. */
  idempotency(ttlMs?: number): RedisIdempotencyStore;
  /** An MCP tool-session store for the endpoint's limits (idle TTL, live sessions kept). */
  mcpSessions(limits: McpSessionLimits): RedisMcpSessionStore;
  /** Passkey ceremonies in progress. */
  webauthnChallenges: RedisChallengeStore;
}

/** The keys of RedisStoresOptions, its parent's included. */
const STORES_OPTIONS = optionKeys<RedisStoresOptions>({ prefix: true, now: true });

export function redisStores(client: RedisClient, options: RedisStoresOptions = {}): RedisStores {
  rejectUnknownOptions(options, STORES_OPTIONS, 'redisStores()');
  const { prefix, now } = options;
  return {
    sessions: new RedisSessionStore(client, { prefix }),
    refreshTokens: new RedisRefreshTokenStore(client, { prefix }),
    oneTimeTokens: new RedisOneTimeTokenStore(client, { prefix }),
    throttle: new RedisThrottleStore(client, { prefix }),
    rateLimit: new RedisRateLimitStore(client, { prefix, now }),
    idempotency: (ttlMs) => new RedisIdempotencyStore(client, { prefix, now, ttlMs }),
    mcpSessions: (limits) => new RedisMcpSessionStore(client, limits, { prefix, now }),
    webauthnChallenges: new RedisChallengeStore(client, { prefix, now }),
  };
}
