// The HTTP bench: svc on a framework against the same framework used plainly, same two routes, separate
// processes, interleaved rounds, 50 connections. Two regimes:
// - server-bound: each server capped at 40 % of a core (cgroup CPU quota), both loaded at once, so the server
//   limits throughput and req/s compares the servers' efficiency. The targets are judged here.
// - unthrottled: one server at a time on a full core; against a server as fast as Fastify autocannon, on the other
//   core, saturates first, so req/s partly measures the load generator; server CPU per request is the
//   figure to read there.
import autocannon from 'autocannon';
import { build } from '../generator/index.js';
import { cpuQuotasAvailable } from './lib/cpu-quota.js';
import { startServer, type BenchServer } from './lib/processes.js';
import { median } from './lib/results.js';

export interface HttpPair {
  id: string;
  title: string;
  /** The baseline server script. */
  plain: string;
  /** The server script measured against it. */
  svc: string;
  /** Names of the two servers in the table (default 'plain' and 'svc'). */
  labels?: { plain: string; svc: string };
  /** Request headers sent to both servers (the auth bench's bearer token). */
  headers?: Record<string, string>;
  /** The routes loaded, one table row pair each (default GET /hello and POST /items). */
  workloads?: Workload[];
}

/** One request autocannon repeats. */
export interface BenchRequest {
  method: 'GET' | 'POST';
  path: string;
  /** Sent as JSON (`content-type: application/json`). */
  body?: string;
  /** Added to the pair's headers. */
  headers?: Record<string, string>;
  /** Run against each server once it started, before the request is loaded; returns more headers for it. */
  prepare?: (serverUrl: string) => Promise<Record<string, string>>;
}

export interface Workload extends BenchRequest {
  name: string;
  /** What the svc side is sent instead, where the two reach the same route differently (the mcp bench). */
  svc?: BenchRequest;
}

const WORKLOADS: Workload[] = [
  { name: 'GET /hello (JSON)', method: 'GET', path: '/hello' },
  {
    name: 'POST /items (validated JSON body)',
    method: 'POST',
    path: '/items',
    body: JSON.stringify({ name: 'widget', quantity: 3, tags: ['a', 'b'] }),
  },
];

interface Regime {
  name: string;
  /** Share of one core each server may use; undefined for no limit. */
  cpuShare: number | undefined;
  /** Load both servers at the same time, so the machine's drift hits both alike within each sample. */
  concurrent: boolean;
}

const REGIMES: Regime[] = [
  { name: 'server-bound', cpuShare: 0.4, concurrent: true },
  ...(process.env.BENCH_ONLY_SERVER_BOUND
    ? []
    : [{ name: 'unthrottled', cpuShare: undefined, concurrent: false }]),
];

interface Sample {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  cpuMicrosPerRequest: number;
}

export interface HttpBenchOptions {
  durationSeconds: number;
  runs: number;
  connections: number;
  /** Sent with every request, beside the body's content type. */
  headers?: Record<string, string>;
}

/** A workload as one server is sent it: its side's request, with the headers its `prepare` returned. */
interface Load {
  name: string;
  request: BenchRequest;
}

async function loadFor(workload: Workload, side: 'plain' | 'svc', server: BenchServer): Promise<Load> {
  const chosen = side === 'svc' && workload.svc ? workload.svc : workload;
  const request: BenchRequest = {
    method: chosen.method,
    path: chosen.path,
    body: chosen.body,
    headers: { ...chosen.headers, ...(await chosen.prepare?.(server.url)) },
  };
  return { name: workload.name, request };
}

async function measure(
  server: BenchServer,
  { name, request }: Load,
  options: HttpBenchOptions,
  duration: number,
): Promise<Sample> {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: server.url + request.path,
    method: request.method,
    connections: options.connections,
    duration,
    headers: {
      ...options.headers,
      ...(request.body ? { 'content-type': 'application/json' } : {}),
      ...request.headers,
    },
    body: request.body,
  });
  const cpu = server.cpuSeconds() - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${server.name} ${name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
  }
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMicrosPerRequest: (cpu / result.requests.total) * 1e6,
  };
}

export async function prepareBenchSpec(): Promise<void> {
  await build({ specFile: new URL('./spec/svc.config.yaml', import.meta.url).pathname });
}

/** One workload on both servers: at the same time (concurrent regimes), or one after the other. */
async function measurePair(
  plainServer: BenchServer,
  svcServer: BenchServer,
  plainLoad: Load,
  svcLoad: Load,
  options: HttpBenchOptions,
  concurrent: boolean,
  round: number,
): Promise<[Sample, Sample]> {
  const duration = options.durationSeconds;
  if (concurrent) {
    const [p, s] = await Promise.all([
      measure(plainServer, plainLoad, options, duration),
      measure(svcServer, svcLoad, options, duration),
    ]);
    return [p, s];
  }
  // Alternate who goes first so drift in the machine's speed hits both sides alike.
  if (round % 2 === 0) {
    const p = await measure(plainServer, plainLoad, options, duration);
    return [p, await measure(svcServer, svcLoad, options, duration)];
  }
  const s = await measure(svcServer, svcLoad, options, duration);
  return [await measure(plainServer, plainLoad, options, duration), s];
}

