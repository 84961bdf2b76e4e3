// Writing a file behind its reader. The reader hands chunks over and goes on reading (and hashing) while
// earlier ones are written: whatever arrives while a write is in flight goes out in the next one, as a single
// gathered write, so a fast sender costs a few large writes instead of one per network chunk (each write is
// a round trip through the thread pool, which on a busy core costs more than the copy itself). At most
// `maxQueuedBytes` in at most `maxQueuedChunks` chunks wait; past either the reader waits until they are
// written, so memory stays bounded.
//
// The flush to the device runs alongside: every `syncEveryBytes` written, one fdatasync starts in the
// background, so the device takes the file while the rest arrives and the last flush has only the tail to
// write. A failed write or flush fails the next call; `finish` and `abandon` wait for everything in flight,
// so the caller never closes or removes the file under a running write.

/** What the writer needs of an open file; Node's `FileHandle` has it. */
export interface WritableFile {
  writev(buffers: readonly Uint8Array[]): Promise<{ bytesWritten: number }>;
  datasync(): Promise<void>;
}

export interface WriteBehindOptions {
  /** Bytes handed over but not yet written beyond which `write` waits for them to be written. */
  maxQueuedBytes: number;
  /**
   * Chunks waiting beyond which `write` waits too: a sender of many tiny chunks would otherwise queue far more
   * memory (each chunk's own objects) than its bytes.
   */
  maxQueuedChunks: number;
  /** Bytes written between two background flushes; Infinity flushes only in `finish`. */
  syncEveryBytes: number;
}

export class WriteBehind {
  readonly #file: WritableFile;
  readonly #options: WriteBehindOptions;
  #queue: Uint8Array[] = [];
  #queuedBytes = 0;
  #writing: Promise<void> | null = null;
  #syncing: Promise<void> | null = null;
  #unsyncedBytes = 0;
  #failure: { error: unknown } | null = null;
  #abandoned = false;

  constructor(file: WritableFile, options: WriteBehindOptions) {
    this.#file = file;
    this.#options = options;
  }

  /**
   * Queues `chunk` to be written after those before it; answers once the queue is within its bound. The
   * chunk is written as it is when its turn comes, so the caller must not change it afterwards.
   */
  async write(chunk: Uint8Array): Promise<void> {
    this.#throwIfFailed();
    if (this.#abandoned) throw new Error('WriteBehind: write after abandon');
    this.#queue.push(chunk);
    this.#queuedBytes += chunk.byteLength;
    this.#writing ??= this.#drain();
    while (this.#overBound() && this.#writing !== null) await this.#writing;
    this.#throwIfFailed();
  }

  /** Writes what is queued, then flushes the file to the device; rejects if any write or flush failed. */
  async finish(): Promise<void> {
    await this.#settle();
    this.#throwIfFailed();
    await this.#file.datasync();
  }

  /** Drops what is queued and waits for any write or flush in flight; never rejects. */
  async abandon(): Promise<void> {
    this.#abandoned = true;
    this.#queue = [];
    this.#queuedBytes = 0;
    await this.#settle();
  }

  #overBound(): boolean {
    return (
      this.#queuedBytes > this.#options.maxQueuedBytes || this.#queue.length > this.#options.maxQueuedChunks
    );
  }

  async #settle(): Promise<void> {
    while (this.#writing !== null || this.#syncing !== null) {
      await this.#writing;
      await this.#syncing;
    }
  }

  /** Writes the queue out, a batch at a time, until it is empty; never rejects (the failure is kept). */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0 && this.#failure === null) {
        const batch = this.#queue;
        const bytes = this.#queuedBytes;
        this.#queue = [];
        this.#queuedBytes = 0;
        await writeEvery(this.#file, batch);
        this.#unsyncedBytes += bytes;
        if (this.#unsyncedBytes >= this.#options.syncEveryBytes) this.#syncInBackground();
      }
    } catch (error) {
      this.#failure ??= { error };
    } finally {
      this.#writing = null;
    }
  }

  #syncInBackground(): void {
    if (this.#syncing !== null) return;
    this.#unsyncedBytes = 0;
    this.#syncing = this.#file.datasync().then(
      () => {
        this.#syncing = null;
      },
      (error: unknown) => {
        this.#failure ??= { error };
        this.#syncing = null;
      },
    );
  }

  #throwIfFailed(): void {
    if (this.#failure !== null) throw this.#failure.error;
  }
}

/** Writes every byte of `chunks` in order: a gathered write may take fewer bytes than offered. */
async function writeEvery(file: WritableFile, chunks: Uint8Array[]): Promise<void> {
  let pending = chunks;
  while (pending.length > 0) {
    const { bytesWritten } = await file.writev(pending);
    // A regular file takes at least a byte or fails; never spin on one that does neither.
    if (bytesWritten <= 0) throw new Error('WriteBehind: the file took no bytes');
    pending = afterWritten(pending, bytesWritten);
  }
}

/** What is left of `chunks` once their first `written` bytes are out. */
function afterWritten(chunks: Uint8Array[], written: number): Uint8Array[] {
  let left = written;
  let index = 0;
  while (index < chunks.length && left >= chunks[index]!.byteLength) {
    left -= chunks[index]!.byteLength;
    index += 1;
  }
  const rest = chunks.slice(index);
  if (left > 0) rest[0] = rest[0]!.subarray(left);
  return rest;
}
