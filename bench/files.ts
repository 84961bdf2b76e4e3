// The file-service bench: 1 GiB through svc's file service next to plain node baselines, in one run.
// - upload: POST /files (file routes: bearer auth, policy, validation with sniffing, SHA-256 checksum,
//   localDisk with fdatasync) and the service alone (`files.upload()` from a route of the app's own) vs plain
//   busboy streaming to a file, each on a fresh server per round after a 64 MiB warm-up upload;
// - download: GET /files/:id/content of the 1 GiB file the routes server just stored, in that same process
//   after a 64 MiB warm-up download, vs plain node:http piping fs.createReadStream of the same file.
// Throughput is file MiB over the wall time from the first byte sent to the last byte received; memory is
// the server's RSS after the warm-up and its peak during the measured transfer (lib/memory.ts).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { benchBearerHeaders } from './auth-token.js';
import { filesProfileNote, filesTable, type FilesSamples, type Transfer } from './lib/files-report.js';
import { getDiscarding, postUpload, type Answer } from './lib/http-transfer.js';
import { residentBytes, trackPeak } from './lib/memory.js';
import { startServer, type BenchServer } from './lib/processes.js';

export const FILES_ID = 'files';

const MIB = 1024 ** 2;
const FILE_BYTES = 1024 * MIB;
const WARM_UP_BYTES = 64 * MIB;
/** Lets the server's heap settle after the warm-up before the baseline is read. */
const SETTLE_MS = 500;

const UPLOAD_SERVERS = {
  plain: { script: 'bench/servers/plain-busboy.ts', path: '/upload' },
  durable: { script: 'bench/servers/plain-busboy-durable.ts', path: '/upload' },
  routes: { script: 'bench/servers/svc-files.ts', path: '/files' },
  service: { script: 'bench/servers/svc-files-raw.ts', path: '/upload' },
} as const;
type UploadSide = keyof typeof UPLOAD_SERVERS;

export interface FilesBenchOptions {
  runs: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `transfer` against `server` once, with its CPU, the client's CPU and the server's RSS around it. */
async function measured(server: BenchServer, transfer: () => Promise<number>): Promise<Transfer> {
  const pid = server.child.pid!;
  await pause(SETTLE_MS);
  const rssBefore = residentBytes(pid);
  const cpuBefore = server.cpuSeconds();
  const clientBefore = process.cpuUsage();
  const peak = trackPeak(pid);
  let seconds: number;
  let rssPeak: number;
  try {
    seconds = await transfer();
  } finally {
    rssPeak = peak.stop();
  }
  const client = process.cpuUsage(clientBefore);
  return {
    mibPerSecond: FILE_BYTES / MIB / seconds,
    seconds,
    cpuSeconds: server.cpuSeconds() - cpuBefore,
    clientCpuSeconds: (client.user + client.system) / 1e6,
    rssBefore,
    rssPeak,
  };
}

/** Uploads `bytes` to the side's server; the answer's file id (the routes) or byte count, checked. */
async function upload(
  side: UploadSide,
  server: BenchServer,
  bytes: number,
  seed: number,
  headers: Record<string, string>,
) {
  const answer = await postUpload(`${server.url}${UPLOAD_SERVERS[side].path}`, bytes, seed, headers);
  const stored = storedOf(side, answer);
  if (answer.status !== 201 || stored.size !== bytes) {
    throw new Error(
      `${side} upload: expected 201 storing ${bytes} bytes, got ${answer.status} ${answer.text.slice(0, 300)}`,
    );
  }
  return { seconds: answer.seconds, id: stored.id };
}

function storedOf(side: UploadSide, answer: Answer): { size?: unknown; id?: string } {
  try {
    const body = JSON.parse(answer.text) as { bytes?: unknown; items?: { id: string; size: unknown }[] };
    return side === 'routes'
      ? { size: body.items?.[0]?.size, id: body.items?.[0]?.id }
      : { size: body.bytes };
  } catch {
    return {};
  }
}

/** Downloads `url` whole, checking it is `bytes` long; the wall seconds. */
async function download(url: string, bytes: number, headers: Record<string, string> = {}): Promise<number> {
  const answer = await getDiscarding(url, headers);
  if (answer.status !== 200 || answer.bytes !== bytes)
    throw new Error(
      `GET ${url}: expected 200 with ${bytes} bytes, got ${answer.status}, ${answer.bytes} bytes`,
    );
  return answer.seconds;
}

/** The files under `directory` by size: how the runner finds where the disk stored the two uploads. */
function filesBySize(directory: string): Map<number, string> {
  const found = new Map<number, string>();
  for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    found.set(statSync(path).size, path);
  }
  return found;
}

