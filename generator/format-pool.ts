// Formats generated code on two threads: prettier is single-threaded and a big spec makes megabytes of code.
// Files are queued as soon as they are generated; a worker thread (started early, so it has loaded prettier
// by then) formats from the queue while this thread is still generating, then both drain what is left.
// The output is identical wherever a file is formatted. Small builds never start a worker.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Options } from 'prettier';

/** Below this much code a worker costs more than it saves. */
export const WORKER_THRESHOLD_BYTES = 150_000;

interface Job {
  source: string;
  options: Options;
  resolve(text: string): void;
  reject(error: unknown): void;
}

// Plain JavaScript evaluated in the worker: it needs no TypeScript loader, only prettier's CommonJS entry.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const prettier = require(workerData.prettier);
// Load the parsers and warm them up while the main thread is still loading the spec.
const warm = Promise.all([
  prettier.format('export const a: { b: number } = { b: 1 };', { parser: workerData.tsParser }),
  prettier.format('function f(a) { return a; }', { parser: 'babel' }),
]).catch(() => undefined);
parentPort.on('message', async (job) => {
  await warm;
  try {
    parentPort.postMessage({ text: await prettier.format(job.source, job.options) });
  } catch (error) {
    parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) });
  }
});
`;

export class FormatPool {
  private worker: Worker | undefined;
  private readonly queue: Job[] = [];
  /** The job the worker is formatting, if any. */
  private inWorker: Job | undefined;
  /** Called whenever the worker finishes or gives up a job. */
  private onWorkerIdle: (() => void) | undefined;

  /** `useWorker: false` (or a single-core machine) formats everything on this thread. */
  constructor(tsParser: string, useWorker = true) {
    if (!useWorker || availableParallelism() < 2) return;
    try {
      const prettier = createRequire(import.meta.url).resolve('prettier');
      const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { prettier, tsParser } });
      worker.unref();
      worker.on('message', (message: { text?: string; error?: string }) => this.settle(message));
      worker.on('error', (error) => this.abandonWorker(error));
      this.worker = worker;
    } catch {
      this.worker = undefined;
    }
  }

  /** Queues a file; the worker takes it at once when idle. */
  submit(source: string, options: Options): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      this.queue.push({ source, options, resolve, reject });
      this.feedWorker();
    });
  }

  /** Formats queued files on this thread until the queue is empty (the worker keeps taking its share). */
  async drain(formatHere: (source: string, options: Options) => Promise<string>): Promise<void> {
    for (;;) {
      const job = this.queue.shift();
      if (job) {
        try {
          job.resolve(await formatHere(job.source, job.options));
        } catch (error) {
          job.reject(error);
        }
        continue;
      }
      if (!this.inWorker) return;
      // Wait for the worker: should it die, its job comes back to the queue and is formatted here.
      await new Promise<void>((resolve) => (this.onWorkerIdle = resolve));
    }
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = undefined;
    if (worker) await worker.terminate();
  }

  private feedWorker(): void {
    if (!this.worker || this.inWorker) return;
    const job = this.queue.shift();
    if (!job) return;
    this.inWorker = job;
    this.worker.postMessage({ source: job.source, options: job.options });
  }

  private settle(message: { text?: string; error?: string }): void {
    const job = this.inWorker;
    this.inWorker = undefined;
    if (message.text !== undefined) job?.resolve(message.text);
    else job?.reject(new Error(message.error ?? 'prettier failed in the format worker'));
    this.feedWorker();
    this.notifyIdle();
  }

  private notifyIdle(): void {
    const notify = this.onWorkerIdle;
    this.onWorkerIdle = undefined;
    notify?.();
  }

  /** A worker that died hands its job back to the queue; this thread formats the rest. */
  private abandonWorker(_error: Error): void {
    this.worker = undefined;
    if (this.inWorker) this.queue.unshift(this.inWorker);
    this.inWorker = undefined;
    this.notifyIdle();
  }
}
