// `npm run bench [-- <bench>...]`: runs the named benches (fastify, express, hono, serialize, serializers, edge,
// edge-memory, edge-security, edge-metrics, edge-tracing, auth, apikeys, tenancy, mcp, login, mfa-login, upload, files,
// stores-jwt, stores-session, tenancy-postgres, stores-login, startup, make; all by default)
// and writes their sections of bench/RESULTS.md.
// The stores-* and tenancy-postgres benches need PostgreSQL (DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test; they create and drop a database svc_bench on that server) and Redis
// (REDIS_URL, default redis://127.0.0.1:6379).
// BENCH_DURATION (seconds per HTTP measurement, default 4) and BENCH_RUNS (rounds, default 12 for the HTTP
// pairs, 3 for login, 4 for mfa-login, 6 for stores-login, 5 for the upload and make, 3 for files, 15 for startup) shorten or
// lengthen them; BENCH_ONLY_SERVER_BOUND=1 skips the unthrottled regime.
import { cpus, loadavg } from 'node:os';
import { prepareBenchSpec, runHttpPair, type HttpPair } from './http.js';
import { pinSelf } from './lib/processes.js';
import { writeSection } from './lib/results.js';
import { runUploadBench } from './upload.js';
import { FILES_ID, runFilesBench } from './files.js';
import { runSerializersBench, SERIALIZERS_ID } from './serializers.js';
import { NEW_PRODUCT } from './servers/shared.js';
import { runStartupBench, STARTUP_ID } from './startup.js';
import { MAKE_ID, runMakeBench } from './make.js';
import { benchBearerHeaders } from './auth-token.js';
import { APIKEYS_ID, APIKEYS_PAIR, apiKeysNote } from './apikeys.js';
import { tenantScopedWorkloads } from './servers/svc-fastify-tenancy-id.js';
import { runLoginBench } from './login.js';
import { MFA_LOGIN_ID, runMfaLoginBench } from './mfa-login.js';
import { MCP_ID, MCP_PAIR, mcpNote } from './mcp.js';
import { TWO_PROCESS_ID, runTwoProcessBench } from './two-process.js';
import {
  STORES_IDS,
  STORES_LOGIN_ID,
  STORES_PAIRS,
  prepareBenchStores,
  runStoresLoginBench,
  storesPairNote,
} from './stores.js';

const EDGE_PART_TITLES = {
  security: 'securityPlugin() (secure headers)',
  metrics: 'metricsPlugin()',
  tracing: 'tracingPlugin() (default exporter: spans dropped)',
} as const;

