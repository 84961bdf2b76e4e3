// The upload bench: a 1 GiB multipart/form-data body with one file part, made on the fly by the client
// (lib/multipart-source.ts), sent over loopback to plain busboy-to-disk and to svc's upload() on Fastify.
// Per round each server starts afresh, takes a 64 MiB warm-up upload, then the measured 1 GiB one.
// Throughput: file MiB over the wall time from the first byte sent to the whole answer received.
// Memory: the server's RSS after the warm-up, and its peak during the measured upload (lib/memory.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { trackPeak, residentBytes } from './lib/memory.js';
import { postUpload } from './lib/http-transfer.js';
import { startServer, type BenchServer } from './lib/processes.js';
import { median } from './lib/results.js';

const MIB = 1024 ** 2;
const UPLOAD_BYTES = 1024 * MIB;
const WARM_UP_BYTES = 64 * MIB;
/** Lets the server's heap settle after the warm-up before the baseline is read. */
const SETTLE_MS = 500;
const SERVERS = {
  plain: 'bench/servers/plain-busboy.ts',
  svc: 'bench/servers/svc-upload.ts',
} as const;
type Side = keyof typeof SERVERS;

export interface UploadBenchOptions {
  runs: number;
}

interface Sample {
  mibPerSecond: number;
  seconds: number;
  cpuSeconds: number;
  /** CPU the client (this process) used: shows whether the client limited the upload. */
  clientCpuSeconds: number;
  rssBefore: number;
  rssPeak: number;
}

function cpuSecondsSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1e6;
}

/** POSTs a generated upload of `fileBytes`; resolves with the wall seconds once the answer arrived whole. */
async function sendUpload(url: string, fileBytes: number, seed: number): Promise<number> {
  const answer = await postUpload(`${url}/upload`, fileBytes, seed);
  let bytes: unknown;
  try {
    bytes = (JSON.parse(answer.text) as { bytes?: unknown }).bytes;
  } catch {
    bytes = undefined;
  }
  if (answer.status !== 201 || bytes !== fileBytes) {
    throw new Error(
      `${url}: expected 201 with { bytes: ${fileBytes} }, got ${answer.status} ${answer.text.slice(0, 300)}`,
    );
  }
  return answer.seconds;
}

async function measureOnce(side: Side, round: number): Promise<Sample> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-bench-upload-'));
  let server: BenchServer | undefined;
  try {
    server = await startServer(`${side} upload`, SERVERS[side], undefined, { BENCH_UPLOAD_DIR: directory });
    const pid = server.child.pid!;
    await sendUpload(server.url, WARM_UP_BYTES, round + 1);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rssBefore = residentBytes(pid);
    const cpuBefore = server.cpuSeconds();
    const clientCpuBefore = process.cpuUsage();
    const peak = trackPeak(pid);
    let seconds: number;
    let rssPeak: number;
    try {
      seconds = await sendUpload(server.url, UPLOAD_BYTES, round + 1);
    } finally {
      rssPeak = peak.stop();
    }
    return {
      mibPerSecond: UPLOAD_BYTES / MIB / seconds,
      seconds,
      cpuSeconds: server.cpuSeconds() - cpuBefore,
      clientCpuSeconds: cpuSecondsSince(clientCpuBefore),
      rssBefore,
      rssPeak,
    };
  } finally {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

function row(side: Side, samples: Sample[], ratio: string): string {
  const mib = (bytes: number) => (bytes / MIB).toFixed(1);
  const cells = [
    side,
    median(samples.map((s) => s.mibPerSecond)).toFixed(0),
    median(samples.map((s) => s.seconds)).toFixed(2),
    median(samples.map((s) => s.cpuSeconds)).toFixed(2),
    median(samples.map((s) => s.clientCpuSeconds)).toFixed(2),
    mib(median(samples.map((s) => s.rssBefore))),
    mib(median(samples.map((s) => s.rssPeak))),
    `**${mib(median(samples.map((s) => s.rssPeak - s.rssBefore)))}**`,
    ratio,
  ];
  return `| ${cells.join(' | ')} |`;
}

export async function runUploadBench(options: UploadBenchOptions): Promise<string> {
  const samples: Record<Side, Sample[]> = { plain: [], svc: [] };
  const ratios: number[] = [];
  for (let round = 0; round < options.runs; round++) {
    // Alternate who goes first, so drift in the machine's speed (and the page cache's state) hits both alike.
    const order: Side[] = round % 2 === 0 ? ['plain', 'svc'] : ['svc', 'plain'];
    const result: Partial<Record<Side, Sample>> = {};
    for (const side of order) result[side] = await measureOnce(side, round);
    samples.plain.push(result.plain!);
    samples.svc.push(result.svc!);
    ratios.push(result.svc!.mibPerSecond / result.plain!.mibPerSecond);
    const growth = (s: Sample) => ((s.rssPeak - s.rssBefore) / MIB).toFixed(1);
    process.stdout.write(
      `  upload round ${round + 1}: plain ${result.plain!.mibPerSecond.toFixed(0)} MiB/s (+${growth(result.plain!)} MiB RSS), ` +
        `svc ${result.svc!.mibPerSecond.toFixed(0)} MiB/s (+${growth(result.svc!)} MiB RSS)\n`,
    );
  }
  const spread = `${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)} %`;
  return [
    '## 1 GiB streamed upload: svc upload() on Fastify vs plain busboy (targets ≥ 70 % throughput, RSS growth < 64 MiB)',
    '',
    `${options.runs} rounds; each round starts each server afresh (server on core 0, client on core 1, no CPU`,
    'quota), sends it a 64 MiB warm-up upload, then one multipart/form-data request with a single 1 GiB file part,',
    'generated by the client in 64 KiB chunks of pseudo-random bytes. Both servers stream the file to a new file',
    'in the OS temp directory (deleted after each round) and answer 201 `{ bytes }`.',
    '',
    '- **MiB/s**: 1024 MiB over the wall time from the first byte sent to the answer received.',
    '- **server CPU**, **client CPU**: user + system seconds each process used during the measured upload. A side',
    '  whose CPU is near the wall time limited the throughput; when neither is, other work on the machine did, and',
    '  server CPU is the figure that compares the servers.',
    '- **RSS growth**: peak resident memory during the upload (VmRSS sampled every 20 ms, and VmHWM reset at',
    '  the start) minus the resident memory after the warm-up.',
    '- svc / plain is the median of the per-round throughput ratios (range in brackets); other columns are medians.',
    '',
    '| server | MiB/s | wall s | server CPU s | client CPU s | RSS before MiB | RSS peak MiB | RSS growth MiB | svc / plain MiB/s |',
    '|---|---|---|---|---|---|---|---|---|',
    row('plain', samples.plain, ''),
    row('svc', samples.svc, `**${(median(ratios) * 100).toFixed(1)} %** (${spread})`),
  ].join('\n');
}
