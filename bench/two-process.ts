// The two-process bench: two svc processes on one PostgreSQL and one Redis act as one service. It shows, on
// real processes, what the shared-state work promises (docs/stores.md, "Hot cache"; docs/http.md, rate limits):
// - the global rate limit holds across processes although each counts from hits it leased: requests spread
//   over both, from one client address, are admitted at most `limit` times;
// - a revocation reaches the other process before its next request: a session both processes have cached is
//   logged out on A, and the very next request on B is refused.
// Each phase sends from its own loopback address, so it has a rate-limit bucket of its own.
import { request } from 'node:http';
import { Auth, leaseSize, openStores } from 'svckit';
import { median } from './lib/results.js';
import { startServer, type BenchServer } from './lib/processes.js';
import { BENCH_AUTH_SECRET, LOGIN_USER } from './servers/auth-secret.js';
import { BENCH_REDIS_PREFIX, benchDatabaseUrl, benchRedisUrl } from './servers/stores-env.js';
import { benchBearerHeaders } from './auth-token.js';

export const TWO_PROCESS_ID = 'two-process';

const SERVER = 'bench/servers/svc-fastify-two-process.ts';
/** Round n's rate-limit phase sends from 127.0.2.n: a bucket of its own, whatever the earlier rounds left. */
const limitAddress = (round: number) => `127.0.2.${round + 1}`;
const REVOKE_ADDRESS = '127.0.0.3';

export interface TwoProcessOptions {
  /** Rate-limit rounds, each with fresh servers and a fresh window. */
  runs: number;
  /** The global limit per minute, and how many requests each round sends. */
  limit: number;
  requests: number;
  /** Logouts per round. */
  revocations: number;
}

interface Answer {
  status: number;
}

function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string>,
  localAddress: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(`${url}${path}`, { method, headers, localAddress }, (response) => {
      response.resume();
      response.on('end', () => resolve({ status: response.statusCode ?? 0 }));
    });
    sent.on('error', reject);
    sent.end();
  });
}

/** Sends `total` requests, `concurrency` at a time, alternating between the servers; counts the statuses. */
async function spread(
  servers: BenchServer[],
  total: number,
  concurrency: number,
  headers: Record<string, string>,
  address: string,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const n = next++;
      const { status } = await send(servers[n % servers.length]!.url, 'GET', '/hello', headers, address);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return statuses;
}

interface RevocationRound {
  /** Logouts on A after which B's next request was already refused. */
  refusedAtOnce: number;
  /** For the others: how long B kept serving the ended session, in ms. */
  lateMs: number[];
}

/** `rounds` times: a session both processes serve from cache is logged out on A; is B's next request refused? */
async function revocations(a: BenchServer, b: BenchServer, auth: Auth, userId: string, rounds: number) {
  const result: RevocationRound = { refusedAtOnce: 0, lateMs: [] };
  for (let n = 0; n < rounds; n++) {
    const sessionId = await auth.createSession(userId);
    const headers = { 'x-session-id': sessionId };
    for (const server of [a, b, b]) {
      const warm = await send(server.url, 'GET', '/hello', headers, REVOKE_ADDRESS);
      if (warm.status !== 200) throw new Error(`two-process: a live session answered ${warm.status}`);
    }
    const loggedOut = await send(a.url, 'POST', '/auth/logout', headers, REVOKE_ADDRESS);
    if (loggedOut.status !== 204) throw new Error(`two-process: logout answered ${loggedOut.status}`);
    const endedAt = performance.now();
    let after = await send(b.url, 'GET', '/hello', headers, REVOKE_ADDRESS);
    if (after.status === 401) {
      result.refusedAtOnce++;
      continue;
    }
    while (after.status === 200 && performance.now() - endedAt < 5_000) {
      after = await send(b.url, 'GET', '/hello', headers, REVOKE_ADDRESS);
    }
    result.lateMs.push(performance.now() - endedAt);
  }
  return result;
}

