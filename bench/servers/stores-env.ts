// Where the shared-stores benches keep their state, and the Auth their servers build on it. The runner
// (bench/stores.ts) creates the database and removes it and the Redis keys afterwards; the servers read the
// same locations from the same environment. BENCH_STORES picks the stores: `memory` (svc's defaults) or
// `shared` (users in PostgreSQL; sessions, refresh tokens, login throttle and rate limits in Redis).
import { Auth, LoginThrottle, openStores, sessionIdHash, type ApiKeys, type Stores } from 'svckit';
import { BENCH_ACCESS_TTL, BENCH_AUTH_SECRET, LOGIN_USER } from './auth-secret.js';

export type BenchStoresKind = 'memory' | 'shared';

/** The database the benches create for themselves, beside the tests' ones. */
export const BENCH_DATABASE_NAME = 'svc_bench';
/** Every Redis key of the benches starts with this. */
export const BENCH_REDIS_PREFIX = 'svc-bench:';
/** The session the runner signs and the servers store, passed to the servers in this variable. */
export const BENCH_SESSION_ENV = 'BENCH_SESSION_ID';
/** Passed to the login server: which stores it builds on (BenchStoresKind). */
export const BENCH_STORES_ENV = 'BENCH_STORES';

/** A URL of the PostgreSQL server of DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test) naming `database`. */
export function benchDatabaseUrl(database = BENCH_DATABASE_NAME): string {
  const url = new URL(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test');
  url.pathname = `/${database}`;
  return url.toString();
}

export function benchRedisUrl(): string {
  return process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
}

export function benchStoresKind(value: string | undefined): BenchStoresKind {
  if (value === 'memory' || value === 'shared') return value;
  throw new Error(`${BENCH_STORES_ENV} must be memory or shared, got ${JSON.stringify(value)}`);
}

/** The stores `kind` names: svc's in-memory defaults, or PostgreSQL + Redis under the benches' names. */
export async function openBenchStores(kind: BenchStoresKind): Promise<Stores> {
  return kind === 'shared'
    ? openStores(
        { database: benchDatabaseUrl(), redis: benchRedisUrl() },
        { redisPrefix: BENCH_REDIS_PREFIX, sweepIntervalMs: 0 },
      )
    : openStores({});
}

export interface BenchAuth {
  auth: Auth;
  stores: Stores;
}

/**
 * An Auth on the chosen stores, with the login throttle counting in them (limits raised so the one bench
 * account never locks), the bench account registered (kept from an earlier start in PostgreSQL) and, when
 * the runner passed one, the bench session stored for it.
 */
export async function benchAuth(
  kind: BenchStoresKind,
  options: { stores?: Stores; apiKeys?: ApiKeys } = {},
): Promise<BenchAuth> {
  const stores = options.stores ?? (await openBenchStores(kind));
  const auth = new Auth({
    ...(options.apiKeys === undefined ? {} : { apiKeys: options.apiKeys }),
    secret: BENCH_AUTH_SECRET,
    accessTtl: BENCH_ACCESS_TTL,
    users: stores.users,
    sessions: stores.sessions,
    refreshTokens: stores.refreshTokens,
    oneTimeTokens: stores.oneTimeTokens,
    loginThrottle: new LoginThrottle({ store: stores.throttle, maxAttempts: 1e9, maxAttemptsPerIp: 1e9 }),
  });
  const user =
    (await auth.users.findByEmail(LOGIN_USER.email)) ??
    (await auth.register(LOGIN_USER.email, LOGIN_USER.password)).user;
  const sessionId = process.env[BENCH_SESSION_ENV];
  if (sessionId !== undefined) {
    const now = Date.now();
    await auth.sessions.create(sessionIdHash(sessionId), {
      userId: user.id,
      amr: ['pwd'],
      createdAt: now,
      expiresAt: now + 86_400_000,
    });
  }
  return { auth, stores };
}
