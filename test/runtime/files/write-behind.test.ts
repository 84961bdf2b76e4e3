import { describe, expect, it } from 'vitest';
import { WriteBehind, type WritableFile } from '../../../runtime/files/disks/write-behind.js';

interface Deferred {
  promise: Promise<void>;
  resolve(): void;
  reject(error: unknown): void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<void>((yes, no) => {
    resolve = yes;
    reject = no;
  });
  return { promise, resolve, reject };
}

/**
 * A file whose writes and flushes finish only when the test says so (or at once when `instant`), taking at
 * most `maxBytesPerWrite` bytes per gathered write, and keeping what it was given in order.
 */
class FakeFile implements WritableFile {
  readonly writes: number[][] = [];
  readonly syncs: Deferred[] = [];
  readonly bytes: number[] = [];
  readonly pendingWrites: Deferred[] = [];
  writesInFlight = 0;
  constructor(private readonly options: { instant?: boolean; maxBytesPerWrite?: number } = {}) {}

  async writev(buffers: readonly Uint8Array[]): Promise<{ bytesWritten: number }> {
    this.writes.push(buffers.map((buffer) => buffer.byteLength));
    this.writesInFlight += 1;
    try {
      if (this.options.instant !== true) {
        const gate = deferred();
        this.pendingWrites.push(gate);
        await gate.promise;
      }
      let budget = this.options.maxBytesPerWrite ?? Infinity;
      let written = 0;
      for (const buffer of buffers) {
        const taken = Math.min(buffer.byteLength, budget);
        this.bytes.push(...buffer.subarray(0, taken));
        written += taken;
        budget -= taken;
        if (taken < buffer.byteLength) break;
      }
      return { bytesWritten: written };
    } finally {
      this.writesInFlight -= 1;
    }
  }

  datasync(): Promise<void> {
    const gate = deferred();
    this.syncs.push(gate);
    if (this.options.instant === true) gate.resolve();
    return gate.promise;
  }

  /** Lets the oldest pending write finish, then lets the writer go on. */
  async releaseWrite(): Promise<void> {
    this.pendingWrites.shift()!.resolve();
    await settle();
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve));
const bytes = (...values: number[]) => Uint8Array.from(values);
const NO_SYNC = { maxQueuedBytes: 1024, maxQueuedChunks: 1024, syncEveryBytes: Infinity };

/** Whether `promise` has settled by the time pending callbacks ran. */
async function isSettled(promise: Promise<unknown>): Promise<boolean> {
  let settled = false;
  promise.then(
    () => (settled = true),
    () => (settled = true),
  );
  await settle();
  return settled;
}

