// The stores svc.config.yaml selects (`stores.database`, `stores.redis`; docs/stores.md). PostgreSQL (or an
// embedded PGlite directory) holds the users and, without Redis, every other store; Redis, when set, holds
// the short-lived, hot state (sessions, refresh and one-time tokens, login throttle, rate limits,
// idempotency keys, MCP tool sessions). A store left undefined means "in memory": each module then makes its
// own default.
import { isAbsolute, resolve } from 'node:path';
import { errors } from '../../generated/modules/errors.js';
import type { OneTimeTokenStore } from '../auth/stores/one-time-tokens.js';
import type { RefreshTokenStore } from '../auth/stores/refresh-tokens.js';
import type { SessionStore } from '../auth/stores/sessions.js';
import type { UserSource } from '../auth/stores/users.js';
import type { ThrottleStore } from '../auth/throttle/store.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import type { StoresConfig } from '../config/svc-config.js';
import type { HealthCheck } from '../edge/health/index.js';
import type { RateLimitStore } from '../edge/rate-limit/store.js';
import { MemoryIdempotencyStore } from '../idempotency/memory-store.js';
import type { IdempotencyStore } from '../idempotency/store.js';
import type { Logger } from '../log/logger.js';
import { memoryMcpSessions } from '../mcp/server/memory-session-store.js';
import type { McpSessionStoreFactory } from '../mcp/server/session-store.js';
import { closeRedis, openRedis, pingRedis, redisStores } from './redis/index.js';
import { checkSchema, migrate, openSqlClient, SqlSweeper, sqlStores, type SqlClient } from './sql/index.js';

export type DatabaseKind = 'memory' | 'postgres' | 'pglite';

export interface OpenStoresOptions {
  /**
   * Apply pending migrations before use (what the reference service does at start). Default false: the
   * schema must already be current (`svc db:migrate`), else STORE_SCHEMA_MISMATCH.
   */
  migrate?: boolean;
  /** Where a relative `pglite:<dir>` resolves. Default the working directory. */
  projectDir?: string;
  /** Prefix of every Redis key. Default 'svc:'. */
  redisPrefix?: string;
  /** How often expired SQL rows are deleted, in ms; 0 turns the sweeper off. Default 10 minutes. */
  sweepIntervalMs?: number;
  /** Where the stores' own trouble is logged (a failed sweep): pass `app.logger`. Default: JSON on stderr. */
  logger?: Logger;
}

export interface Stores {
  readonly database: DatabaseKind;
  readonly redis: boolean;
  readonly users?: UserSource;
  readonly sessions?: SessionStore;
  readonly refreshTokens?: RefreshTokenStore;
  readonly oneTimeTokens?: OneTimeTokenStore;
  readonly throttle?: ThrottleStore;
  readonly rateLimit?: RateLimitStore;
  /** An idempotency store keeping keys `ttlMs` (the plugin's retention) in the selected backend. */
  idempotency(ttlMs: number): IdempotencyStore;
  /**
   * An MCP tool-session store for the endpoint's limits, in the selected backend (Redis, else the database,
   * else this process's memory): pass it as the MCP module's session store.
   */
  readonly mcpSessions: McpSessionStoreFactory;
  /** Readiness checks for /readyz, one per backend in use (`database`, `redis`). */
  readonly healthChecks: Readonly<Record<string, HealthCheck>>;
  /** Stops the sweeper and closes the connections. */
  close(): Promise<void>;
}

/** The keys of OpenStoresOptions and of StoresConfig; others are refused. */
const OPEN_STORES_OPTIONS = optionKeys<OpenStoresOptions>({
  migrate: true,
  projectDir: true,
  redisPrefix: true,
  sweepIntervalMs: true,
  logger: true,
});
const STORES_CONFIG_KEYS = optionKeys<StoresConfig>({ database: true, redis: true });

/** The database a `stores.database` value names; a value svc cannot use refuses to boot (CONFIG_INVALID). */
export function databaseKind(url: string | undefined): DatabaseKind {
  if (url === undefined || url === 'memory') return 'memory';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (url.startsWith('pglite:') && url.length > 'pglite:'.length) return 'pglite';
  throw errors.CONFIG_INVALID({
    message: `stores.database: expected postgres://…, pglite:<dir> or memory, got ${JSON.stringify(url)}`,
  });
}

function checkRedisUrl(url: string): void {
  if (!/^rediss?:\/\//.test(url)) {
    throw errors.CONFIG_INVALID({
      message: `stores.redis: expected redis://… or rediss://…, got ${JSON.stringify(url)}`,
    });
  }
}

/** `pglite:<dir>` with a relative dir resolved against the project; `pglite:memory` stays as it is. */
export function resolvedDatabaseUrl(url: string, projectDir: string): string {
  if (!url.startsWith('pglite:')) return url;
  const dir = url.slice('pglite:'.length);
  return dir === 'memory' || isAbsolute(dir) ? url : `pglite:${resolve(projectDir, dir)}`;
}

/** Opens the backends `config` names. Without either, every store stays in memory. */
export async function openStores(config: StoresConfig, options: OpenStoresOptions = {}): Promise<Stores> {
  // Before anything opens: a misspelt `databse` would otherwise keep every store in memory without a word.
  rejectUnknownOptions(config, STORES_CONFIG_KEYS, 'openStores(): config');
  rejectUnknownOptions(options, OPEN_STORES_OPTIONS, 'openStores()');
  const database = databaseKind(config.database);
  if (config.redis !== undefined) checkRedisUrl(config.redis);
  const healthChecks: Record<string, HealthCheck> = {};
  const closers: (() => Promise<void>)[] = [];

  let sql: ReturnType<typeof sqlStores> | undefined;
  if (database !== 'memory' && config.database !== undefined) {
    const client: SqlClient = await openSqlClient(
      resolvedDatabaseUrl(config.database, options.projectDir ?? process.cwd()),
    );
    try {
      if (options.migrate === true) await migrate(client);
      else await checkSchema(client);
    } catch (error) {
      await client.close();
      throw error;
    }
    sql = sqlStores(client);
    const sweeper =
      options.sweepIntervalMs === 0
        ? undefined
        : new SqlSweeper(client, { intervalMs: options.sweepIntervalMs, logger: options.logger });
    closers.push(async () => {
      await sweeper?.stop(); // waits for a sweep in progress
      await client.close();
    });
    healthChecks.database = async () => {
      await client.ping();
      return { ok: true };
    };
  }

  let redis: ReturnType<typeof redisStores> | undefined;
  if (config.redis !== undefined) {
    const client = await openRedis(config.redis);
    redis = redisStores(client, { prefix: options.redisPrefix });
    closers.push(() => closeRedis(client)); // waits for replies still in flight
    healthChecks.redis = async () => {
      await pingRedis(client);
      return { ok: true };
    };
  }

  const hot = redis ?? sql;
  return {
    database,
    redis: redis !== undefined,
    users: sql?.users,
    sessions: hot?.sessions,
    refreshTokens: hot?.refreshTokens,
    oneTimeTokens: hot?.oneTimeTokens,
    throttle: hot?.throttle,
    rateLimit: hot?.rateLimit,
    idempotency: (ttlMs) => hot?.idempotency(ttlMs) ?? new MemoryIdempotencyStore({ ttlMs }),
    mcpSessions: (limits) => hot?.mcpSessions(limits) ?? memoryMcpSessions(limits),
    healthChecks,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
