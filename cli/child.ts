// Runs the project's TypeScript in a child node process and forwards termination signals to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { typescriptNodeFlags } from './project.js';

export function spawnTypeScript(
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): ChildProcess {
  return spawn(process.execPath, [...typescriptNodeFlags(), ...args], {
    cwd,
    stdio: 'inherit',
    env,
  });
}

/** Runs until the child exits; SIGINT/SIGTERM sent to svc are passed on. Resolves with the exit code. */
export function runToExit(child: ChildProcess): Promise<number> {
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      process.stderr.write(`svc: could not start node: ${error.message}\n`);
      resolve(1);
    });
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1));
    });
  });
}
