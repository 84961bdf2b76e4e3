// svc dev: build, start, then rebuild on spec changes and restart on build or source changes.
// A broken spec is reported and the running service is kept, so a typo never takes the dev server down.
import type { ChildProcess } from 'node:child_process';
import { watch, existsSync, type FSWatcher } from 'node:fs';
import { join, relative } from 'node:path';
import { build } from '../../generator/index.js';
import { parseCommand } from '../args.js';
import { spawnTypeScript } from '../child.js';
import { resolveEntry } from '../entry.js';
import { projectDir, specFile, SPEC_FILE } from '../project.js';
import { reportFailure } from '../report.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';

const DEBOUNCE_MS = 150;

export async function devCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseCommand('dev', args, {}, { min: 0, max: 0 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE.dev}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const session = new DevSession(dir, io);
  await session.rebuildAndRestart(SPEC_FILE);
  return session.run();
}

class DevSession {
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pending = new Set<string>();
  private busy: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly watchers: FSWatcher[] = [];

  constructor(
    private readonly dir: string,
    private readonly io: CliIo,
  ) {}

  run(): Promise<number> {
    // The project directory, not the file: editors save by replacing the file, which ends a file watch.
    this.watch(this.dir, false, (file) => file === SPEC_FILE);
    const src = join(this.dir, 'src');
    if (existsSync(src)) this.watch(src, true, () => true);
    return new Promise((resolve) => {
      const stop = () => {
        this.stopping = true;
        for (const watcher of this.watchers) watcher.close();
        clearTimeout(this.timer);
        // A rebuild in flight may have stopped the service already and be about to start the next one: let it
        // finish (it starts nothing once stopping), then stop whatever service there is.
        void this.busy.then(() => this.stopChild()).then(() => resolve(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }

  /** Rebuild when the spec changed; restart when the build succeeded or only sources changed. */
  async rebuildAndRestart(changed: string): Promise<void> {
    if (this.stopping) return;
    let entry: string;
    // Everything that can fail (the entry comes from the spec) before the running service is stopped.
    try {
      if (changed === SPEC_FILE) {
        const result = await build({ specFile: specFile(this.dir), env: this.io.env });
        const written = result.files.filter((file) => file.status === 'written').length;
        this.io.stdout.write(`svc dev: built (${written} files written) in ${Math.round(result.ms)} ms\n`);
      }
      entry = await resolveEntry(this.dir, undefined, this.io.env);
    } catch (error) {
      reportFailure(error, this.io, this.dir);
      if (this.child) this.io.stdout.write('svc dev: keeping the running service; fix it to reload.\n');
      return;
    }
    await this.stopChild();
    // stop() waits for this rebuild and then stops the service it finds: none may start after a shutdown began.
    if (!this.stopping) this.start(entry);
  }

  private start(entry: string): void {
    let child: ChildProcess;
    try {
      child = spawnTypeScript([entry], this.dir, this.io);
    } catch (error) {
      reportFailure(error, this.io, this.dir);
      return;
    }
    this.child = child;
    child.on('exit', (code, signal) => {
      // stopChild() forgets the child before stopping it, so only exits svc dev did not ask for get here.
      if (this.child !== child) return;
      this.child = undefined;
      const how = signal === null ? `exited with code ${code}` : `was killed by ${signal}`;
      this.io.stdout.write(`svc dev: service ${how}; waiting for changes.\n`);
    });
    // Emitted (instead of 'exit') when node cannot be started; unhandled, it would end svc dev.
    child.on('error', (error) => {
      if (this.child === child) this.child = undefined;
      this.io.stderr.write(`svc dev: could not run the service: ${error.message}; waiting for changes.\n`);
    });
  }

  private watch(path: string, recursive: boolean, relevant: (file: string) => boolean): void {
    const watcher = watch(path, { recursive }, (_event, file) => {
      if (file === null || !relevant(file)) return;
      this.pending.add(relative(this.dir, join(path, file)));
      clearTimeout(this.timer);
      this.timer = setTimeout(() => this.flush(), DEBOUNCE_MS);
    });
    this.watchers.push(watcher);
  }

  private flush(): void {
    const changes = [...this.pending];
    this.pending.clear();
    const key = changes.includes(SPEC_FILE) ? SPEC_FILE : (changes[0] ?? SPEC_FILE);
    this.io.stdout.write(`svc dev: ${changes.join(', ')} changed\n`);
    this.busy = this.busy.then(() => this.rebuildAndRestart(key));
  }

  /** Stops the service; forgetting it first marks its exit as planned (see the exit listener). */
  private stopChild(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
    return new Promise((resolve) => {
      const force = setTimeout(() => child.kill('SIGKILL'), 5000);
      child.once('exit', () => {
        clearTimeout(force);
        resolve();
      });
      child.kill('SIGTERM');
    });
  }
}
