// Starts a service in a child process on a free port (PORT=0, HOST=127.0.0.1) and waits for the URL it prints.
import { spawn } from 'node:child_process';
import { SVC_BIN } from '../cli/run-svc.js';

export interface RunningService {
  url: string;
  output(): string;
  /** Sends SIGTERM to the service's process group and resolves with the exit code of the started command. */
  stop(): Promise<number | null>;
}

export interface StartOptions {
  /** The child's whole environment (default: this process's); PORT and HOST are set on top. */
  env?: NodeJS.ProcessEnv;
  /** How long to wait for the `listening on` line (default 30 s). */
  timeoutMs?: number;
}

/**
 * Runs `command args` in a process group of its own, so that stopping it also stops a service that runs as its
 * grandchild (`npm start`, `npx svc start`). A start that fails or times out stops the group too.
 */
export async function startProcess(
  command: string,
  args: string[],
  cwd: string,
  options: StartOptions = {},
): Promise<RunningService> {
  const child = spawn(command, args, {
    cwd,
    env: { ...(options.env ?? process.env), PORT: '0', HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let output = '';
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = () => {
    try {
      process.kill(-child.pid!, 'SIGTERM');
    } catch {
      // The process group is already gone.
    }
    return exited;
  };
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`service did not start:\n${output}`)),
        options.timeoutMs ?? 30_000,
      );
      const onData = (chunk: Buffer) => {
        output += chunk.toString();
        const match = /listening on (http:\/\/\S+)/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      };
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      void exited.then((code) => {
        clearTimeout(timer);
        reject(new Error(`service exited with ${code} before listening:\n${output}`));
      });
    });
    return { url, output: () => output, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** `svc <args>` of this checkout, with `env` added to this process's environment. */
export function startService(
  cwd: string,
  args: string[],
  env: NodeJS.ProcessEnv = {},
): Promise<RunningService> {
  return startProcess(process.execPath, [SVC_BIN, ...args], cwd, { env: { ...process.env, ...env } });
}
