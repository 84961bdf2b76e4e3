// The shared-stores benches (issue 6): the same server on svc's in-memory stores and on PostgreSQL + Redis.
// - stores-jwt, stores-session: HTTP pairs (bench/http.ts) of bench/servers/svc-fastify-stores-*.ts, every
//   request authenticated (a bearer JWT, or the session cookie) and counted by a global per-IP rate limit.
// - tenancy-postgres: an HTTP pair of bench/servers/svc-fastify-tenancy*.ts, the membership check on every
//   request read from PostgreSQL or from memory.
// - stores-login: the login bench (bench/login.ts) on both, rounds alternating which goes first.
// The runner gives the benches a database of their own (svc_bench, created and migrated here, dropped WITH
// (FORCE) afterwards) and a Redis key prefix (svc-bench:, its keys deleted afterwards), so nothing collides
// with the tests' databases and keys.
import pg from 'pg';
import { SessionIds, closeRedis, openRedis, openStores } from 'svckit';
import type { HttpPair } from './http.js';
import { LOGIN_CONNECTIONS, loginRound, type LoginSample } from './login.js';
import { median } from './lib/results.js';
import { BENCH_AUTH_SECRET } from './servers/auth-secret.js';
import {
  BENCH_DATABASE_NAME,
  BENCH_REDIS_PREFIX,
  BENCH_SESSION_ENV,
  BENCH_STORES_ENV,
  benchDatabaseUrl,
  benchRedisUrl,
  type BenchStoresKind,
} from './servers/stores-env.js';
import { benchBearerHeaders } from './auth-token.js';
import { tenantScopedWorkloads } from './servers/svc-fastify-tenancy-id.js';
import { API_KEY_ROUTE, benchApiKeyHeaders } from './apikeys.js';

export const STORES_LOGIN_ID = 'stores-login';

/** The session every stores-session request presents; both servers store it for the bench account at start. */
const SESSION_ID = new SessionIds({ secret: BENCH_AUTH_SECRET }).create(['pwd']);
const LABELS = { plain: 'memory stores', svc: 'PostgreSQL + Redis stores' };
const MEMORY_SERVER = 'bench/servers/svc-fastify-stores-memory.ts';
const SHARED_SERVER = 'bench/servers/svc-fastify-stores-shared.ts';

export const STORES_PAIRS: HttpPair[] = [
  {
    id: 'stores-jwt',
    title:
      'svc on Fastify, bearer JWT (`meta.auth: true`) + a global per-IP rate limit: PostgreSQL + Redis stores vs in-memory stores (target ≥ 80 %; the JWT needs no store, the rate limit spends hits leased from Redis)',
    plain: MEMORY_SERVER,
    svc: SHARED_SERVER,
    labels: LABELS,
    headers: await benchBearerHeaders(),
  },
  {
    id: 'stores-session',
    title:
      'svc on Fastify, session cookie (`meta.auth: true`) + a global per-IP rate limit: PostgreSQL + Redis stores vs in-memory stores (target ≥ 70 %; the session (Redis) and its user (PostgreSQL) come from the hot cache, the rate limit spends hits leased from Redis)',
    plain: MEMORY_SERVER,
    svc: SHARED_SERVER,
    labels: LABELS,
    headers: { cookie: `svc_session=${SESSION_ID}` },
  },
  {
    id: 'tenancy-postgres',
    title:
      'svc on Fastify, bearer JWT + x-tenant-id, membership checked on every request: memberships in PostgreSQL without Redis (hot cache kept by LISTEN/NOTIFY) vs in memory',
    plain: 'bench/servers/svc-fastify-tenancy.ts',
    svc: 'bench/servers/svc-fastify-tenancy-postgres.ts',
    labels: { plain: 'memory memberships', svc: 'PostgreSQL memberships' },
    headers: await benchBearerHeaders(),
    workloads: tenantScopedWorkloads(true),
  },
  {
    id: 'stores-apikey',
    title:
      "svc on Fastify, API key (`meta: { auth: true, scopes: ['notes:read'] }`) + a global per-IP rate limit: PostgreSQL + Redis stores vs in-memory stores (target ≥ 70 %)",
    plain: 'bench/servers/svc-fastify-apikey-memory-stores.ts',
    svc: 'bench/servers/svc-fastify-apikey-shared-stores.ts',
    labels: LABELS,
    workloads: [
      {
        name: API_KEY_ROUTE,
        method: 'GET',
        path: '/hello',
        prepare: benchApiKeyHeaders,
        svc: { method: 'GET', path: '/hello', prepare: benchApiKeyHeaders },
      },
    ],
  },
  {
    id: 'stores-tenant',
    title:
      'svc on Fastify, bearer JWT + x-tenant-id, membership checked on every request: PostgreSQL + Redis stores vs in-memory stores (target ≥ 70 %)',
    plain: 'bench/servers/svc-fastify-tenancy.ts',
    svc: 'bench/servers/svc-fastify-tenancy-shared.ts',
    labels: { plain: 'memory stores', svc: 'PostgreSQL + Redis stores' },
    headers: await benchBearerHeaders(),
    workloads: tenantScopedWorkloads(true),
  },
];

