// Runs one server scenario of the official MCP conformance runner (@modelcontextprotocol/conformance)
// against a URL, from inside vitest, on Node 20. See README.md in this folder for the why and the how.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export type CheckStatus = 'SUCCESS' | 'FAILURE' | 'WARNING' | 'SKIPPED' | 'INFO';

export interface ConformanceCheck {
  id: string;
  name: string;
  status: CheckStatus;
  errorMessage?: string;
}

export interface RunConformanceOptions {
  /** Streamable-HTTP endpoint to test; must be loopback (the network guard only lets that through). */
  url: string;
  scenario: string;
  /**
   * Baseline entries, written to the runner's YAML as `server: [...]`: a scenario name, or
   * `<scenario>:<check-id>` to excuse a single check. Stale entries (now passing) make it exit 1.
   */
  expectedFailures?: readonly string[];
  /** `--spec-version` (e.g. `2025-11-25`, `2026-07-28`, `draft`); unset = the runner's per-scenario default. */
  specVersion?: string;
  /** Hard limit for the whole child process (default 45 s; suites raise their test timeout to 60 s); SIGKILL after. */
  timeoutMs?: number;
}

export interface ConformanceResult {
  /** Child exit code; null when it was killed (see timedOut). */
  exitCode: number | null;
  checks: ConformanceCheck[];
  stdout: string;
  stderr: string;
  timedOut: boolean;
  /** The runner exits 0 with no checks when a scenario does not apply at --spec-version. */
  skipped: boolean;
  /** Connection attempts the loopback-only guard refused (should always be empty). */
  blockedConnections: string[];
}

const here = dirname(fileURLToPath(import.meta.url));
const preloads = ['register.mjs', 'loopback-only.mjs'].map((file) => pathToFileURL(join(here, file)).href);

/** Absolute path of the runner's CLI entry (its package.json `bin`), wherever npm installed it. */
export function conformanceCliPath(): string {
  const manifestPath = createRequire(import.meta.url).resolve(
    '@modelcontextprotocol/conformance/package.json',
  );
  const manifest: unknown = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const bin = isRecord(manifest) ? manifest.bin : undefined;
  const entry = typeof bin === 'string' ? bin : isRecord(bin) ? bin.conformance : undefined;
  if (typeof entry !== 'string') throw new Error(`no "conformance" bin in ${manifestPath}`);
  return join(dirname(manifestPath), entry);
}

/** Spawns the runner (`node --import <shim> --import <guard> dist/index.js ...args`) in `cwd`. */
export function spawnConformance(
  args: readonly string[],
  options: { cwd: string; timeoutMs: number; allowConnect?: string },
): Promise<{ exitCode: number | null; stdout: string; stderr: string; timedOut: boolean }> {
  const execArgv = preloads.flatMap((url) => ['--import', url]);
  const env = { ...process.env };
  if (options.allowConnect !== undefined) env.MCP_CONFORMANCE_ALLOW_CONNECT = options.allowConnect;
  // Inherited loaders (e.g. vitest/tsx via NODE_OPTIONS) have no business in the runner process.
  delete env.NODE_OPTIONS;

  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...execArgv, conformanceCliPath(), ...args], {
      cwd: options.cwd,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      timedOut = true;
      child.kill('SIGKILL');
    }, options.timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ exitCode: code, stdout, stderr, timedOut });
    });
  });
}

export async function runConformance(options: RunConformanceOptions): Promise<ConformanceResult> {
  const { url, scenario, expectedFailures, specVersion, timeoutMs = 45_000 } = options;
  const target = new URL(url);
  // The runner writes results/ (and we write the baseline) here, so parallel runs never collide.
  const workDir = await mkdtemp(join(tmpdir(), 'svckit-conformance-'));
  try {
    const resultsDir = join(workDir, 'results');
    // Without --output-dir this runner version prints checks but writes no checks.json at all.
    const args = ['server', '--url', url, '--scenario', scenario, '--output-dir', resultsDir];
    // The runner's own per-scenario timeout fires first, so a hung server yields a `scenario-timeout`
    // FAILURE check rather than a killed process with no results.
    args.push('--timeout', String(Math.max(1_000, timeoutMs - 3_000)));
    if (specVersion !== undefined) args.push('--spec-version', specVersion);
    if (expectedFailures !== undefined) {
      const baselinePath = join(workDir, 'expected-failures.yaml');
      // JSON is valid YAML, and quoting keeps `scenario:check-id` a string rather than a mapping.
      await writeFile(baselinePath, `${JSON.stringify({ server: expectedFailures }, null, 2)}\n`);
      args.push('--expected-failures', baselinePath);
    }

    const run = await spawnConformance(args, {
      cwd: workDir,
      timeoutMs,
      allowConnect: `${target.hostname}:${target.port || (target.protocol === 'https:' ? '443' : '80')}`,
    });
    return {
      ...run,
      checks: await readChecks(resultsDir),
      skipped: /^SKIPPED: scenario /m.test(run.stdout),
      blockedConnections: [...run.stderr.matchAll(/^\[loopback-only\] (.*)$/gm)].map(
        (match) => match[1] ?? '',
      ),
    };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** Reads `results/server-<scenario>-<timestamp>/checks.json`; [] when the runner wrote none. */
async function readChecks(resultsDir: string): Promise<ConformanceCheck[]> {
  let entries: string[];
  try {
    entries = await readdir(resultsDir, { recursive: true });
  } catch {
    return [];
  }
  const files = entries.filter((entry) => entry.endsWith('checks.json'));
  const checks: ConformanceCheck[] = [];
  for (const file of files) {
    const parsed: unknown = JSON.parse(await readFile(join(resultsDir, file), 'utf8'));
    if (!Array.isArray(parsed)) throw new Error(`${file}: expected an array of checks`);
    checks.push(...parsed.map((item, index) => toCheck(item, `${file}[${index}]`)));
  }
  return checks;
}

const STATUSES: readonly string[] = ['SUCCESS', 'FAILURE', 'WARNING', 'SKIPPED', 'INFO'];

function toCheck(value: unknown, where: string): ConformanceCheck {
  if (
    !isRecord(value) ||
    typeof value.id !== 'string' ||
    typeof value.name !== 'string' ||
    typeof value.status !== 'string' ||
    !STATUSES.includes(value.status)
  ) {
    throw new Error(`${where}: not a conformance check: ${JSON.stringify(value)}`);
  }
  const check: ConformanceCheck = { id: value.id, name: value.name, status: value.status as CheckStatus };
  if (typeof value.errorMessage === 'string') check.errorMessage = value.errorMessage;
  return check;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
