// The HTTP bench: svc on a framework against the same framework used plainly, same two routes, separate
// processes, interleaved runs, 50 connections. Reports req/s, latency and server CPU per request.
import autocannon from 'autocannon';
import { build } from '../generator/index.js';
import { startServer, type BenchServer } from './lib/processes.js';
import { median } from './lib/results.js';

export interface HttpPair {
  id: string;
  title: string;
  plain: string;
  svc: string;
}

interface Workload {
  name: string;
  method: 'GET' | 'POST';
  path: string;
  body?: string;
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
}

async function measure(
  server: BenchServer,
  workload: Workload,
  options: HttpBenchOptions,
  duration: number,
): Promise<Sample> {
  const cpuBefore = server.cpuSeconds();
  const result = await autocannon({
    url: server.url + workload.path,
    method: workload.method,
    connections: options.connections,
    duration,
    headers: workload.body ? { 'content-type': 'application/json' } : {},
    body: workload.body,
  });
  const cpu = server.cpuSeconds() - cpuBefore;
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(
      `${server.name} ${workload.name}: ${result.non2xx} non-2xx answers, ${result.errors} errors`,
    );
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

export async function runHttpPair(pair: HttpPair, options: HttpBenchOptions): Promise<string> {
  const servers = [
    await startServer(`plain ${pair.id}`, pair.plain),
    await startServer(`svc ${pair.id}`, pair.svc),
  ];
  const rows: string[] = [];
  try {
    for (const workload of WORKLOADS) {
      for (const server of servers) await measure(server, workload, options, 3); // warm-up, discarded
      const samples: Sample[][] = [[], []];
      for (let run = 0; run < options.runs; run++) {
        for (const [index, server] of servers.entries()) {
          const sample = await measure(server, workload, options, options.durationSeconds);
          samples[index]!.push(sample);
          process.stdout.write(
            `  ${pair.id} ${workload.name} run ${run + 1} ${server.name}: ${Math.round(sample.requestsPerSecond)} req/s\n`,
          );
        }
      }
      const [plain, svc] = samples.map((list) => ({
        rps: median(list.map((s) => s.requestsPerSecond)),
        p50: median(list.map((s) => s.p50)),
        p99: median(list.map((s) => s.p99)),
        cpu: median(list.map((s) => s.cpuMicrosPerRequest)),
        runs: list.map((s) => Math.round(s.requestsPerSecond)).join(' / '),
      }));
      const ratio = (svc!.rps / plain!.rps) * 100;
      rows.push(
        `| ${workload.name} | plain | ${Math.round(plain!.rps)} | ${plain!.runs} | ${plain!.p50} | ${plain!.p99} | ${plain!.cpu.toFixed(1)} | |`,
        `| ${workload.name} | svc | ${Math.round(svc!.rps)} | ${svc!.runs} | ${svc!.p50} | ${svc!.p99} | ${svc!.cpu.toFixed(1)} | **${ratio.toFixed(1)} %** |`,
      );
    }
  } finally {
    for (const server of servers) await server.stop();
  }
  return [
    `## ${pair.title}`,
    '',
    `${options.runs} interleaved runs of ${options.durationSeconds} s per server and route, ${options.connections} connections,`,
    'after a 3 s warm-up; medians. Servers pinned to core 0, autocannon to core 1.',
    '',
    '| route | server | req/s (median) | req/s per run | p50 ms | p99 ms | server CPU µs/req | svc / plain |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
}