const HTTP_PAIRS: HttpPair[] = [
  {
    id: 'fastify',
    title: 'svc on Fastify vs plain Fastify (target ≥ 95 %)',
    plain: 'bench/servers/plain-fastify.ts',
    svc: 'bench/servers/svc-fastify.ts',
  },
  {
    id: 'express',
    title: 'svc on Express vs plain Express 5 (target ≥ 90 %)',
    plain: 'bench/servers/plain-express.ts',
    svc: 'bench/servers/svc-express.ts',
  },
  {
    id: 'hono',
    title: 'svc on Hono vs plain Hono on @hono/node-server (target ≥ 90 %)',
    plain: 'bench/servers/plain-hono.ts',
    svc: 'bench/servers/svc-hono.ts',
  },
  {
    id: 'serialize',
    title:
      'svc on Fastify with compiled response serializers vs plain Fastify with response schemas (target ≥ 100 %)',
    plain: 'bench/servers/plain-fastify-serialize.ts',
    svc: 'bench/servers/svc-fastify-serialize.ts',
    workloads: [
      { name: 'GET /products (20 items)', method: 'GET', path: '/products' },
      {
        name: 'POST /products (validated body, created object)',
        method: 'POST',
        path: '/products',
        body: JSON.stringify(NEW_PRODUCT),
      },
    ],
  },
  {
    id: 'edge',
    title:
      'svc on Fastify with security headers + metrics + tracing (default exporter: spans dropped) vs svc alone (target ≥ 85 %, cost ≤ 15 %)',
    plain: 'bench/servers/svc-fastify.ts',
    svc: 'bench/servers/svc-fastify-edge.ts',
    labels: { plain: 'svc', svc: 'svc + edge' },
  },
  {
    id: 'edge-memory',
    title:
      'svc on Fastify with security headers + metrics + tracing into the in-memory exporter vs svc alone',
    plain: 'bench/servers/svc-fastify.ts',
    svc: 'bench/servers/svc-fastify-edge-memory.ts',
    labels: { plain: 'svc', svc: 'svc + edge, spans kept' },
  },
  // Each edge plugin alone against svc, on the GET route: where the cost of the `edge` bench goes.
  ...(['security', 'metrics', 'tracing'] as const).map((part): HttpPair => ({
    id: `edge-${part}`,
    title: `svc on Fastify with ${EDGE_PART_TITLES[part]} alone vs svc (one part of the \`edge\` bench)`,
    plain: 'bench/servers/svc-fastify.ts',
    svc: `bench/servers/svc-fastify-edge-${part}.ts`,
    labels: { plain: 'svc', svc: `svc + ${part}` },
    workloads: [{ name: 'GET /hello (JSON)', method: 'GET', path: '/hello' }],
  })),
  {
    id: 'auth',
    title:
      'svc on Fastify: a JWT-authenticated request (`meta.auth: true`, bearer) vs the same route anonymous (target ≥ 85 %)',
    plain: 'bench/servers/svc-fastify.ts',
    svc: 'bench/servers/svc-fastify-auth.ts',
    labels: { plain: 'svc, anonymous', svc: 'svc + auth, bearer JWT' },
    headers: await benchBearerHeaders(),
  },
  {
    id: 'tenancy',
    title:
      'svc on Fastify: a tenant-scoped request (bearer JWT + x-tenant-id, membership read from the in-memory store and checked on every request) vs the same route with auth only (target ≥ 90 %)',
    plain: 'bench/servers/svc-fastify-auth.ts',
    svc: 'bench/servers/svc-fastify-tenancy.ts',
    labels: { plain: 'svc + auth', svc: 'svc + auth + tenancy, memory' },
    headers: await benchBearerHeaders(),
    workloads: tenantScopedWorkloads(false),
  },
];
const UPLOAD_ID = 'upload';
const LOGIN_ID = 'login';
const KNOWN = [
  ...HTTP_PAIRS.map((pair) => pair.id),
  SERIALIZERS_ID,
  APIKEYS_ID,
  MCP_ID,
  LOGIN_ID,
  MFA_LOGIN_ID,
  UPLOAD_ID,
  FILES_ID,
  ...STORES_IDS,
  TWO_PROCESS_ID,
  STARTUP_ID,
  MAKE_ID,
];

const runsOverride = process.env.BENCH_RUNS === undefined ? undefined : Number(process.env.BENCH_RUNS);
const httpOptions = {
  durationSeconds: Number(process.env.BENCH_DURATION ?? 4),
  runs: runsOverride ?? 12,
  connections: 50,
};

const requested = process.argv.slice(2);
const unknown = requested.filter((id) => !KNOWN.includes(id));
if (unknown.length > 0) {
  process.stderr.write(`unknown bench ${unknown.join(', ')}; choose from ${KNOWN.join(', ')}\n`);
  process.exit(1);
}
const selected = requested.length > 0 ? requested : KNOWN;
const pinned = pinSelf();
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}${pinned ? '' : ' (taskset unavailable: not pinned)'}`;

// Other work on the machine skews every figure; the load before the run shows whether the bench had it to itself.
const loadBefore = loadavg()[0]!.toFixed(2);

async function report(id: string, section: string): Promise<void> {
  const date = new Date().toISOString().slice(0, 10);
  const stamp = `Measured ${date} on ${machine} with \`npm run bench -- ${id}\` (1-minute load average before the run: ${loadBefore}).`;
  const file = await writeSection(id, `${section}\n\n${stamp}`);
  process.stdout.write(`${section}\n\nwritten to ${file}\n`);
}

