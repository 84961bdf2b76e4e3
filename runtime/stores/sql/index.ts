// SQL stores: PostgreSQL through node-postgres, or PGlite embedded, behind one SqlClient.
export {
  openSqlClient,
  pgliteLocation,
  type SqlClient,
  type SqlClientOptions,
  type SqlQueryable,
  type SqlResult,
} from './client.js';
export { migrate, checkSchema, type MigrateOptions, type MigrateResult } from './migrate.js';
export { loadAppMigrations, migrationChecksum, type AppMigration } from './app-migrations.js';
export { migrations, type Migration } from './migrations/index.js';
export {
  sweepExpired,
  SqlSweeper,
  DEFAULT_SWEEP_INTERVAL_MS,
  EXPIRING_TABLES,
  type ExpiringTable,
  type SqlSweeperOptions,
} from './sweep.js';
export { sqlStores, type SqlStores, type SqlStoresOptions } from './stores.js';
export { SqlUserSource, type SqlUserSourceOptions } from './users.js';
export { SqlSessionStore } from './sessions.js';
export { SqlRefreshTokenStore } from './refresh-tokens.js';
export { SqlOneTimeTokenStore } from './one-time-tokens.js';
export { SqlThrottleStore } from './throttle.js';
export { SqlRateLimitStore, type SqlRateLimitStoreOptions } from './rate-limit.js';
export { SqlIdempotencyStore, type SqlIdempotencyStoreOptions } from './idempotency.js';
export { SqlMcpSessionStore, type SqlMcpSessionStoreOptions } from './mcp-sessions.js';
export { SqlMembershipStore, type SqlMembershipStoreOptions } from './memberships.js';
export { SqlMfaStore } from './mfa.js';
export { SqlPasskeyStore, SqlChallengeStore } from './passkeys.js';
export { SqlApiKeyStore } from './api-keys.js';
export { SqlAccountLinkStore } from './account-links.js';
export { SqlFileStore } from './files.js';
