// Every stream form a disk accepts, read one way: an iterator over its chunks and a cancel that stops the
// sender through the stream's own handle (destroy, reader.cancel) rather than the iterator's `return`, which
// waits behind a stalled read. Shared by the disks' content reader and the file service's upload path.
import { Readable } from 'node:stream';
import { contentNotBytes } from './disk-errors.js';
import type { DiskContent } from './disk.js';

/** A source being read: its chunks, and how to stop it, which works even while a read is pending. */
export interface ChunkSource {
  iterator: AsyncIterator<unknown>;
  cancel(): void;
}

/** A source over any streamed content form; a byte array is one chunk. Not bytes at all: 500, content-not-bytes. */
export function chunkSource(input: DiskContent): ChunkSource {
  // Checked by shape: a caller's value may be any of the forms whatever its static type.
  const content: unknown = input;
  if (content instanceof Uint8Array) {
    let done = false;
    const iterator: AsyncIterator<unknown> = {
      next: async () => {
        if (done) return { done: true, value: undefined };
        done = true;
        return { done: false, value: content };
      },
    };
    return { iterator, cancel: () => (done = true) };
  }
  if (content === null || typeof content !== 'object') throw contentNotBytes();
  if (content instanceof Readable) {
    return { iterator: content[Symbol.asyncIterator](), cancel: () => content.destroy() };
  }
  if (isWebStream(content)) {
    const reader = content.getReader();
    return {
      iterator: { next: () => reader.read() as Promise<IteratorResult<unknown>> },
      cancel: () => void reader.cancel().catch(() => undefined),
    };
  }
  if (isAsyncIterable(content)) {
    const iterator = content[Symbol.asyncIterator]();
    return { iterator, cancel: () => void Promise.resolve(iterator.return?.()).catch(() => undefined) };
  }
  if (isNodeStream(content)) return chunkSource(new Readable().wrap(content));
  throw contentNotBytes();
}

function isAsyncIterable(value: object): value is AsyncIterable<unknown> {
  return typeof (value as Partial<AsyncIterable<unknown>>)[Symbol.asyncIterator] === 'function';
}

function isWebStream(value: object): value is ReadableStream<Uint8Array> {
  return typeof (value as Partial<ReadableStream>).getReader === 'function';
}

function isNodeStream(value: object): value is NodeJS.ReadableStream {
  const stream = value as Partial<NodeJS.ReadableStream>;
  return typeof stream.on === 'function' && typeof stream.pause === 'function';
}

/** The next chunk, or the signal's reason as soon as it aborts, whichever comes first. */
export function nextOrAbort(
  iterator: AsyncIterator<unknown>,
  signal: AbortSignal | undefined,
): Promise<IteratorResult<unknown>> {
  const next = iterator.next();
  if (signal === undefined) return next;
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    next.then(
      (step) => {
        signal.removeEventListener('abort', onAbort);
        resolve(step);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