// Every bench but startup and make serves bench/spec's routes; those two make apps of their own.
if (selected.some((id) => id !== STARTUP_ID && id !== MAKE_ID)) await prepareBenchSpec();
for (const pair of HTTP_PAIRS) {
  if (!selected.includes(pair.id)) continue;
  process.stdout.write(`bench ${pair.id}\n`);
  await report(pair.id, await runHttpPair(pair, httpOptions));
}
if (selected.includes(SERIALIZERS_ID)) {
  process.stdout.write(`bench ${SERIALIZERS_ID}\n`);
  await report(SERIALIZERS_ID, runSerializersBench({ runs: runsOverride ?? 40 }));
}
if (selected.includes(APIKEYS_ID)) {
  process.stdout.write(`bench ${APIKEYS_ID}\n`);
  const section = await runHttpPair(APIKEYS_PAIR, httpOptions);
  await report(APIKEYS_ID, `${section}\n\n${apiKeysNote()}`);
}
if (selected.includes(MCP_ID)) {
  process.stdout.write(`bench ${MCP_ID}\n`);
  const section = await runHttpPair(MCP_PAIR, httpOptions);
  await report(MCP_ID, `${section}\n\n${mcpNote()}`);
}
if (selected.includes(LOGIN_ID)) {
  process.stdout.write(`bench ${LOGIN_ID}\n`);
  await report(LOGIN_ID, await runLoginBench({ runs: runsOverride ?? 3, durationSeconds: 10 }));
}
if (selected.includes(MFA_LOGIN_ID)) {
  process.stdout.write(`bench ${MFA_LOGIN_ID}\n`);
  await report(MFA_LOGIN_ID, await runMfaLoginBench({ runs: runsOverride ?? 4, durationSeconds: 10 }));
}
if (selected.includes(UPLOAD_ID)) {
  process.stdout.write(`bench ${UPLOAD_ID}\n`);
  await report(UPLOAD_ID, await runUploadBench({ runs: runsOverride ?? 5 }));
}
if (selected.includes(FILES_ID)) {
  process.stdout.write(`bench ${FILES_ID}\n`);
  await report(FILES_ID, await runFilesBench({ runs: runsOverride ?? 3 }));
}
if (selected.some((id) => STORES_IDS.includes(id) || id === TWO_PROCESS_ID)) {
  const cleanup = await prepareBenchStores();
  try {
    for (const pair of STORES_PAIRS) {
      if (!selected.includes(pair.id)) continue;
      process.stdout.write(`bench ${pair.id}\n`);
      await report(pair.id, `${await runHttpPair(pair, httpOptions)}\n\n${storesPairNote(pair.id)}`);
    }
    if (selected.includes(TWO_PROCESS_ID)) {
      process.stdout.write(`bench ${TWO_PROCESS_ID}\n`);
      await report(
        TWO_PROCESS_ID,
        await runTwoProcessBench({ runs: runsOverride ?? 3, limit: 1000, requests: 5000, revocations: 50 }),
      );
    }
    if (selected.includes(STORES_LOGIN_ID)) {
      process.stdout.write(`bench ${STORES_LOGIN_ID}\n`);
      await report(
        STORES_LOGIN_ID,
        await runStoresLoginBench({ runs: runsOverride ?? 6, durationSeconds: 10 }),
      );
    }
  } finally {
    await cleanup();
  }
}
if (selected.includes(STARTUP_ID)) {
  process.stdout.write(`bench ${STARTUP_ID}\n`);
  await report(STARTUP_ID, await runStartupBench({ runs: runsOverride ?? 15 }));
}
if (selected.includes(MAKE_ID)) {
  process.stdout.write(`bench ${MAKE_ID}\n`);
  await report(MAKE_ID, await runMakeBench({ runs: runsOverride ?? 5 }));
}