/** Appended to the shared-stores HTTP pairs' sections: where the stores' own work runs. */
const STORES_PAIR_NOTE = [
  'Both servers register the bench account at start and store the bench session for it; the shared-stores',
  'server keeps users, API keys and memberships in PostgreSQL (pool of 10) and sessions and rate-limit buckets in',
  'Redis (key prefix `svc-bench:`), on the same machine, through `openStores` as an application gets them: the',
  "sessions, users, keys and roles behind the hot cache (Redis pub/sub keeps every process's copy honest), the",
  'global bucket counted from leases of 1000 hits. PostgreSQL and Redis are not pinned and not under the CPU',
  "quota, so the server CPU column counts the svc process only: the stores' own CPU comes on top, on either core.",
].join('\n');

const TENANCY_POSTGRES_NOTE = [
  'Both servers make the bench user a member of a tenant of their own at start; users, sessions and rate limits',
  "stay in memory (the JWT needs no lookup). The PostgreSQL one reads the caller's role through `openStores`",
  'without Redis: from the hot cache, kept honest by PostgreSQL LISTEN/NOTIFY, after the first read. PostgreSQL',
  'is not pinned and not under the CPU quota, so the server CPU column counts the svc process only: the',
  "database's own CPU comes on top, on either core.",
].join('\n');

const STORES_TENANT_NOTE = [
  'Both servers make the bench user a member of a tenant of their own at start; the JWT needs no lookup. The',
  "shared-stores one keeps memberships in PostgreSQL and reads the caller's role through `openStores` with Redis:",
  'from the hot cache after the first read, kept honest by Redis pub/sub. PostgreSQL and Redis are not pinned and',
  'not under the CPU quota, so the server CPU column counts the svc process only.',
].join('\n');

/** What a stores pair's section says about where the stores' work runs. */
export function storesPairNote(id: string): string {
  if (id === 'tenancy-postgres') return TENANCY_POSTGRES_NOTE;
  return id === 'stores-tenant' ? STORES_TENANT_NOTE : STORES_PAIR_NOTE;
}

export const STORES_IDS = [...STORES_PAIRS.map((pair) => pair.id), STORES_LOGIN_ID];

/** Runs `sql` on the maintenance database (CREATE/DROP DATABASE cannot run in the database they name). */
async function admin(sql: string): Promise<pg.QueryResult> {
  const connection = new pg.Client({ connectionString: benchDatabaseUrl('postgres') });
  await connection.connect();
  try {
    return await connection.query(sql);
  } finally {
    await connection.end();
  }
}

