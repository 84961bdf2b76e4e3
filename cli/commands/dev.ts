// svc dev: build, start, then rebuild on spec changes and restart on build or source changes.
// A broken spec is reported and the running service is kept, so a typo never takes the dev server down.
// The project's TypeScript checks types beside the service (dev-typecheck.ts) and never stops it. The
// service runs with NODE_ENV=development unless NODE_ENV is set (service-env.ts).
import type { ChildProcess } from 'node:child_process';
import { watch, existsSync, type FSWatcher } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { build } from '../../generator/index.js';
import { parseCommand } from '../args.js';
import { spawnService } from '../child.js';
import { DevTypeChecker } from '../dev-typecheck.js';
import { resolveSpecEntry } from '../entry.js';
import { projectDir, specFile, SPEC_FILE } from '../project.js';
import { reportFailure } from '../report.js';
import { devEnv } from '../service-env.js';
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
  const session = new DevSession(dir, { ...io, env: devEnv(io.env) });
  await session.rebuildAndRestart(true);
  return session.run();
}

/** What a spec was read from, as the loader reports it (absolute paths); see SpecIR's `sources`. */
export interface SpecSources {
  files: readonly string[];
  /** Directories an `include:` pattern lists: a file added or removed there can change the spec. */
  directories?: readonly string[];
}

/**
 * What svc dev watches for spec changes, relative to the project: the files the spec was last read from
 * (svc.config.yaml and its includes) and the directories its include patterns list. A change to any of them
 * rebuilds. Read again after every load, failed ones included, so an include added while svc dev runs is
 * watched from then on, and so is the fix to an included file that broke the spec.
 */
export function watchedSpecFiles(
  dir: string,
  sources: SpecSources | undefined,
): { files: string[]; directories: string[] } {
  const inProject = (path: string) => relative(dir, path) || '.';
  const files =
    sources === undefined || sources.files.length === 0 ? [SPEC_FILE] : sources.files.map(inProject);
  return { files, directories: (sources?.directories ?? []).map(inProject) };
}

/** The files a failed load had read (the loader attaches them to its SpecError), if it says. */
function sourcesOf(error: unknown): SpecSources | undefined {
  const sources = (error as { sources?: Partial<SpecSources> } | null)?.sources;
  return Array.isArray(sources?.files) ? (sources as SpecSources) : undefined;
}

class DevSession {
  private child: ChildProcess | undefined;
  private timer: NodeJS.Timeout | undefined;
  private pending = new Set<string>();
  private busy: Promise<void> = Promise.resolve();
  private stopping = false;
  private readonly watchers: FSWatcher[] = [];
  /** What the spec was last read from; spec files and include directories relative to the project. */
  private sources: SpecSources | undefined;
  private specFiles = new Set<string>();
  private specDirectories = new Set<string>();
  /** Directories with a watcher for spec changes (absolute). */
  private readonly watchedDirs = new Set<string>();
  private watchingSpec = false;
  private typeChecker: DevTypeChecker | undefined;

  constructor(
    private readonly dir: string,
    private readonly io: CliIo,
  ) {}

  run(): Promise<number> {
    this.watchingSpec = true;
    this.watchSpecFiles();
    const src = join(this.dir, 'src');
    if (existsSync(src)) this.watch(src, true, () => true);
    this.typeChecker = DevTypeChecker.start(this.dir, this.io.env, this.io);
    return new Promise((resolve) => {
      const stop = () => {
        this.stopping = true;
        for (const watcher of this.watchers) watcher.close();
        clearTimeout(this.timer);
        // A rebuild in flight may have stopped the service already and be about to start the next one: let it
        // finish (it starts nothing once stopping), then stop whatever service there is.
        const stopped = this.busy.then(() => this.stopChild());
        void Promise.all([stopped, this.typeChecker?.stop()]).then(() => resolve(0));
      };
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  }

  /** Rebuild when a spec file changed; restart when the build succeeded or only sources changed. */
  async rebuildAndRestart(specChanged: boolean): Promise<void> {
    if (this.stopping) return;
    let entry: string;
    // Everything that can fail (the entry comes from the spec) before the running service is stopped.
    try {
      if (specChanged) {
        const result = await build({ specFile: specFile(this.dir), env: this.io.env });
        const written = result.files.filter((file) => file.status === 'written').length;
        this.io.stdout.write(`svc dev: built (${written} files written) in ${Math.round(result.ms)} ms\n`);
      }
      const resolved = await resolveSpecEntry(this.dir, this.io.env);
      entry = resolved.entry;
      this.specSourcesRead(resolved.spec.sources);
    } catch (error) {
      this.specSourcesRead(sourcesOf(error));
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
      child = spawnService(entry, this.dir, this.io);
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

  private specSourcesRead(sources: SpecSources | undefined): void {
    if (sources === undefined) return;
    this.sources = sources;
    if (this.watchingSpec && !this.stopping) this.watchSpecFiles();
  }

  /** A spec file, or a YAML file in a folder an include pattern lists (it may be new or gone). */
  private isSpecChange(file: string): boolean {
    if (this.specFiles.has(file)) return true;
    return /\.ya?ml$/.test(file) && this.specDirectories.has(dirname(file));
  }

  /**
   * Watches the directory of each spec file, not the file: editors save by replacing the file, which ends a
   * watch on the file itself. A directory stays watched once watched; only what counts as a change follows.
   */
  private watchSpecFiles(): void {
    const watched = watchedSpecFiles(this.dir, this.sources);
    this.specFiles = new Set(watched.files);
    this.specDirectories = new Set(watched.directories);
    for (const path of [...watched.files.map(dirname), ...watched.directories]) {
      const dir = join(this.dir, path);
      if (this.watchedDirs.has(dir) || !existsSync(dir)) continue;
      this.watchedDirs.add(dir);
      this.watch(dir, false, (name) => this.isSpecChange(relative(this.dir, join(dir, name))));
    }
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
    const specChanged = changes.some((file) => this.isSpecChange(file));
    this.io.stdout.write(`svc dev: ${changes.join(', ')} changed\n`);
    this.busy = this.busy.then(() => this.rebuildAndRestart(specChanged));
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
