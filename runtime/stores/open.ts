// The stores svc.config.yaml selects (`stores.database`, `stores.redis`; docs/stores.md). PostgreSQL (or an
// embedded PGlite directory) holds the users and, without Redis, every other store; Redis, when set, holds
// the short-lived, hot state (sessions, refresh and one-time tokens, login throttle, rate limits,
// idempotency keys, MCP tool sessions). A store left undefined means "in memory": each module then makes its
// own default. The application reaches the same database through `stores.sql`, with its own migrations
// (runtime/stores/sql/app-migrations.ts) applied after svckit's.
import { isAbsolute, resolve } from 'node:path';
import { errors } from '../../generated/modules/errors.js';
import type { ApiKeyStore } from '../auth/apikeys/store.js';
import type { MfaStore } from '../auth/mfa/store.js';
import type { ChallengeStore, PasskeyStore } from '../auth/passkeys/store.js';
import type { AccountLinkStore } from '../auth/stores/account-links.js';
import type { OneTimeTokenStore } from '../auth/stores/one-time-tokens.js';
import type { RefreshTokenStore } from '../auth/stores/refresh-tokens.js';
import type { SessionStore } from '../auth/stores/sessions.js';
import type { UserSource } from '../auth/stores/users.js';
import type { ThrottleStore } from '../auth/throttle/store.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { positiveWholeNumber } from '../config/whole-number.js';
import type { StoresConfig } from '../config/svc-config.js';
import type { HealthCheck } from '../edge/health/index.js';
import type { RateLimitStore } from '../edge/rate-limit/store.js';
import type { FileStore } from '../files/store/store.js';
import { MemoryIdempotencyStore } from '../idempotency/memory-store.js';
import type { IdempotencyStore } from '../idempotency/store.js';
import type { Logger } from '../log/logger.js';
import { memoryMcpSessions } from '../mcp/server/memory-session-store.js';
import type { McpSessionStoreFactory } from '../mcp/server/session-store.js';
import type { MembershipStore } from '../tenancy/memberships.js';
import { invalidOption } from '../config/option-errors.js';
import { appMemoryDatabase, type SharedSqlClient } from './app-memory-database.js';
import type { InvalidationBus } from './cache/bus.js';
import { DEFAULT_CACHE_MAX_AGE_MS } from './cache/hot-cache.js';
import { cachedStores, type CachedHotPathStores } from './cache/index.js';
import { localBus } from './cache/local-bus.js';
import { openPgBus } from './cache/pg-bus.js';
import { openRedisBus } from './cache/redis-bus.js';
import {
  closeRedis,
  DEFAULT_REDIS_PREFIX,
  openRedis,
  pingRedis,
  redisStores,
  type RedisClient,
} from './redis/index.js';
import { defaultAppMigrationsDir, loadAppMigrations, type AppMigration } from './sql/app-migrations.js';
import { checkSchema, migrate, openSqlClient, SqlSweeper, sqlStores, type SqlClient } from './sql/index.js';

export type DatabaseKind = 'memory' | 'postgres' | 'pglite';
export type { SharedSqlClient };

