// The start-up bench: how long a minimal app takes from process start to listening, and how much memory it
// holds then, when it imports svckit from the root entry (`svckit`, every feature) or from the subpath
// entries (`svckit/core`, plus `svckit/edge` when it uses edge plugins). Each case runs from the TypeScript
// sources (`node --conditions=svckit-source --import tsx`, as in this checkout) and from compiled JavaScript
// (tsconfig.build.json compiled into .svc/bench-dist, the files `svckit` publishes). Runs are interleaved
// (one of each case per round) so drift in the machine's speed hits every case alike; figures are medians.
import { spawn, spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './lib/results.js';

export const STARTUP_ID = 'startup';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const APP = 'bench/startup/app.js';
const DIST = '.svc/bench-dist';

type Entries = { core: string; fastify: string; edge?: string };
type Runtime = 'sources (tsx)' | 'compiled (dist)';

interface StartupCase {
  app: string;
  imports: string;
  runtime: Runtime;
  entries: Entries;
}

interface Sample {
  importedMs: number;
  readyMs: number;
  rss: number;
  heapUsed: number;
}

/** The package's entries as the sources serve them (export condition svckit-source) or as compiled files. */
function entry(runtime: Runtime, subpath: '' | 'core' | 'edge' | 'fastify'): string {
  if (runtime === 'sources (tsx)') return subpath === '' ? 'svckit' : `svckit/${subpath}`;
  const file = {
    '': 'runtime/index.js',
    core: 'runtime/core.js',
    edge: 'runtime/edge/index.js',
    fastify: 'runtime/adapters/fastify/index.js',
  }[subpath];
  return pathToFileURL(`${ROOT}${DIST}/${file}`).href;
}

function cases(): StartupCase[] {
  const list: StartupCase[] = [];
  for (const runtime of ['sources (tsx)', 'compiled (dist)'] as const) {
    const fastify = entry(runtime, 'fastify');
    list.push(
      {
        app: 'route on Fastify',
        imports: '`svckit`',
        runtime,
        entries: { core: entry(runtime, ''), fastify },
      },
      {
        app: 'route on Fastify',
        imports: '`svckit/core`',
        runtime,
        entries: { core: entry(runtime, 'core'), fastify },
      },
      {
        app: '+ securityPlugin, healthPlugin',
        imports: '`svckit`',
        runtime,
        entries: { core: entry(runtime, ''), fastify, edge: entry(runtime, '') },
      },
      {
        app: '+ securityPlugin, healthPlugin',
        imports: '`svckit/core` + `svckit/edge`',
        runtime,
        entries: { core: entry(runtime, 'core'), fastify, edge: entry(runtime, 'edge') },
      },
    );
  }
  return list;
}

/** Compiles the published JavaScript into .svc/bench-dist (not dist/, which `npm pack` owns). */
function compileDist(): void {
  rmSync(`${ROOT}${DIST}`, { recursive: true, force: true });
  const result = spawnSync(
    process.execPath,
    [`${ROOT}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.build.json', '--outDir', DIST],
    { cwd: ROOT, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error(`tsc -p tsconfig.build.json exited with ${result.status}`);
}

function runOnce(startup: StartupCase): Promise<Sample> {
  const loader = startup.runtime === 'sources (tsx)' ? ['--conditions=svckit-source', '--import', 'tsx'] : [];
  const child = spawn(process.execPath, ['--expose-gc', ...loader, APP], {
    cwd: ROOT,
    env: { ...process.env, STARTUP_ENTRIES: JSON.stringify(startup.entries) },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`${APP} (${startup.imports}) exited with code ${code}`));
      resolve(JSON.parse(output.trim()) as Sample);
    });
  });
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
const ms = (value: number) => value.toFixed(0);

/** Runs every case `runs` times (plus one unmeasured warm-up each, which fills tsx's cache) and reports. */
export async function runStartupBench(options: { runs: number }): Promise<string> {
  compileDist();
  const list = cases();
  const samples = list.map((): Sample[] => []);
  for (const startup of list) await runOnce(startup);
  for (let round = 0; round < options.runs; round++) {
    for (const [index, startup] of list.entries()) samples[index]!.push(await runOnce(startup));
  }
  const rows = list.map((startup, index) => {
    const of = (pick: (sample: Sample) => number) => median(samples[index]!.map(pick));
    return (
      `| ${startup.runtime} | ${startup.app} | ${startup.imports} | ${ms(of((s) => s.importedMs))} | ` +
      `${ms(of((s) => s.readyMs))} | ${mib(of((s) => s.rss))} | ${mib(of((s) => s.heapUsed))} |`
    );
  });
  return [
    `## Start-up of a minimal app: the root entry (\`svckit\`) vs the subpath entries`,
    '',
    'Medians of ' +
      `${options.runs} runs per case, interleaved. _imported_ and _listening_ are milliseconds since the ` +
      'process started (`performance.now()`), after the imports and once `app.listen()` resolved; memory is ' +
      'read after a full garbage collection, once listening. The app is bench/startup/app.js.',
    '',
    '| runs from | app | imports from | imported (ms) | listening (ms) | RSS (MiB) | heap used (MiB) |',
    '| --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
}
