// Starts a service with `svc start` in a child process on a free port and waits for its URL.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { REPO_ROOT } from '../cli/run-svc.js';

export interface RunningService {
  url: string;
  output(): string;
  /** Sends SIGTERM and resolves with the exit code. */
  stop(): Promise<number | null>;
}

export async function startService(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningService> {
  const child: ChildProcess = spawn(process.execPath, [join(REPO_ROOT, 'bin', 'svc.js'), ...args], {
    cwd,
    env: { ...process.env, PORT: '0', HOST: '127.0.0.1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`service exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    output: () => output,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
  };
}