export interface OpenStoresOptions {
  /**
   * Apply pending migrations, svckit's and the application's, before use (what the reference service does at
   * start). Default false: the schema must already be current (`svc db:migrate`), else STORE_SCHEMA_MISMATCH.
   * An in-memory database (`pglite:memory`) is always migrated: it starts empty.
   */
  migrate?: boolean;
  /** Where a relative `pglite:<dir>`, SVC_PGLITE_DIR and `appMigrations` resolve. Default the working directory. */
  projectDir?: string;
  /**
   * The application's migrations folder (`NNNN-name.sql` files), relative to `projectDir`; false for none.
   * Default `<projectDir>/migrations` when that folder exists.
   */
  appMigrations?: string | false;
  /** Where SVC_PGLITE_DIR is read (see resolvedDatabaseUrl). Default process.env. */
  env?: Record<string, string | undefined>;
  /** Prefix of every Redis key. Default 'svc:'. */
  redisPrefix?: string;
  /** How often expired SQL rows are deleted, in ms; 0 turns the sweeper off. Default 10 minutes. */
  sweepIntervalMs?: number;
  /** Where the stores' own trouble is logged (a failed sweep): pass `app.logger`. Default: JSON on stderr. */
  logger?: Logger;
  /**
   * The per-process hot cache of users, sessions, API keys and roles (docs/stores.md, "Hot cache"), kept
   * honest by an invalidation bus: Redis pub/sub with `stores.redis`, else PostgreSQL LISTEN/NOTIFY, else (a
   * PGlite directory, one process) in-process. On by default with a database or Redis; nothing to cache with
   * everything in memory. `false` turns it off. `maxEntries` (per store, default 10 000), `maxAgeMs` (how long
   * an entry is trusted while the bus is up, default 30 000), `fallbackTtlMs` (while it is down, default
   * 1 000), `heartbeatMs` (how often the bus checks it hears itself, default 1 000).
   */
  cache?: false | StoresCacheOptions;
}

/** The hot cache's settings (OpenStoresOptions.cache). */
export interface StoresCacheOptions {
  maxEntries?: number;
  maxAgeMs?: number;
  fallbackTtlMs?: number;
  heartbeatMs?: number;
}

export interface Stores {
  /** `stores.database`'s kind; `memory` even when `sql` is an in-memory PGlite for the application's tables. */
  readonly database: DatabaseKind;
  /**
   * The client svckit's SQL stores use (one per process: never a second owner of a PGlite directory), for the
   * application's own tables. With `stores.database: memory` it is an in-memory PGlite when the application
   * has migrations, made and migrated on its first query (svckit's stores stay in memory maps); without
   * migrations, undefined.
   */
  readonly sql: SharedSqlClient | undefined;
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
  /**
   * The tenancy module's tenants and members: durable data, so in the database (never Redis). Undefined with
   * `stores.database: memory`: the module then keeps them in this process's memory.
   */
  readonly memberships?: MembershipStore;
  /**
   * Two-factor sign-in records: durable data, so in the database (never Redis). Undefined with
   * `stores.database: memory`: the auth module then keeps them in this process's memory.
   */
  readonly mfa?: MfaStore;
  /**
   * Registered passkeys: durable data, so in the database (never Redis). Undefined with
   * `stores.database: memory`: the auth module then keeps them in this process's memory.
   */
  readonly passkeys?: PasskeyStore;
  /** Passkey ceremonies in progress: in Redis when there is one, else in the database. */
  readonly webauthnChallenges?: ChallengeStore;
  /**
   * API keys: durable data, so in the database (never Redis). Undefined with `stores.database: memory`: the
   * auth module then keeps them in this process's memory.
   */
  readonly apiKeys?: ApiKeyStore;
  /**
   * Social sign-in's account links: durable data, so in the database (never Redis). Undefined with
   * `stores.database: memory`: the auth module then keeps them in this process's memory.
   */
  readonly accountLinks?: AccountLinkStore;
  /**
   * File metadata (records and quota reservations): durable data, so in the database (never Redis). Undefined
   * with `stores.database: memory`: the file service then keeps it in this process's memory.
   */
  readonly files?: FileStore;
  /**
   * The bus that keeps every process's hot cache honest (publish a topic of cache/bus.ts to drop what it
   * names everywhere); undefined when nothing is cached (`cache: false`, or everything in memory).
   */
  readonly invalidation: InvalidationBus | undefined;
  /** Readiness checks for /readyz, one per backend in use (`database`, `redis`). */
  readonly healthChecks: Readonly<Record<string, HealthCheck>>;
  /** Stops the sweeper and closes the connections. Called again, answers the first call's promise. */
  close(): Promise<void>;
}

