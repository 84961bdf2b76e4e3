// Bench servers run as separate processes pinned to one core; the load generator stays on another.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { limitCpu } from './cpu-quota.js';

export const SERVER_CORE = 0;
export const LOAD_CORE = 1;
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLOCK_TICKS_PER_SECOND = 100;

export interface BenchServer {
  name: string;
  url: string;
  child: ChildProcess;
  /** User + system CPU seconds the server process has used so far. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['--version']).status === 0;
}

/** Pins this process (the load generator) to LOAD_CORE when taskset exists. */
export function pinSelf(): boolean {
  if (!hasTaskset()) return false;
  return spawnSync('taskset', ['-pc', String(LOAD_CORE), String(process.pid)]).status === 0;
}

/**
 * Starts a bench server and waits for its URL; `cpuShare` caps it at that share of a core (cpu-quota.ts), `env`
 * adds environment variables (the upload bench passes its target directory this way).
 */
export async function startServer(
  name: string,
  script: string,
  cpuShare?: number,
  env?: Readonly<Record<string, string>>,
): Promise<BenchServer> {
  // BENCH_NODE_FLAGS adds node flags to every bench server, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const extra = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  const node = [process.execPath, ...extra, '--conditions=svckit-source', '--import', 'tsx', script];
  const command = hasTaskset() ? ['taskset', '-c', String(SERVER_CORE), ...node] : node;
  const child = spawn(command[0]!, command.slice(1), {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening (\S+)/.exec(output);
      if (match) resolve(match[1]!);
    });
    child.once('exit', (code) => reject(new Error(`${name} exited with code ${code} before listening`)));
  });
  let quota;
  try {
    quota = cpuShare === undefined ? undefined : limitCpu(child.pid!, cpuShare);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  return {
    name,
    url,
    child,
    cpuSeconds: () => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // Fields 14 and 15 of /proc/<pid>/stat (utime, stime); index 11 and 12 after the command name.
      return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND;
    },
    stop: () =>
      new Promise((resolve) => {
        child.once('exit', () => {
          quota?.release();
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}
