// Every SQL store on one client: what an app wires when DATABASE_URL names PostgreSQL or a PGlite directory.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { SqlClient } from './client.js';
import type { McpSessionLimits } from '../../mcp/server/session-store.js';
import { SqlAccountLinkStore } from './account-links.js';
import { SqlApiKeyStore } from './api-keys.js';
import { SqlFileStore } from './files.js';
import { SqlIdempotencyStore } from './idempotency.js';
import { SqlMcpSessionStore } from './mcp-sessions.js';
import { SqlMembershipStore } from './memberships.js';
import { SqlMfaStore } from './mfa.js';
import { SqlOneTimeTokenStore } from './one-time-tokens.js';
import { SqlChallengeStore, SqlPasskeyStore } from './passkeys.js';
import { SqlRateLimitStore } from './rate-limit.js';
import { SqlRefreshTokenStore } from './refresh-tokens.js';
import { SqlSessionStore } from './sessions.js';
import { SqlThrottleStore } from './throttle.js';
import { SqlUserSource } from './users.js';

export interface SqlStoresOptions {
  /**
   * Clock (epoch ms) of the stores that read time themselves: rate limit, idempotency, MCP sessions, user
   * creation, tenants and memberships. Default Date.now.
   */
  now?: () => number;
  /** Makes the id of a new user. Default crypto.randomUUID. */
  newUserId?: () => string;
}

export interface SqlStores {
  users: SqlUserSource;
  sessions: SqlSessionStore;
  refreshTokens: SqlRefreshTokenStore;
  oneTimeTokens: SqlOneTimeTokenStore;
  throttle: SqlThrottleStore;
  rateLimit: SqlRateLimitStore;
  /** An idempotency store keeping keys `ttlMs` (default 24 h): each plugin sets its own retention. */
  idempotency(ttlMs?: number): SqlIdempotencyStore;
  /** An MCP tool-session store for the endpoint's limits (idle TTL, live sessions kept). */
  mcpSessions(limits: McpSessionLimits): SqlMcpSessionStore;
  /** The tenancy module's tenants and members. */
  memberships: SqlMembershipStore;
  /** Two-factor sign-in: each user's sealed TOTP secret, recovery code hashes and last accepted step. */
  mfa: SqlMfaStore;
  /** Registered passkeys: public keys and signature counters. */
  passkeys: SqlPasskeyStore;
  /** Passkey ceremonies in progress (when no Redis holds them). */
  webauthnChallenges: SqlChallengeStore;
  /** API keys: their hashes, scopes, owners, expiry and last use. */
  apiKeys: SqlApiKeyStore;
  /** Social sign-in: which account each provider identity (provider and subject) signs in to. */
  accountLinks: SqlAccountLinkStore;
  /** File metadata: the records of stored files and the tenants' quota reservations. */
  files: SqlFileStore;
}

/** The keys of SqlStoresOptions; any other is refused. */
const STORES_OPTIONS = optionKeys<SqlStoresOptions>({ now: true, newUserId: true });

/** The stores, on a database migrated with `migrate` (check it with `checkSchema`). */
export function sqlStores(client: SqlClient, options: SqlStoresOptions = {}): SqlStores {
  rejectUnknownOptions(options, STORES_OPTIONS, 'sqlStores()');
  const { now, newUserId } = options;
  return {
    users: new SqlUserSource(client, { now, newId: newUserId }),
    sessions: new SqlSessionStore(client),
    refreshTokens: new SqlRefreshTokenStore(client),
    oneTimeTokens: new SqlOneTimeTokenStore(client),
    throttle: new SqlThrottleStore(client),
    rateLimit: new SqlRateLimitStore(client, { now }),
    idempotency: (ttlMs) => new SqlIdempotencyStore(client, { now, ttlMs }),
    mcpSessions: (limits) => new SqlMcpSessionStore(client, limits, { now }),
    memberships: new SqlMembershipStore(client, { now }),
    mfa: new SqlMfaStore(client),
    passkeys: new SqlPasskeyStore(client),
    webauthnChallenges: new SqlChallengeStore(client),
    apiKeys: new SqlApiKeyStore(client),
    accountLinks: new SqlAccountLinkStore(client),
    files: new SqlFileStore(client),
  };
}
