// A first-in, first-out queue running at most `concurrency` tasks at once. Scans wait here rather than all
// opening a download and a clamd connection together when many files arrive at once.

export class TaskQueue {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly concurrency: number) {}

  /** Tasks started or waiting. */
  get size(): number {
    return this.running + this.waiting.length;
  }

  /** Runs `task` once a slot is free; settles as the task does. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      this.release();
    }
  }

  /** Resolves once no task runs or waits (at once when there is none). */
  idle(): Promise<void> {
    if (this.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    // The slot passes straight to the next task, so `running` stays as it is.
    if (next !== undefined) return next();
    this.running--;
    if (this.running === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }
}
