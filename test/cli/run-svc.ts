// Runs `svc` command lines: in this process through cli/main.ts's run() with captured output (what most
// tests use: no node start-up, no TypeScript loader), or as the real binary in a child process, as a user
// would (one smoke test per command proves the binary works end to end).
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { run } from '../../cli/main.js';

export const REPO_ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SVC_BIN = join(REPO_ROOT, 'bin', 'svc.js');

export interface CommandRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** stdout and stderr in the order they arrived. */
  output: string;
}
export type SvcRun = CommandRun;

/** Runs `command args` to its end. `env` is the child's whole environment (default: this process's). */
export function runCommand(
  command: string,
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<CommandRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: options.cwd ?? REPO_ROOT,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      output += chunk.toString();
    });
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      output += chunk.toString();
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr, output }));
  });
}

export interface SvcOptions {
  /** Where the command runs (default: the checkout's root). */
  cwd?: string;
  /** Added to this process's environment (a variable set to undefined is removed). */
  env?: NodeJS.ProcessEnv;
}

/** The environment a command sees: this process's with `added` on top, undefined values removed. */
function commandEnv(added: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...added };
  for (const [key, value] of Object.entries(env)) if (value === undefined) delete env[key];
  return env;
}

/** `svc args` run in this process (cli/main.ts's run()), its output captured: what a user would see. */
export async function runSvc(args: string[], options: SvcOptions = {}): Promise<SvcRun> {
  const captured = { stdout: '', stderr: '', output: '' };
  const stream = (name: 'stdout' | 'stderr') => ({
    write(text: string) {
      captured[name] += text;
      captured.output += text;
      return true;
    },
  });
  const code = await run(args, {
    stdout: stream('stdout'),
    stderr: stream('stderr'),
    env: commandEnv(options.env),
    cwd: options.cwd ?? REPO_ROOT,
  });
  return { code, ...captured };
}

/** The real `svc` binary of this checkout in a child process, as a user runs it. */
export function runSvcBinary(args: string[], options: SvcOptions = {}): Promise<SvcRun> {
  return runCommand(process.execPath, [SVC_BIN, ...args], { cwd: options.cwd, env: commandEnv(options.env) });
}

/** A temporary project directory holding the given files (path → content). */
export async function tempProject(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'svc-cli-'));
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}
