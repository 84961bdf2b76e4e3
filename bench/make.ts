// The scaffolding bench: each `svc make:*` command on an app of 50 resources (target: < 3 s each). The app is
// made once: `svc init` (its Task), then 49 resources added with the make library exactly as
// `svc make:resource` adds them (spec entries, module files, migration, src/app.ts wiring), and one `svc build`.
// Each measured run is what a user runs, `svc make:<part> <Name> --dir=<app>` in a fresh process (cold start
// counts), on a fresh copy of that app, so every run does the same work: first as an installed svckit runs it
// (the compiled dist/, built here first), the figure the target is for; then as this checkout runs it
// (`node bin/svc.js`, its TypeScript through tsx), for those working on svc. Runs are interleaved (one of each
// command per round) so drift in the machine's speed hits every command alike.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { median } from './lib/results.js';

export const MAKE_ID = 'make';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BIN = join(ROOT, 'bin', 'svc.js');
/** What bin/svc.js runs in an installed package: the compiled CLI. */
const INSTALLED_ENTRY = `import { main } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)};
await main(process.argv.slice(2));
`;
/** svc init's Task plus these make 50. */
const ADDED_RESOURCES = 49;

/** Each command with a name the app does not hold yet, so none conflicts. */
const COMMANDS = [
  ['make:resource', 'BlogPost'],
  ['make:schema', 'Widget'],
  ['make:repository', 'Gadget'],
  ['make:service', 'Gizmo'],
  ['make:plugin', 'Doohickey'],
  ['make:routes', 'Sprocket'],
  ['make:test', 'Whatsit'],
] as const;

// The child reports its own CPU time (every thread, prettier's worker included) as it exits.
const USAGE_REPORTER =
  'data:text/javascript,import { writeFileSync } from "node:fs";' +
  'process.on("exit", () => writeFileSync(process.env.SVC_BENCH_USAGE, JSON.stringify(process.resourceUsage())));';

interface Sample {
  wallMs: number;
  cpuMs: number;
  /** What the command reports for its `svc build`, when it ran one. */
  buildMs?: number;
}

const quiet = { write: () => true };

/** `ThingAa`, `ThingBa`, …: 49 distinct names of letters only. */
function resourceName(index: number): string {
  const letter = (code: number) => String.fromCharCode(code);
  return `Thing${letter(65 + (index % 26))}${letter(97 + Math.floor(index / 26))}`;
}

/** svc init, then 49 resources as `svc make:resource` writes them (defaults: auth, no tenant), then one build. */
async function prepareApp(app: string): Promise<void> {
  // Loaded here: the other benches that run.ts imports this module for never need the CLI.
  const { run } = await import('../cli/main.js');
  const make = await import('../make/index.js');
  const {
    editSpec,
    generateResource,
    names,
    registerResourceInApp,
    routeEntries,
    schemaEntries,
    writeGenerated,
  } = make;
  const io = { stdout: quiet, stderr: process.stderr, env: process.env, cwd: tmpdir() };
  if ((await run(['init', app], io)) !== 0) throw new Error('svc init failed');
  const specPath = join(app, 'svc.config.yaml');
  let spec = readFileSync(specPath, 'utf8');
  for (let index = 0; index < ADDED_RESOURCES; index++) {
    const name = resourceName(index);
    const n = names(name);
    const entries = { ...schemaEntries(n), ...routeEntries(n, { auth: true, tenant: false }) };
    spec = editSpec(spec, entries, { enableModules: ['auth'] }).text;
    await writeGenerated(await generateResource(name, { migrationNumber: index + 1 }), { baseDir: app });
    const wired = await registerResourceInApp(name, { baseDir: app });
    if (!wired.registered) throw new Error(`${name} not registered: ${wired.reason}`);
  }
  writeFileSync(specPath, spec);
  if ((await run(['build', `--dir=${app}`], io)) !== 0) throw new Error('svc build failed');
}

/** Every core for the child, as in a user's shell: run.ts pins the bench process itself to one. */
function unpinned(command: string[]): string[] {
  if (spawnSync('taskset', ['--version']).status !== 0) return command;
  return ['taskset', '-c', `0-${cpus().length - 1}`, ...command];
}

