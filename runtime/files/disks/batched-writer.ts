// Streamed writes to a file in large batches. Chunks are copied into a batch buffer; a full batch is written
// with one call while the next one fills, with at most one write in flight, so a stream of 64 KiB chunks
// costs one thread-pool round trip per MiB instead of one per chunk, and the source is never pulled more
// than two batches ahead of the disk. Chunks are copied rather than referenced so that a caller may reuse
// its buffer as soon as `add` resolved. A failed write surfaces at the next `add` that needs the disk or at
// `finish`; `settle` waits out a write still in flight so the file can be closed and removed safely.
import type { FileHandle } from 'node:fs/promises';

/** A batch of 1 MiB: large enough to amortise the round trip, small enough to keep memory flat. */
export const WRITE_BATCH_BYTES = 1024 * 1024;

/** The part of a file handle the writer uses. */
export type BatchTarget = Pick<FileHandle, 'write'>;

export class BatchedFileWriter {
  readonly #target: BatchTarget;
  readonly #batchBytes: number;
  /** The batch being filled, and how many of its bytes are taken. */
  #filling: Buffer | undefined;
  #filled = 0;
  /** A written batch kept for reuse, so the writer holds two buffers at most. */
  #spare: Buffer | undefined;
  /** The batch write in flight; it never rejects, its failure is kept in `#failure`. */
  #inFlight: Promise<void> | undefined;
  #failure: { error: unknown } | undefined;

  constructor(target: BatchTarget, batchBytes: number = WRITE_BATCH_BYTES) {
    if (!Number.isSafeInteger(batchBytes) || batchBytes <= 0) throw new RangeError('batchBytes must be positive');
    this.#target = target;
    this.#batchBytes = batchBytes;
  }

  /** Copies the chunk into batches, handing each full one to the disk; resolves once every byte is copied. */
  async add(chunk: Uint8Array): Promise<void> {
    let offset = 0;
    while (offset < chunk.byteLength) {
      const batch = this.#batch();
      const count = Math.min(chunk.byteLength - offset, this.#batchBytes - this.#filled);
      batch.set(chunk.subarray(offset, offset + count), this.#filled);
      this.#filled += count;
      offset += count;
      if (this.#filled === this.#batchBytes) await this.#handOff();
    }
  }

  /** Writes what is left once the earlier batch is on disk; rejects with any write's failure. */
  async finish(): Promise<void> {
    await this.#previousWrite();
    const batch = this.#filling;
    const length = this.#filled;
    this.#filling = undefined;
    this.#spare = undefined;
    this.#filled = 0;
    if (batch !== undefined && length > 0) await writeAll(this.#target, batch, length);
  }

  /** Waits for a write still in flight, whatever its outcome: the caller is giving up on the file. */
  async settle(): Promise<void> {
    await this.#inFlight;
    this.#filling = undefined;
    this.#spare = undefined;
  }

  #batch(): Buffer {
    if (this.#filling === undefined) {
      this.#filling = this.#spare ?? Buffer.allocUnsafe(this.#batchBytes);
      this.#spare = undefined;
    }
    return this.#filling;
  }

  /** Starts writing the full batch once the previous write is done; does not wait for the new one. */
  async #handOff(): Promise<void> {
    await this.#previousWrite();
    const batch = this.#filling as Buffer;
    const length = this.#filled;
    this.#filling = undefined;
    this.#filled = 0;
    this.#inFlight = writeAll(this.#target, batch, length).then(
      () => {
        this.#spare = batch;
      },
      (error: unknown) => {
        this.#failure = { error };
      },
    );
  }

  async #previousWrite(): Promise<void> {
    await this.#inFlight;
    this.#inFlight = undefined;
    if (this.#failure !== undefined) throw this.#failure.error;
  }
}

/** Writes `length` bytes of the buffer: a file write may take fewer bytes than offered. */
async function writeAll(target: BatchTarget, buffer: Buffer, length: number): Promise<void> {
  let offset = 0;
  while (offset < length) {
    const { bytesWritten } = await target.write(buffer, offset, length - offset);
    offset += bytesWritten;
  }
}