/** One upload side on a fresh server; for the routes also the download through it and the plain download. */
async function measureSide(side: UploadSide, round: number, samples: FilesSamples): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), 'svc-bench-files-'));
  const env = { BENCH_UPLOAD_DIR: directory };
  let server: BenchServer | undefined;
  try {
    server = await startServer(`${side} upload`, UPLOAD_SERVERS[side].script, undefined, env);
    const running = server;
    // Signed once, outside the measured transfers: only the routes check a bearer token.
    const headers = side === 'routes' ? await benchBearerHeaders() : {};
    const warmUp = await upload(side, running, WARM_UP_BYTES, round + 1, headers);
    let fileId: string | undefined;
    samples.upload[side].push(
      await measured(running, async () => {
        const done = await upload(side, running, FILE_BYTES, round + 1, headers);
        fileId = done.id;
        return done.seconds;
      }),
    );
    if (side !== 'routes') return;
    const content = (id: string | undefined) => `${running.url}/files/${id}/content`;
    await download(content(warmUp.id), WARM_UP_BYTES, headers);
    samples.download.svc.push(await measured(running, () => download(content(fileId), FILE_BYTES, headers)));
    await running.stop();
    server = undefined;
    samples.download.plain.push(await measurePlainDownload(filesBySize(directory)));
  } finally {
    await server?.stop();
    rmSync(directory, { recursive: true, force: true });
  }
}

async function measurePlainDownload(stored: Map<number, string>): Promise<Transfer> {
  const warmUp = stored.get(WARM_UP_BYTES);
  const file = stored.get(FILE_BYTES);
  if (warmUp === undefined || file === undefined) throw new Error('the stored files were not found on disk');
  const server = await startServer('plain download', 'bench/servers/plain-file-download.ts', undefined, {
    BENCH_DOWNLOAD_WARM_UP: warmUp,
    BENCH_DOWNLOAD_FILE: file,
  });
  try {
    await download(`${server.url}/warm-up`, WARM_UP_BYTES);
    return await measured(server, () => download(`${server.url}/file`, FILE_BYTES));
  } finally {
    await server.stop();
  }
}

const ORDER: UploadSide[] = ['plain', 'routes', 'service', 'durable'];

export async function runFilesBench(options: FilesBenchOptions): Promise<string> {
  const samples: FilesSamples = {
    upload: { plain: [], durable: [], routes: [], service: [] },
    download: { plain: [], svc: [] },
  };
  for (let round = 0; round < options.runs; round++) {
    // A different side goes first each round, so drift in the machine's speed (and the page cache's
    // writeback) hits all alike.
    const order = ORDER.map((_, index) => ORDER[(index + round) % ORDER.length]!);
    for (const side of order) await measureSide(side, round, samples);
    const last = (list: Transfer[]) => `${list.at(-1)!.mibPerSecond.toFixed(0)} MiB/s`;
    process.stdout.write(
      `  files round ${round + 1}: upload plain ${last(samples.upload.plain)}, routes ${last(samples.upload.routes)}, ` +
        `service ${last(samples.upload.service)}, plain + SHA-256 + fdatasync ${last(samples.upload.durable)}; download plain ${last(samples.download.plain)}, svc ${last(samples.download.svc)}\n`,
    );
  }
  return `${filesTable(options.runs, samples)}\n\n${filesProfileNote()}`;
}