function summaryRow(regime: string, route: string, server: string, samples: Sample[], ratio: string): string {
  const rps = Math.round(median(samples.map((s) => s.requestsPerSecond)));
  const p50 = median(samples.map((s) => s.p50));
  const p99 = median(samples.map((s) => s.p99));
  const cpu = median(samples.map((s) => s.cpuMicrosPerRequest)).toFixed(1);
  return `| ${regime} | ${route} | ${server} | ${rps} | ${p50} | ${p99} | ${cpu} | ${ratio} |`;
}

/** Starts both servers of a pair, one after the other; the first is stopped again if the second fails. */
async function startPair(
  pair: HttpPair,
  cpuShare: number | undefined,
  svcFirst: boolean,
): Promise<{ plain: BenchServer; svc: BenchServer }> {
  const start = (side: 'plain' | 'svc') => startServer(`${side} ${pair.id}`, pair[side], cpuShare);
  const first = await start(svcFirst ? 'svc' : 'plain');
  try {
    const second = await start(svcFirst ? 'plain' : 'svc');
    return svcFirst ? { svc: first, plain: second } : { plain: first, svc: second };
  } catch (error) {
    await first.stop();
    throw error;
  }
}

/**
 * Every round starts both servers afresh: one process start can run a few percent faster or slower than the
 * next for the whole of its life (JIT and memory placement), so only many starts average that out.
 */
export async function runHttpPair(pair: HttpPair, pairOptions: HttpBenchOptions): Promise<string> {
  const options = pair.headers ? { ...pairOptions, headers: pair.headers } : pairOptions;
  const samples = new Map<string, { plain: Sample[]; svc: Sample[]; ratios: number[] }>();
  const quotas = cpuQuotasAvailable();
  const regimes = REGIMES.filter((regime) => quotas || regime.cpuShare === undefined);
  const skipped = REGIMES.filter((regime) => !regimes.includes(regime)).map((regime) => regime.name);
  const notes = skipped.map(
    (name) => `The ${name} regime was skipped: cgroup CPU quotas cannot be set here.`,
  );
  for (let round = 0; round < options.runs; round++) {
    for (const regime of regimes) {
      // Alternate which server starts first, in case being first (or second) on the core matters.
      const { plain: plainServer, svc: svcServer } = await startPair(pair, regime.cpuShare, round % 2 === 1);
      try {
        for (const workload of pair.workloads ?? WORKLOADS) {
          const plainLoad = await loadFor(workload, 'plain', plainServer);
          const svcLoad = await loadFor(workload, 'svc', svcServer);
          // Warm-up.
          await Promise.all([
            measure(plainServer, plainLoad, options, 2),
            measure(svcServer, svcLoad, options, 2),
          ]);
          const [p, s] = await measurePair(
            plainServer,
            svcServer,
            plainLoad,
            svcLoad,
            options,
            regime.concurrent,
            round,
          );
          const key = `${regime.name}\u0000${workload.name}`;
          const entry = samples.get(key) ?? { plain: [], svc: [], ratios: [] };
          entry.plain.push(p);
          entry.svc.push(s);
          entry.ratios.push(s.requestsPerSecond / p.requestsPerSecond);
          samples.set(key, entry);
          process.stdout.write(
            `  ${pair.id} round ${round + 1} ${regime.name} ${workload.name}: plain ${Math.round(p.requestsPerSecond)}, svc ${Math.round(s.requestsPerSecond)} req/s\n`,
          );
        }
      } finally {
        await plainServer.stop();
        await svcServer.stop();
      }
    }
  }
  const rows: string[] = [];
  for (const [key, { plain, svc, ratios }] of samples) {
    const [regime, route] = key.split('\u0000') as [string, string];
    const spread = `${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)} %`;
    rows.push(
      summaryRow(regime, route, pair.labels?.plain ?? 'plain', plain, ''),
      summaryRow(
        regime,
        route,
        pair.labels?.svc ?? 'svc',
        svc,
        `**${(median(ratios) * 100).toFixed(1)} %** (${spread})`,
      ),
    );
  }
  return [
    `## ${pair.title}`,
    '',
    `${options.runs} rounds; each round starts both servers afresh, warms each route up for 2 s, then loads it`,
    `${options.durationSeconds} s with ${options.connections} connections. Servers on core 0, autocannon on core 1.`,
    'svc / plain is the median of the per-round req/s ratios (range in brackets); other columns are medians.',
    '',
    '- **server-bound**: each server is capped at 40 % of core 0 by a cgroup CPU quota and both are loaded at the',
    "  same time, so the server, not the load generator, limits throughput and the machine's drift hits both",
    '  alike: req/s compares the servers. The targets are judged in this regime.',
    '- **unthrottled**: one server at a time on a full core. autocannon saturates its core before a server as',
    "  fast as Fastify does, so req/s there can also measure autocannon's cost per response, and svc's",
    '  responses carry the `x-request-id` header every svc response must echo (+52 bytes). Read the server CPU',
    '  column there.',
    ...notes.map((note) => `- ${note}`),
    '',
    '| regime | route | server | req/s | p50 ms | p99 ms | server CPU µs/req | svc / plain req/s |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