export async function runTwoProcessBench(options: TwoProcessOptions): Promise<string> {
  const lease = leaseSize(options.limit);
  const floor = options.limit - 2 * (lease - 1);
  const bearer = await benchBearerHeaders();
  const stores = await openStores(
    { database: benchDatabaseUrl(), redis: benchRedisUrl() },
    { redisPrefix: BENCH_REDIS_PREFIX, sweepIntervalMs: 0, cache: false },
  );
  const auth = new Auth({ secret: BENCH_AUTH_SECRET, users: stores.users, sessions: stores.sessions });
  const rows: string[] = [];
  const admitted: number[] = [];
  let revoked = 0;
  let revokedAtOnce = 0;
  const late: number[] = [];
  try {
    const user =
      (await auth.users.findByEmail(LOGIN_USER.email)) ??
      (await auth.register(LOGIN_USER.email, LOGIN_USER.password)).user;
    for (let n = 0; n < options.runs; n++) {
      await stores.sql!.query('SELECT 1'); // the database is there before the servers start
      const env = { BENCH_RATE_LIMIT: String(options.limit) };
      const [a, b] = await Promise.all([
        startServer('svc A', SERVER, undefined, env),
        startServer('svc B', SERVER, undefined, env),
      ]);
      try {
        const statuses = await spread([a, b], options.requests, 20, bearer, limitAddress(n));
        const ok = statuses.get(200) ?? 0;
        const limited = statuses.get(429) ?? 0;
        const other = options.requests - ok - limited;
        admitted.push(ok);
        const round = await revocations(a, b, auth, user.id, options.revocations);
        revoked += options.revocations;
        revokedAtOnce += round.refusedAtOnce;
        late.push(...round.lateMs);
        rows.push(
          `| ${n + 1} | ${options.requests} | ${ok} | ${limited} | ${other} | ${round.refusedAtOnce} / ${options.revocations} | ${round.lateMs.length === 0 ? '–' : Math.max(...round.lateMs).toFixed(1)} |`,
        );
        process.stdout.write(
          `  ${TWO_PROCESS_ID} round ${n + 1}: ${ok} admitted of ${options.requests} (limit ${options.limit}), ` +
            `${round.refusedAtOnce}/${options.revocations} logouts refused on B at once\n`,
        );
      } finally {
        await Promise.all([a.stop(), b.stop()]);
      }
    }
  } finally {
    await stores.close();
  }
  return [
    '## Two svc processes on one PostgreSQL and one Redis: the global rate limit and revocations across processes',
    '',
    `${options.runs} rounds; each starts two processes of \`${SERVER}\` afresh (PostgreSQL + Redis, the hot cache`,
    `on, a global per-IP limit of ${options.limit} a minute counted from leases of ${lease} hits). **Limit**: ${options.requests}`,
    'requests with a bearer JWT, 20 at a time, alternating between the processes, from one client address',
    `(127.0.2.<round>, a fresh bucket): at most ${options.limit} may pass, and leasing may refuse at most 2 × (${lease} − 1) that an exact`,
    `count would admit, so at least ${floor}. **Revocation**: right after, ${options.revocations} times, from another address, a`,
    'session is made, served by A once and by B twice (B now answers it from its cache), logged out on A, and the',
    'very next request is sent to B; it must be 401. Where it was not, the last column says how long B',
    'kept serving it.',
    '',
    '| round | requests | admitted (200) | refused (429) | other | logouts refused on B at once | latest refusal ms |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
    '',
    `Admitted per round: median ${median(admitted)}, at most ${Math.max(...admitted)} (limit ${options.limit}, floor ${floor}).`,
    `Logouts refused on the other process at once: ${revokedAtOnce} of ${revoked}${late.length === 0 ? '' : `; the others within ${Math.max(...late).toFixed(1)} ms`}.`,
  ].join('\n');
}