/** The keys of OpenStoresOptions and of StoresConfig; others are refused. */
const OPEN_STORES_OPTIONS = optionKeys<OpenStoresOptions>({
  migrate: true,
  projectDir: true,
  appMigrations: true,
  env: true,
  redisPrefix: true,
  sweepIntervalMs: true,
  logger: true,
  cache: true,
});
const STORES_CONFIG_KEYS = optionKeys<StoresConfig>({ database: true, redis: true });
const CACHE_OPTIONS = optionKeys<StoresCacheOptions>({
  maxEntries: true,
  maxAgeMs: true,
  fallbackTtlMs: true,
  heartbeatMs: true,
});

/** OpenStoresOptions.cache checked before anything opens; undefined when turned off. */
function cacheSettings(option: unknown): StoresCacheOptions | undefined {
  if (option === false) return undefined;
  if (option === undefined) return {};
  if (option === null || typeof option !== 'object' || Array.isArray(option)) {
    throw invalidOption('openStores()', 'cache', 'false or an object of cache settings');
  }
  rejectUnknownOptions(option, CACHE_OPTIONS, 'openStores(): cache');
  const given = option as Record<keyof StoresCacheOptions, unknown>;
  for (const key of CACHE_OPTIONS as (keyof StoresCacheOptions)[]) {
    if (given[key] !== undefined) positiveWholeNumber(given[key], 1, 'openStores()', `cache.${key}`);
  }
  return option as StoresCacheOptions;
}

/**
 * A refused URL as a message shows it: with its password as `***` and its query cut (`?password=…` is a
 * password too), since a refusal is printed and logged. A value without `//host` shows its scheme alone (its
 * rest may be a password); a value without a scheme (`memroy`) as written, unless it has an `@` or a `:`.
 */
function refusedUrl(url: string): string {
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  if (scheme === undefined) return /[@:]/.test(url) ? 'a value that is not a URL' : JSON.stringify(url);
  if (url === `${scheme}:`) return `"${scheme}:" and nothing after it`;
  if (!url.startsWith(`${scheme}://`)) return `a "${scheme}:" value without //host`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return `a "${scheme}:" URL`;
  }
  if (parsed.password !== '') parsed.password = '***';
  const query = parsed.search === '' ? '' : '?…';
  parsed.search = '';
  parsed.hash = '';
  return JSON.stringify(`${parsed.toString()}${query}`);
}

