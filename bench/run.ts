// `npm run bench [-- <bench>...]`: runs the benches (all by default) and writes bench/RESULTS.md.
// BENCH_DURATION (seconds per measurement, default 4) and BENCH_RUNS (rounds, default 12) shorten or lengthen them;
// BENCH_ONLY_SERVER_BOUND=1 skips the unthrottled regime.
import { cpus } from 'node:os';
import { prepareBenchSpec, runHttpPair, type HttpPair } from './http.js';
import { pinSelf } from './lib/processes.js';
import { writeSection } from './lib/results.js';

const HTTP_PAIRS: HttpPair[] = [
  {
    id: 'fastify',
    title: 'svc on Fastify vs plain Fastify (target ≥ 95 %)',
    plain: 'bench/servers/plain-fastify.ts',
    svc: 'bench/servers/svc-fastify.ts',
  },
];

const options = {
  durationSeconds: Number(process.env.BENCH_DURATION ?? 4),
  runs: Number(process.env.BENCH_RUNS ?? 12),
  connections: 50,
};

const selected = process.argv.slice(2);
const pinned = pinSelf();
const machine = `${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, Node ${process.version}${pinned ? '' : ' (taskset unavailable: not pinned)'}`;

await prepareBenchSpec();
for (const pair of HTTP_PAIRS) {
  if (selected.length > 0 && !selected.includes(pair.id)) continue;
  process.stdout.write(`bench ${pair.id}\n`);
  const section = await runHttpPair(pair, options);
  const stamp = `Measured ${new Date().toISOString().slice(0, 10)} on ${machine} with \`npm run bench -- ${pair.id}\`.`;
  const file = await writeSection(pair.id, `${section}\n\n${stamp}`);
  process.stdout.write(`${section}\n\nwritten to ${file}\n`);
}
