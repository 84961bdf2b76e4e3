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
import type { OpenApiTypesJob } from './emit-openapi-types.js';

/** Below this much code a worker costs more than it saves. */
export const WORKER_THRESHOLD_BYTES = 150_000;

/** What the worker is asked: format a file, or print openapi.d.ts from openapi.json. */
type WorkerMessage = { source: string; options: Options } | OpenApiTypesJob;

interface Job {
  message: WorkerMessage;
  resolve(text: string): void;
  reject(error: unknown): void;
}

/** A conversion the worker could not finish because it is gone: the caller converts on its own thread. */
export class WorkerGoneError extends Error {
  constructor() {
    super('the format worker is gone');
    this.name = 'WorkerGoneError';
  }
}

// Plain JavaScript evaluated in the worker: it needs no TypeScript loader, only prettier's CommonJS entry and
// openapi-typescript's module entry (the one the main thread would import).
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const prettier = require(workerData.prettier);
// Load the parsers and warm them up while the main thread is still loading the spec.
const warm = Promise.all([
  prettier.format('export const a: { b: number } = { b: 1 };', { parser: workerData.tsParser }),
  prettier.format('function f(a) { return a; }', { parser: 'babel' }),
]).catch(() => undefined);
// Then openapi-typescript, before the first conversion needs it.
const openApi = workerData.openApiTypescript && warm.then(() => import(workerData.openApiTypescript));
const answer = (run) =>
  run().then(
    (text) => parentPort.postMessage({ text }),
    (error) => parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) }),
  );
parentPort.on('message', (job) => {
  if (job.openApiJson !== undefined) {
    // As convertHere in emit-openapi-types.ts.
    return answer(async () => {
      const { default: openapiTS, astToString } = await openApi;
      const cwd = new URL(job.options.cwd);
      const text = job.prefix + astToString(await openapiTS(job.openApiJson, { ...job.options, cwd }));
      return job.format ? (await warm, prettier.format(text, job.format)) : text;
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

/** Where openapi-typescript's module entry is, or undefined when it cannot be found from here. */
function openApiTypescriptUrl(): string | undefined {
  try {
    return import.meta.resolve('openapi-typescript');
  } catch {
    return undefined;
  }
}

export class FormatPool {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  /** Conversions: only the worker runs them, before any queued file. */
  private readonly conversions: Job[] = [];
  /** The job the worker is on, if any. */
  private inWorker: Job | undefined;
  private readonly converts: boolean;
  /** Called whenever a file is queued, the worker finishes or gives up a job, or producers settle. */
  private onChange: (() => void) | undefined;

  /** `useWorker: false` (or a single-core machine) formats everything on this thread. */
  constructor(tsParser: string, useWorker = true, options: FormatPoolOptions = {}) {
    this.converts = false;
    if (!useWorker || availableParallelism() < 2) return;
    try {
      const prettier = createRequire(import.meta.url).resolve('prettier');
      const openApiTypescript = options.openApiTypes ? openApiTypescriptUrl() : undefined;
      const worker = new Worker(WORKER_SOURCE, {
        eval: true,
        workerData: { prettier, tsParser, openApiTypescript },
      });
      worker.unref();
      worker.on('message', (message: { text?: string; error?: string }) => this.settle(message));
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
  openApiTypes(job: OpenApiTypesJob): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      if (!this.convertsOpenApi) return reject(new WorkerGoneError());
      this.conversions.push({ message: job, resolve, reject });
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
      if (produced && !this.inWorker && this.conversions.length === 0) break;
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
    if (!this.worker || this.inWorker) return;
    const job = this.conversions.shift() ?? this.queue.shift();
    if (!job) return;
    this.inWorker = job;
    this.worker.postMessage(job.message);
  }

  private settle(message: { text?: string; error?: string }): void {
    const job = this.inWorker;
    this.inWorker = undefined;
    if (message.text !== undefined) job?.resolve(message.text);
    else job?.reject(new Error(message.error ?? 'the format worker failed'));
    this.feedWorker();
    this.notify();
  }

  private notify(): void {
    const notify = this.onChange;
    this.onChange = undefined;
    notify?.();
  }

  /** A worker that died or was closed hands its file back to the queue and its conversions to their callers. */
  private abandonWorker(): void {
    this.worker = undefined;
    const job = this.inWorker;
    this.inWorker = undefined;
    if (job && 'source' in job.message) this.queue.unshift(job);
    else job?.reject(new WorkerGoneError());
    for (const conversion of this.conversions.splice(0)) conversion.reject(new WorkerGoneError());
    this.notify();
  }
}
