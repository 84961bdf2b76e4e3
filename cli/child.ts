// Runs the project's TypeScript in a child node process and forwards termination signals to it.
import { spawn, type ChildProcess } from 'node:child_process';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writesToProcessStreams, type CliIo } from './io.js';
import { typescriptNodeFlags } from './project.js';

/**
 * The module that prints a refused start for a person (boot-preload.ts): beside this one, as TypeScript in a
 * checkout and as JavaScript in an installed svckit's dist/cli/.
 */
const BOOT_PRELOAD = new URL(`./boot-preload${extname(fileURLToPath(import.meta.url))}`, import.meta.url)
  .href;

/**
 * The service's entry (`svc start`, `svc dev`, `svc mcp`) in a child node process: with TypeScript support,
 * and a failed start reported as code, message, option and hint rather than a stack (boot-preload.ts).
 */
export function spawnService(entry: string, cwd: string, io: CliIo): ChildProcess {
  return spawnTypeScript(['--import', BOOT_PRELOAD, entry], cwd, io);
}

/**
 * The child shares svc's stdin, and its stdout and stderr too when svc writes to its own; otherwise (a command
 * run in-process with other streams) the child's output is copied to `io`'s streams.
 */
export function spawnTypeScript(args: string[], cwd: string, io: CliIo): ChildProcess {
  const shared = writesToProcessStreams(io);
  const child = spawn(process.execPath, [...typescriptNodeFlags(), ...args], {
    cwd,
    stdio: shared ? 'inherit' : ['inherit', 'pipe', 'pipe'],
    env: io.env,
  });
  if (!shared) {
    child.stdout?.setEncoding('utf8').on('data', (text: string) => io.stdout.write(text));
    child.stderr?.setEncoding('utf8').on('data', (text: string) => io.stderr.write(text));
  }
  return child;
}

/** Runs until the child exits; SIGINT/SIGTERM sent to svc are passed on. Resolves with the exit code. */
export function runToExit(child: ChildProcess, io: CliIo): Promise<number> {
  const forward = (signal: NodeJS.Signals) => child.kill(signal);
  process.on('SIGINT', forward);
  process.on('SIGTERM', forward);
  return new Promise((resolve) => {
    child.on('error', (error) => {
      io.stderr.write(`svc: could not start node: ${error.message}\n`);
      resolve(1);
    });
    // 'close', not 'exit': piped output is read to its end before the command returns.
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal === 'SIGINT' || signal === 'SIGTERM' ? 0 : 1));
    });
  });
}