function runOnce(
  app: string,
  entry: string,
  command: string,
  name: string,
  usageFile: string,
): Promise<Sample> {
  const argv = unpinned([process.execPath, '--import', USAGE_REPORTER, entry, command, name, `--dir=${app}`]);
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: ROOT,
    env: { ...process.env, SVC_BENCH_USAGE: usageFile },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`svc ${command} ${name} exited with ${code}:\n${output}`));
      const usage = JSON.parse(readFileSync(usageFile, 'utf8')) as {
        userCPUTime: number;
        systemCPUTime: number;
      };
      const build = /svc build: \d+ files, \d+ written in (\d+) ms/.exec(output);
      resolve({
        wallMs,
        cpuMs: (usage.userCPUTime + usage.systemCPUTime) / 1000,
        ...(build ? { buildMs: Number(build[1]) } : {}),
      });
    });
  });
}

const ms = (value: number) => value.toFixed(0);

/** The compiled CLI an installed svckit runs, built from this checkout (`npm run build:dist`). */
function buildInstalledEntry(work: string): string {
  const built = spawnSync('npm', ['run', 'build:dist'], { cwd: ROOT, encoding: 'utf8' });
  if (built.status !== 0) throw new Error(`npm run build:dist failed:\n${built.stdout}${built.stderr}`);
  const entry = join(work, 'installed-svc.mjs');
  writeFileSync(entry, INSTALLED_ENTRY);
  return entry;
}

function row(
  command: string,
  name: string,
  installed: readonly Sample[],
  checkout: readonly Sample[],
): string {
  const builds = installed.flatMap((sample) => (sample.buildMs === undefined ? [] : [sample.buildMs]));
  return (
    `| \`svc ${command} ${name}\` | ${ms(median(installed.map((s) => s.wallMs)))} | ` +
    `${ms(Math.max(...installed.map((s) => s.wallMs)))} | ${ms(median(installed.map((s) => s.cpuMs)))} | ` +
    `${builds.length > 0 ? ms(median(builds)) : '(no build)'} | ${ms(median(checkout.map((s) => s.wallMs)))} |`
  );
}

/** Makes the app, then runs every command `runs` times each way (after one unmeasured round) and reports. */
export async function runMakeBench(options: { runs: number }): Promise<string> {
  const work = mkdtempSync(join(tmpdir(), 'svc-make-bench-'));
  try {
    const installedEntry = buildInstalledEntry(work);
    const base = join(work, 'base');
    const setupStarted = performance.now();
    await prepareApp(base);
    const setupMs = performance.now() - setupStarted;
    const usageFile = join(work, 'usage.json');
    const entries = { installed: installedEntry, checkout: BIN };
    const samples = {
      installed: COMMANDS.map((): Sample[] => []),
      checkout: COMMANDS.map((): Sample[] => []),
    };
    let copies = 0;
    const once = async (entry: string, command: string, name: string) => {
      const app = join(work, `app${copies++}`);
      cpSync(base, app, { recursive: true });
      try {
        return await runOnce(app, entry, command, name, usageFile);
      } finally {
        rmSync(app, { recursive: true, force: true });
      }
    };
    for (const way of ['installed', 'checkout'] as const) {
      for (const [command, name] of COMMANDS) await once(entries[way], command, name);
      for (let round = 0; round < options.runs; round++) {
        for (const [index, [command, name]] of COMMANDS.entries())
          samples[way][index]!.push(await once(entries[way], command, name));
      }
    }
    const rows = COMMANDS.map(([command, name], index) =>
      row(command, name, samples.installed[index]!, samples.checkout[index]!),
    );
    return [
      '## `svc make:*` on a 50-resource app (target < 3 s each)',
      '',
      `The app: \`svc init\` (its Task) plus ${ADDED_RESOURCES} resources added with the make library as ` +
        '`svc make:resource` adds them, then built (' +
        `${ms(setupMs / 1000)} s in-process). Each run is \`svc make:<part> <Name> --dir=<app>\` in a fresh ` +
        'process on a fresh copy of that app, as an installed svckit runs it (its compiled `dist/`, built by ' +
        `the bench first): ${options.runs} runs per command after one unmeasured round, interleaved. _wall_ is ` +
        'spawn to exit; _CPU_ is user + system time of the process, every thread, as it exits (the figure ' +
        'least moved by other work on the machine); _svc build_ is what the command prints for its build ' +
        '(the commands that leave the spec alone run none). The last column is the same command run from ' +
        'this checkout (`node bin/svc.js`, which runs the TypeScript sources through tsx), measured the same ' +
        'way afterwards: what working on svc itself costs, not what its users run.',
      '',
      '| command | wall, median (ms) | wall, max (ms) | CPU, median (ms) | svc build, median (ms) | from the checkout (tsx): wall, median (ms) |',
      '| --- | --- | --- | --- | --- | --- |',
      ...rows,
      '',
      `1-minute load average after the run: ${loadavg()[0]!.toFixed(2)}.`,
    ].join('\n');
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