/** Deletes every key under the benches' prefix. */
async function clearRedis(): Promise<number> {
  const client = await openRedis(benchRedisUrl());
  try {
    let cursor = '0';
    let deleted = 0;
    do {
      const [next, keys] = await client.scan(cursor, 'MATCH', `${BENCH_REDIS_PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await client.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    return deleted;
  } finally {
    await closeRedis(client);
  }
}

async function dropDatabase(): Promise<void> {
  await admin(`DROP DATABASE IF EXISTS ${BENCH_DATABASE_NAME} WITH (FORCE)`);
}

/**
 * A fresh bench database with svc's schema, no bench keys in Redis, and the bench session id in the
 * environment the servers inherit. Resolves to the cleanup, which removes both.
 */
export async function prepareBenchStores(): Promise<() => Promise<void>> {
  await dropDatabase(); // left over by an interrupted run
  await admin(`CREATE DATABASE ${BENCH_DATABASE_NAME}`);
  await clearRedis();
  const stores = await openStores(
    { database: benchDatabaseUrl(), redis: benchRedisUrl() },
    { migrate: true, sweepIntervalMs: 0, redisPrefix: BENCH_REDIS_PREFIX },
  );
  await stores.close();
  process.env[BENCH_SESSION_ENV] = SESSION_ID;
  return async () => {
    delete process.env[BENCH_SESSION_ENV];
    await dropDatabase();
    await clearRedis();
  };
}

export interface StoresLoginOptions {
  runs: number;
  durationSeconds: number;
}

const STORES_LABELS: Record<BenchStoresKind, string> = {
  memory: 'memory stores',
  shared: 'PostgreSQL + Redis stores',
};

function loginServer(kind: BenchStoresKind) {
  return {
    name: `svc-login ${kind}`,
    script: 'bench/servers/svc-login-stores.ts',
    env: { [BENCH_STORES_ENV]: kind },
  };
}

/** The login bench on both stores, one server at a time, alternating which goes first. */
export async function runStoresLoginBench(options: StoresLoginOptions): Promise<string> {
  const samples: Record<BenchStoresKind, LoginSample[]> = { memory: [], shared: [] };
  const ratios: number[] = [];
  for (let n = 0; n < options.runs; n++) {
    const order: BenchStoresKind[] = n % 2 === 0 ? ['memory', 'shared'] : ['shared', 'memory'];
    const round: Partial<Record<BenchStoresKind, LoginSample>> = {};
    for (const kind of order) {
      const sample = await loginRound(options.durationSeconds, loginServer(kind));
      round[kind] = sample;
      samples[kind].push(sample);
    }
    const memory = round.memory!;
    const shared = round.shared!;
    ratios.push(shared.loginsPerSecond / memory.loginsPerSecond);
    process.stdout.write(
      `  ${STORES_LOGIN_ID} round ${n + 1}: memory ${memory.loginsPerSecond.toFixed(1)} logins/s (loop p99 ${memory.delayP99.toFixed(1)} ms), ` +
        `shared ${shared.loginsPerSecond.toFixed(1)} logins/s (loop p99 ${shared.delayP99.toFixed(1)} ms)\n`,
    );
  }
  const pick = (kind: BenchStoresKind, key: keyof LoginSample, digits: number) =>
    median(samples[kind].map((sample) => sample[key])).toFixed(digits);
  const row = (kind: BenchStoresKind, ratio: string) =>
    `| ${STORES_LABELS[kind]} | ${pick(kind, 'loginsPerSecond', 1)} | ${pick(kind, 'latencyP99', 0)} | ${pick(kind, 'delayP50', 1)} | **${pick(kind, 'delayP99', 1)}** | ${pick(kind, 'delayMax', 1)} | ${ratio} |`;
  const spread = `${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)} %`;
  return [
    '## Login under 50 concurrent clients: PostgreSQL + Redis stores vs in-memory stores',
    '',
    `${options.runs} rounds; each starts the in-memory server, then the shared-stores one (the other way round every`,
    `second round), each afresh (one user, scrypt N=2^15, r=8, p=1), and has ${LOGIN_CONNECTIONS} connections POST /auth/login`,
    `with the right password for ${options.durationSeconds} s. Both count sign-ins in a login throttle (limits raised so the`,
    'account never locks). A login on the shared stores reads the user from PostgreSQL; the throttle checks, the',
    'new refresh token and the new session go to Redis. Server on core 0, autocannon on core 1; PostgreSQL and',
    'Redis are not pinned. Event-loop delay as in the login bench. shared / memory is the median of the',
    'per-round logins/s ratios (range in brackets); other columns are medians.',
    '',
    '| stores | logins/s | login p99 ms | event loop p50 ms | event loop p99 ms | event loop max ms | shared / memory logins/s |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    row('memory', ''),
    row('shared', `**${(median(ratios) * 100).toFixed(1)} %** (${spread})`),
  ].join('\n');
}
