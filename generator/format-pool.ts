// Formats generated code on two threads: prettier is single-threaded and a big spec makes megabytes of code.
// Files are queued as soon as they are generated; a worker thread (started early, so it has loaded prettier
// by then) formats from the queue while this thread is still generating, then both drain what is left.
// The worker can also run openapi-typescript (openapi.d.ts), which brings the TypeScript compiler: it loads
// it while this thread works, and converts while this thread formats. The output is identical wherever a file
// is formatted or converted. Small builds never start a worker unless the caller asks for one.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Options } from 'prettier';
import type { OpenApiTypesAnswer, OpenApiTypesJob } from './emit-openapi-types.js';
import type { ParsedProgram } from './statement-chunks.js';

/** Below this much code a worker costs more than it saves. */
export const WORKER_THRESHOLD_BYTES = 150_000;

/**
 * Jobs handed to the worker at once: it has its next one while this thread is busy (prettier does not yield,
 * so the worker's answer waits until this thread's file is done).
 */
const IN_WORKER = 2;

/**
 * A function of a module, run in the worker: `module` is imported there (after `loader`'s `register()`, for a
 * module in TypeScript) and its export `name` called with `args`; what it answers must survive JSON.
 */
export interface WorkerTask {
  module: string;
  name: string;
  args: unknown[];
  loader?: string;
}

/** What the worker is asked: format a file, print openapi.d.ts from openapi.json, or run a task. */
type WorkerMessage = { source: string; options: Options } | OpenApiTypesJob | { task: WorkerTask };

/** The worker's answer to a job. */
interface WorkerAnswer {
  text?: string;
  outline?: ParsedProgram;
  error?: string;
}

interface Job {
  message: WorkerMessage;
  resolve(text: string, outline?: ParsedProgram): void;
  reject(error: unknown): void;
}

/** A conversion the worker could not finish because it is gone: the caller converts on its own thread. */
export class WorkerGoneError extends Error {
  constructor() {
    super('the format worker is gone');
    this.name = 'WorkerGoneError';
  }
}

// Plain JavaScript evaluated in the worker: it needs no TypeScript loader, only prettier's and
// openapi-typescript's CommonJS entries (the main thread imports the same package's module entry).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const prettier = require(workerData.prettier);
// Load the parsers and warm them up while the main thread is still loading the spec.
const warm = Promise.all([
  prettier.format('export const a: { b: number } = { b: 1 };', { parser: workerData.tsParser }),
  prettier.format('function f(a) { return a; }', { parser: 'babel' }),
]).catch(() => undefined);
// One job after the other, answered in the order they came: the main thread keeps the next one queued here.
let previous = Promise.resolve();
// The tasks running (each starts as it arrives; only its answer waits its turn).
let tasks = Promise.resolve();
// Then openapi-typescript (its CommonJS entry: importing the TypeScript compiler as a module costs more), once
// the tasks that came meanwhile are done: a task the main thread waits for is not held up by it.
const openApi =
  workerData.openApiTypescript && warm.then(() => tasks).then(() => require(workerData.openApiTypescript));
const answer = (run) =>
  (previous = previous.then(run).then(
    (text) => parentPort.postMessage(typeof text === 'string' ? { text } : text),
    (error) => parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  ));