/** The database a `stores.database` value names; a value svc cannot use refuses to boot (CONFIG_INVALID). */
export function databaseKind(url: string | undefined): DatabaseKind {
  if (url === undefined || url === 'memory') return 'memory';
  if (/^postgres(ql)?:\/\//.test(url)) return 'postgres';
  if (url.startsWith('pglite:') && url.length > 'pglite:'.length) return 'pglite';
  throw errors.CONFIG_INVALID({
    message: `stores.database: expected postgres://…, pglite:<dir> or memory, got ${refusedUrl(url)}`,
  });
}

function checkRedisUrl(url: string): void {
  if (!/^rediss?:\/\//.test(url)) {
    throw errors.CONFIG_INVALID({
      message: `stores.redis: expected redis://… or rediss://…, got ${refusedUrl(url)}`,
    });
  }
}

/** The variable that moves a `pglite:<dir>` database elsewhere (`svc test`, `svc mcp` set it). */
export const PGLITE_DIR_VARIABLE = 'SVC_PGLITE_DIR';

/**
 * `pglite:<dir>` with a relative dir resolved against the project; `pglite:memory` stays as it is. When
 * SVC_PGLITE_DIR is set (not empty) in `env`, it replaces the dir of a `pglite:<dir>` URL: `memory` gives
 * `memory` (the stores in memory), a relative path resolves against the project. Other URLs are returned
 * unchanged; undefined (not set) stays undefined. A value svc cannot use is CONFIG_INVALID, checked as
 * written: `pglite:` alone must not become the project directory.
 */
export function resolvedDatabaseUrl(
  url: string | undefined,
  projectDir: string,
  env: Record<string, string | undefined> = process.env,
): string | undefined {
  databaseKind(url);
  if (url === undefined || !url.startsWith('pglite:')) return url;
  const configured = url.slice('pglite:'.length);
  const override = env[PGLITE_DIR_VARIABLE];
  // An in-memory database collides with nothing: only a directory is moved.
  const moved = configured !== 'memory' && override !== undefined && override !== '';
  // Moved to `memory`: the stores' own memory (a fresh PGlite costs seconds of CPU per process, which every
  // test file would pay); the application's tables still get an in-memory database when it has migrations.
  if (moved && override === 'memory') return 'memory';
  const dir = moved ? override : configured;
  return dir === 'memory' || isAbsolute(dir) ? `pglite:${dir}` : `pglite:${resolve(projectDir, dir)}`;
}

/** The application's migrations `option` names (see OpenStoresOptions.appMigrations); undefined for none. */
export function appMigrationsFor(
  option: string | false | undefined,
  projectDir: string,
): AppMigration[] | undefined {
  if (option === false) return undefined;
  if (option !== undefined && (typeof option !== 'string' || option === '')) {
    throw invalidOption('openStores()', 'appMigrations', 'a folder path or false');
  }
  const dir = option === undefined ? defaultAppMigrationsDir(projectDir) : resolve(projectDir, option);
  return dir === undefined ? undefined : loadAppMigrations(dir);
}

/** Migrates or checks a freshly opened client, closing it when that fails. */
async function prepare(client: SqlClient, run: () => Promise<unknown>): Promise<void> {
  try {
    await run();
  } catch (error) {
    await client.close();
    throw error;
  }
}

/** Opens the backends `config` names. Without either, every store stays in memory. */
export async function openStores(config: StoresConfig, options: OpenStoresOptions = {}): Promise<Stores> {
  // Before anything opens: a misspelt `databse` would otherwise keep every store in memory without a word.
  rejectUnknownOptions(config, STORES_CONFIG_KEYS, 'openStores(): config');
  rejectUnknownOptions(options, OPEN_STORES_OPTIONS, 'openStores()');
  const projectDir = options.projectDir ?? process.cwd();
  const url = resolvedDatabaseUrl(config.database, projectDir, options.env ?? process.env);
  const database = databaseKind(url);
  if (config.redis !== undefined) checkRedisUrl(config.redis);
  // Read before anything opens: a misnamed migration file refuses to boot at once.
  const appMigrations = appMigrationsFor(options.appMigrations, projectDir);
  const cache = cacheSettings(options.cache);
  const healthChecks: Record<string, HealthCheck> = {};
  const closers: (() => Promise<void>)[] = [];

  let shared: SharedSqlClient | undefined;
  let sql: ReturnType<typeof sqlStores> | undefined;
  if (database === 'memory') {
    // svckit's stores stay in memory maps; the application's tables get an in-memory database of their own.
    if (appMigrations !== undefined && appMigrations.length > 0) {
      const memory = appMemoryDatabase(appMigrations);
      closers.push(() => memory.close());
      shared = memory.client;
    }
  } else if (url !== undefined) {
    const opened = await openSqlClient(url);
    // An in-memory database starts empty: there is nothing `svc db:migrate` could have prepared.
    const migrating = options.migrate === true || url === 'pglite:memory';
    await prepare(opened, () =>
      migrating ? migrate(opened, { appMigrations }) : checkSchema(opened, { appMigrations }),
    );
    shared = sharedView(opened);
    sql = sqlStores(opened);
    const sweeper =
      options.sweepIntervalMs === 0
        ? undefined
        : new SqlSweeper(opened, { intervalMs: options.sweepIntervalMs, logger: options.logger });
    closers.push(async () => {
      await sweeper?.stop(); // waits for a sweep in progress
      await opened.close();
    });
    healthChecks.database = async () => {
      await opened.ping();
      return { ok: true };
    };
  }

  let closing: Promise<void> | undefined;
  /** Last opened, first closed; each closer runs even when one before it failed, and the first failure is thrown. */
  const closeAll = async () => {
    let failure: { error: unknown } | undefined;
    for (const close of [...closers].reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  };
  let redis: ReturnType<typeof redisStores> | undefined;
  let redisClient: RedisClient | undefined;
  if (config.redis !== undefined) {
    // Should Redis not open, the database opened above is closed rather than left holding its directory.
    const client = await openRedis(config.redis).catch(async (error: unknown) => {
      await closeAll().catch(() => undefined);
      throw error;
    });
    redis = redisStores(client, { prefix: options.redisPrefix });
    redisClient = client;
    closers.push(() => closeRedis(client)); // waits for replies still in flight
    healthChecks.redis = async () => {
      await pingRedis(client);
      return { ok: true };
    };
  }

  const hot = redis ?? sql;
  let cached: CachedHotPathStores | undefined;
  let invalidation: InvalidationBus | undefined;
  // Nothing to cache when every store is this process's memory.
  if (cache !== undefined && (database !== 'memory' || redisClient !== undefined)) {
    const { heartbeatMs, ...cacheOptions } = cache;
    // A failed invalidation is retried as long as a cache may still serve what it names.
    const retryForMs = cacheOptions.maxAgeMs ?? DEFAULT_CACHE_MAX_AGE_MS;
    const bus = await openBus(url, database, redisClient, options.redisPrefix, {
      heartbeatMs,
      retryForMs,
    }).catch(async (error: unknown) => {
      await closeAll().catch(() => undefined);
      throw error;
    });
    invalidation = bus;
    const opened = cachedStores(
      { users: sql?.users, sessions: hot?.sessions, apiKeys: sql?.apiKeys, memberships: sql?.memberships },
      bus,
      cacheOptions,
    );
    cached = opened;
    // Pushed last, so closed first: the bus before the Redis or SQL client it sends on.
    closers.push(async () => {
      opened.close();
      await bus.close();
    });
  }

  return {
    database,
    redis: redis !== undefined,
    sql: shared,
    users: cached?.users ?? sql?.users,
    sessions: cached?.sessions ?? hot?.sessions,
    refreshTokens: hot?.refreshTokens,
    oneTimeTokens: hot?.oneTimeTokens,
    throttle: hot?.throttle,
    rateLimit: hot?.rateLimit,
    idempotency: (ttlMs) => hot?.idempotency(ttlMs) ?? new MemoryIdempotencyStore({ ttlMs }),
    mcpSessions: (limits) => hot?.mcpSessions(limits) ?? memoryMcpSessions(limits),
    memberships: cached?.memberships ?? sql?.memberships,
    mfa: sql?.mfa,
    passkeys: sql?.passkeys,
    webauthnChallenges: hot?.webauthnChallenges,
    apiKeys: cached?.apiKeys ?? sql?.apiKeys,
    accountLinks: sql?.accountLinks,
    files: sql?.files,
    invalidation,
    healthChecks,
    // Once: a second call (a shutdown hook and a test's cleanup both closing) waits for the first.
    close() {
      closing ??= closeAll();
      return closing;
    },
  };
}

/**
 * The bus of the processes sharing these stores: Redis pub/sub when there is Redis (on the stores' client),
 * else LISTEN/NOTIFY on the PostgreSQL server, else (a PGlite directory, which one process owns) in-process.
 */
function openBus(
  url: string | undefined,
  database: DatabaseKind,
  redisClient: RedisClient | undefined,
  redisPrefix: string | undefined,
  timing: { heartbeatMs: number | undefined; retryForMs: number },
): Promise<InvalidationBus> {
  if (redisClient !== undefined) {
    return openRedisBus(redisClient, {
      channel: `${redisPrefix ?? DEFAULT_REDIS_PREFIX}invalidate`,
      ...timing,
    });
  }
  if (url !== undefined && database === 'postgres') return openPgBus(url, timing);
  return Promise.resolve(localBus());
}

/** `client` without `close`: the stores own its lifetime. */
function sharedView(client: SqlClient): SharedSqlClient {
  return {
    kind: client.kind,
    query: (text, params) => client.query(text, params),
    transaction: (fn) => client.transaction(fn),
    ping: () => client.ping(),
  };
}