describe('WriteBehind', () => {
  it('writes what arrives during a write in one gathered write, in order', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, NO_SYNC);
    await writer.write(bytes(1, 2));
    // The first chunk is being written; these three wait behind it and answer at once.
    await writer.write(bytes(3));
    await writer.write(bytes(4, 5));
    await writer.write(bytes(6));
    expect(file.writes).toEqual([[2]]);
    await file.releaseWrite();
    expect(file.writes).toEqual([[2], [1, 2, 1]]);
    await file.releaseWrite();
    const finished = writer.finish();
    await settle();
    file.syncs[0]!.resolve();
    await finished;
    expect(file.bytes).toEqual([1, 2, 3, 4, 5, 6]);
    expect(file.writesInFlight).toBe(0);
  });

  it('makes the reader wait once more than maxQueuedBytes are waiting', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, {
      maxQueuedBytes: 4,
      maxQueuedChunks: 1024,
      syncEveryBytes: Infinity,
    });
    await writer.write(bytes(1, 2, 3));
    await writer.write(bytes(4, 5, 6, 7));
    const third = writer.write(bytes(8));
    // Five bytes wait behind the write in flight: over the bound, so the reader is held.
    expect(await isSettled(third)).toBe(false);
    await file.releaseWrite();
    expect(await isSettled(third)).toBe(false);
    await file.releaseWrite();
    expect(await isSettled(third)).toBe(true);
    expect(file.bytes).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('makes the reader wait once more than maxQueuedChunks are waiting, however small they are', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, {
      maxQueuedBytes: 1024,
      maxQueuedChunks: 3,
      syncEveryBytes: Infinity,
    });
    await writer.write(bytes(0));
    for (let value = 1; value <= 3; value++) await writer.write(bytes(value));
    // Three one-byte chunks wait behind the write in flight; a fourth is one too many.
    const fifth = writer.write(bytes(4));
    expect(await isSettled(fifth)).toBe(false);
    await file.releaseWrite();
    await file.releaseWrite();
    expect(await isSettled(fifth)).toBe(true);
    expect(file.writes).toEqual([[1], [1, 1, 1, 1]]);
  });

  it('writes the rest of a gathered write the file took only part of', async () => {
    const file = new FakeFile({ instant: true, maxBytesPerWrite: 3 });
    const writer = new WriteBehind(file, NO_SYNC);
    const chunks = [bytes(1, 2), bytes(3, 4, 5, 6, 7), bytes(8), bytes(9, 10, 11, 12)];
    for (const chunk of chunks) await writer.write(chunk);
    await writer.finish();
    expect(file.bytes).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
  });

  it('fails the next write and the finish with the error of a failed write, and flushes nothing', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, NO_SYNC);
    const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
    await writer.write(bytes(1));
    await writer.write(bytes(2));
    file.pendingWrites.shift()!.reject(full);
    await settle();
    await expect(writer.write(bytes(3))).rejects.toBe(full);
    await expect(writer.finish()).rejects.toBe(full);
    // The chunk queued behind the failed write was never written.
    expect(file.writes).toEqual([[1]]);
    expect(file.syncs).toHaveLength(0);
  });

  it('abandon drops what waits and answers only once the write in flight is over', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, NO_SYNC);
    await writer.write(bytes(1));
    await writer.write(bytes(2));
    const abandoned = writer.abandon();
    expect(await isSettled(abandoned)).toBe(false);
    expect(file.writesInFlight).toBe(1);
    await file.releaseWrite();
    await abandoned;
    expect(file.writesInFlight).toBe(0);
    expect(file.writes).toEqual([[1]]);
    await expect(writer.write(bytes(3))).rejects.toThrow(/after abandon/);
  });

  it('flushes in the background every syncEveryBytes, and finish waits for that flush before its own', async () => {
    const file = new FakeFile();
    const writer = new WriteBehind(file, { maxQueuedBytes: 1024, maxQueuedChunks: 1024, syncEveryBytes: 4 });
    await writer.write(bytes(1, 2, 3));
    await file.releaseWrite();
    expect(file.syncs).toHaveLength(0);
    await writer.write(bytes(4, 5));
    await file.releaseWrite();
    // Five bytes written: one flush started, and writing goes on while it runs.
    expect(file.syncs).toHaveLength(1);
    await writer.write(bytes(6, 7, 8, 9, 10));
    expect(file.writes).toHaveLength(3);
    await file.releaseWrite();
    // Still one: a second flush never starts while the first runs.
    expect(file.syncs).toHaveLength(1);
    const finished = writer.finish();
    expect(await isSettled(finished)).toBe(false);
    expect(file.syncs).toHaveLength(1);
    file.syncs[0]!.resolve();
    await settle();
    // The final flush comes after the background one.
    expect(file.syncs).toHaveLength(2);
    file.syncs[1]!.resolve();
    await finished;
  });

  it('fails the finish when a background flush failed', async () => {
    const file = new FakeFile({ instant: true });
    const writer = new WriteBehind(file, { maxQueuedBytes: 1024, maxQueuedChunks: 1024, syncEveryBytes: 1 });
    const broken = new Error('I/O error');
    let flushes = 0;
    file.datasync = () => {
      flushes += 1;
      return Promise.reject(broken);
    };
    await writer.write(bytes(1));
    await settle();
    expect(flushes).toBe(1);
    await expect(writer.write(bytes(2))).rejects.toBe(broken);
    await expect(writer.finish()).rejects.toBe(broken);
    // The failed background flush is the answer; finish does not flush again.
    expect(flushes).toBe(1);
  });

  it('refuses to spin on a file that takes no bytes', async () => {
    const file: WritableFile = {
      writev: async () => ({ bytesWritten: 0 }),
      datasync: async () => undefined,
    };
    const writer = new WriteBehind(file, NO_SYNC);
    await writer.write(bytes(1));
    await settle();
    await expect(writer.finish()).rejects.toThrow(/took no bytes/);
  });
});
