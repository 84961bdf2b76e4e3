// Runs the real `svc` binary of this checkout in a child process, as a user would.
import { spawn } from 'node:child_process';
import { mkdtemp, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** The `svc` of this checkout, with `env` added to this process's environment. */
export function runSvc(
  args: string[],
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<SvcRun> {
  return runCommand(process.execPath, [SVC_BIN, ...args], {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
  });
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