// What the format cache reads of a parse (statement-chunks.ts, declaration-split.ts): positions of the
// top-level statements, of the members of interfaces (and their keys), and of comments; the whole tree would
// not pay to send.
const outline = (text, parser) => {
  const { parsers } = require(workerData.babelPlugin);
  const parsed = parsers[parser].parse(text, { parser });
  const at = (node) => ({ type: node.type, start: node.start, end: node.end });
  // A member's key too: whether its quoting depends on its siblings' decides whether it may be cut there.
  const member = (node) => ({
    ...at(node),
    computed: node.computed,
    key: node.key && { ...at(node.key), value: node.key.value },
  });
  const interfaceOf = (node) =>
    node && node.type === 'TSInterfaceDeclaration'
      ? { ...at(node), body: { ...at(node.body), body: node.body.body.map(member) } }
      : node && at(node);
  return {
    program: {
      body: parsed.program.body.map((node) => ({ ...interfaceOf(node), declaration: interfaceOf(node.declaration) })),
      directives: parsed.program.directives.map(at),
      interpreter: parsed.program.interpreter ? at(parsed.program.interpreter) : null,
    },
    comments: parsed.comments.map(at),
  };
};
// A task's module loader is registered once; its module is imported when the first task needs it.
let loader;
const runTask = async ({ module, name, args, loader: loaderUrl }) => {
  if (loaderUrl) await (loader ??= import(loaderUrl).then((api) => api.register()));
  const exports = await import(module);
  // A CommonJS module's function may be reachable only through its default export.
  const run = exports[name] ?? (exports.default && exports.default[name]);
  return JSON.stringify((await run(...args)) ?? null);
};
parentPort.on('message', (job) => {
  if (job.task !== undefined) {
    const running = runTask(job.task);
    tasks = Promise.all([tasks, running.catch(() => undefined)]);
    return answer(() => running);
  }
  if (job.openApiJson !== undefined) {
    // As convertHere and transformDocument in emit-openapi-types.ts.
    return answer(async () => {
      const { transformSchema, scanDiscriminators, resolveRef, astToString } = await openApi;
      const schema = JSON.parse(job.openApiJson);
      const options = job.options;
      const ast = transformSchema(schema, {
        ...options,
        injectFooter: [],
        discriminators: scanDiscriminators(schema, options),
        resolve: (ref) => resolveRef(schema, ref, { silent: options.silent }),
      });
      const text = job.prefix + astToString(ast);
      if (job.format) return (await warm, prettier.format(text, job.format));
      if (!job.outline) return text;
      try {
        return { text, outline: outline(text, job.outline) };
      } catch {
        return text; // The format cache parses it itself, or formats it whole.
      }
    });
  }
  return answer(async () => {
    await warm;
    return prettier.format(job.source, job.options);
  });
});
`;

export interface FormatPoolOptions {
  /** Load openapi-typescript in the worker, so `openApiTypes()` converts there. */
  openApiTypes?: boolean;
}

/** Where openapi-typescript's CommonJS entry is, or undefined when it cannot be found from here. */
function openApiTypescriptPath(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve('openapi-typescript');
  } catch {
    return undefined;
  }
}

export class FormatPool {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  /** Conversions and tasks: only the worker runs them, before any queued file. */
  private readonly conversions: Job[] = [];
  /** The jobs handed to the worker, in the order it answers them. */
  private readonly inWorker: Job[] = [];
  private readonly converts: boolean;
  /** Called whenever a file is queued, the worker finishes or gives up a job, or producers settle. */
  private onChange: (() => void) | undefined;

  /** `useWorker: false` (or a single-core machine) formats everything on this thread. */
  constructor(tsParser: string, useWorker = true, options: FormatPoolOptions = {}) {
    this.converts = false;
    if (!useWorker || availableParallelism() < 2) return;
    try {
      const require = createRequire(import.meta.url);
      const prettier = require.resolve('prettier');
      const babelPlugin = require.resolve('prettier/plugins/babel');
      const openApiTypescript = options.openApiTypes ? openApiTypescriptPath() : undefined;
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { prettier, babelPlugin, tsParser, openApiTypescript },
      });
      worker.unref();
      worker.on('message', (message: WorkerAnswer) => this.settle(message));
      worker.on('error', () => this.abandonWorker());
      worker.on('exit', () => this.abandonWorker());
      this.worker = worker;
      this.converts = openApiTypescript !== undefined;
    } catch {
      this.worker = undefined;
    }
  }

  /** Whether `openApiTypes()` may be called: the worker is up and has openapi-typescript. */
  get convertsOpenApi(): boolean {
    return this.converts && this.worker !== undefined;
  }

  /** Queues a file; the worker takes it at once when idle. */
  submit(source: string, options: Options): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ message: { source, options }, resolve, reject });
      this.feedWorker();
      this.notify();
    });
  }

  /**
   * openapi.d.ts converted (and formatted, with `job.format`) in the worker, only when `convertsOpenApi`;
   * rejects with WorkerGoneError when the worker is gone first.
   */
  openApiTypes(job: OpenApiTypesJob): Promise<OpenApiTypesAnswer> {
    return new Promise<OpenApiTypesAnswer>((resolve, reject) => {
      if (!this.convertsOpenApi) return reject(new WorkerGoneError());
      const answer = (text: string, outline?: ParsedProgram) =>
        resolve(outline ? { text, outline } : { text });
      this.conversions.push({ message: job, resolve: answer, reject });
      this.feedWorker();
    });
  }

  /**
   * Runs a task in the worker (see WorkerTask), before any queued file, and answers its JSON parsed; rejects
   * with WorkerGoneError when there is no worker, and with the worker's error when the task fails there.
   */
  runTask<T>(task: WorkerTask): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      if (!this.worker) return reject(new WorkerGoneError());
      const answer = (text: string) => {
        try {
          resolve(JSON.parse(text) as T);
        } catch (error) {
          reject(error);
        }
      };
      this.conversions.push({ message: { task }, resolve: answer, reject });
      this.feedWorker();
    });
  }

  /**
   * Formats queued files on this thread until the queue is empty, the worker is idle and `producing` (what
   * still submits files) has settled; the worker keeps taking its share meanwhile.
   */
  async drain(
    formatHere: (source: string, options: Options) => Promise<string>,
    producing: Promise<unknown> = Promise.resolve(),
  ): Promise<void> {
    let produced = false;
    let failure: { error: unknown } | undefined;
    const settled = producing
      .then(
        () => undefined,
        (error: unknown) => void (failure = { error }),
      )
      .finally(() => {
        produced = true;
        this.notify();
      });
    for (;;) {
      const job = this.queue.shift();
      if (job) {
        const { source, options } = job.message as { source: string; options: Options };
        try {
          job.resolve(await formatHere(source, options));
        } catch (error) {
          job.reject(error);
        }
        // prettier answers without yielding to the event loop: yield, so that a worker that finished gets
        // its next file now, not once this thread has formatted all the others.
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      if (produced && this.inWorker.length === 0 && this.conversions.length === 0) break;
      // Wait for a file, the worker, or the producers: should the worker die, its file comes back here.
      await new Promise<void>((resolve) => (this.onChange = resolve));
    }
    await settled;
    if (failure) throw failure.error;
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.abandonWorker();
    if (worker) await worker.terminate();
  }

  private feedWorker(): void {
    while (this.worker && this.inWorker.length < IN_WORKER) {
      const job = this.conversions.shift() ?? this.queue.shift();
      if (!job) return;
      this.inWorker.push(job);
      this.worker.postMessage(job.message);
    }
  }

  private settle(message: WorkerAnswer): void {
    const job = this.inWorker.shift();
    if (message.text !== undefined) job?.resolve(message.text, message.outline);
    else job?.reject(new Error(message.error ?? 'the format worker failed'));
    this.feedWorker();
    this.notify();
  }

  private notify(): void {
    const notify = this.onChange;
    this.onChange = undefined;
    notify?.();
  }

  /** A worker that died or was closed hands its files back to the queue and its conversions to their callers. */
  private abandonWorker(): void {
    this.worker = undefined;
    const jobs = this.inWorker.splice(0);
    for (const job of jobs.filter((one) => !('source' in one.message))) job.reject(new WorkerGoneError());
    this.queue.unshift(...jobs.filter((job) => 'source' in job.message));
    for (const conversion of this.conversions.splice(0)) conversion.reject(new WorkerGoneError());
    this.notify();
  }
}
