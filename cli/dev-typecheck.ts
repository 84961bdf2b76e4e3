// The type-checker svc dev runs beside the service: the project's own TypeScript (`tsc --watch`, no output
// files) reports type errors as `svc dev: file:line:col error TS…: message` while the service keeps running,
// since tsx runs code without checking its types. It never stops or restarts the service.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import type { CliIo } from './io.js';

const TSCONFIG = 'tsconfig.json';

/** `src/a.ts(3,7): error TS2322: Type …`, as tsc prints a diagnostic with `--pretty false`. */
const DIAGNOSTIC = /^(.+)\((\d+),(\d+)\): (error|warning) (TS\d+): (.*)$/;
/** A diagnostic without a file: `error TS5023: Unknown compiler option …`. */
const GLOBAL_DIAGNOSTIC = /^(error|warning) (TS\d+): (.*)$/;
/** The line that ends each check of `tsc --watch`: `… - Found 2 errors. Watching for file changes.` */
const CHECK_DONE = /Found (\d+) errors?\b.*Watching for file changes/;

/** The project's `tsc`, or why there is none to run. */
function projectTsc(dir: string): { tsc: string } | { off: string } {
  if (!existsSync(join(dir, TSCONFIG))) return { off: `no ${TSCONFIG} in the project` };
  let manifest: string;
  try {
    manifest = createRequire(join(dir, 'package.json')).resolve('typescript/package.json');
  } catch {
    return { off: 'the project has no typescript (npm install --save-dev typescript)' };
  }
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: Record<string, string> }).bin?.tsc;
  if (bin === undefined) return { off: `${manifest} names no tsc` };
  return { tsc: join(dirname(manifest), bin) };
}

/** A running `tsc --watch` whose findings go to `io` with the `svc dev:` prefix. */
export class DevTypeChecker {
  private readonly child: ChildProcess;
  /** Diagnostics of the check in progress, reported when tsc says it is done. */
  private found: string[] = [];
  private lastErrors: number | undefined;
  private stopping = false;

  private constructor(
    tsc: string,
    dir: string,
    env: NodeJS.ProcessEnv,
    private readonly io: CliIo,
  ) {
    const args = [tsc, '--noEmit', '--watch', '--preserveWatchOutput', '--pretty', 'false', '-p', TSCONFIG];
    this.child = spawn(process.execPath, args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    createInterface({ input: this.child.stdout! }).on('line', (line) => this.read(line));
    createInterface({ input: this.child.stderr! }).on('line', (line) => this.read(line));
    // Emitted (instead of 'exit') when node cannot be started; the service runs on without a type-checker.
    this.child.on('error', (error) => {
      io.stderr.write(`svc dev: could not run the type-checker: ${error.message}\n`);
    });
    this.child.on('exit', (code, signal) => {
      // Stopped with svc dev (Ctrl-C reaches the whole process group): nothing to report.
      if (this.stopping || signal === 'SIGINT' || signal === 'SIGTERM') return;
      const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
      io.stderr.write(`svc dev: the type-checker ${how}; type-checking is off until svc dev restarts.\n`);
    });
  }

  /** Starts the type-checker, or says once why type-checking is off and returns undefined. */
  static start(dir: string, env: NodeJS.ProcessEnv, io: CliIo): DevTypeChecker | undefined {
    const found = projectTsc(dir);
    if ('off' in found) {
      io.stdout.write(`svc dev: type-checking is off: ${found.off}.\n`);
      return undefined;
    }
    return new DevTypeChecker(found.tsc, dir, env, io);
  }

  stop(): Promise<void> {
    this.stopping = true;
    const child = this.child;
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined)
      return Promise.resolve();
    return new Promise((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  }

  private read(line: string): void {
    const done = CHECK_DONE.exec(line);
    if (done) {
      this.report(Number(done[1]));
      return;
    }
    const diagnostic = DIAGNOSTIC.exec(line);
    if (diagnostic) {
      const [, file, row, column, severity, code, message] = diagnostic;
      this.found.push(`${file}:${row}:${column} ${severity} ${code}: ${message}`);
      return;
    }
    const global = GLOBAL_DIAGNOSTIC.exec(line);
    if (global) {
      this.found.push(line);
      return;
    }
    // A message tsc continues on indented lines (the chain of "Type … is not assignable" reasons).
    if (/^\s+\S/.test(line) && this.found.length > 0)
      this.found[this.found.length - 1] += `\n  ${line.trim()}`;
  }

  private report(errors: number): void {
    const found = this.found;
    this.found = [];
    const out = this.io.stdout;
    for (const diagnostic of found) out.write(`svc dev: ${diagnostic.split('\n').join('\nsvc dev:   ')}\n`);
    if (errors > 0) {
      out.write(`svc dev: ${errors} type error${errors === 1 ? '' : 's'}; the service keeps running.\n`);
    } else if (this.lastErrors === undefined) {
      out.write('svc dev: type-check found no errors.\n');
    } else if (this.lastErrors > 0) {
      out.write('svc dev: type-check is clean again.\n');
    }
    this.lastErrors = errors;
  }
}
