// The upload's content as the service reads it: pulled one chunk at a time (the sniff window first, the rest
// straight into the disk), cancellable at any moment through the stream's own handle, even while a read is
// pending. The disk's reader (readContent) keeps the size, length, cap and abort rules; the service only
// needs to hold the first chunks back and to stop the sender when it refuses the upload.
import { contentNotBytes } from '../disks/disk-errors.js';
import { chunkSource, nextOrAbort } from '../disks/content-source.js';
import type { DiskContent } from '../disks/disk.js';

export interface ContentSource {
  /** The next chunk, or null at the end; rejects with the signal's reason as soon as it aborts. */
  next(signal?: AbortSignal): Promise<Uint8Array | null>;
  /** Stops the sender (destroy, cancel, return); harmless when the content ended already. */
  cancel(): void;
}

/** A source over any content form a disk accepts; a byte array is one chunk. */
export function openSource(content: DiskContent): ContentSource {
  const reader = chunkSource(content);
  return {
    async next(signal) {
      signal?.throwIfAborted();
      const step = await nextOrAbort(reader.iterator, signal);
      if (step.done === true) return null;
      if (!(step.value instanceof Uint8Array)) throw contentNotBytes();
      return step.value;
    },
    cancel: reader.cancel,
  };
}

/**
 * Reads chunks until `bytes` are held or the content ends: the sniff window. Chunks are kept as they came
 * (the last may run past `bytes`), so they can be handed on to the disk unchanged.
 */
export async function readWindow(
  source: ContentSource,
  bytes: number,
  signal: AbortSignal | undefined,
): Promise<Uint8Array[]> {
  const chunks: Uint8Array[] = [];
  let held = 0;
  while (held < bytes) {
    const chunk = await source.next(signal);
    if (chunk === null) break;
    chunks.push(chunk);
    held += chunk.byteLength;
  }
  return chunks;
}

/**
 * The content handed to the disk: the held chunks, then the rest of the source. `beforeChunk` runs before
 * each chunk is given out (the quota grows there, so no byte is written before it is covered). When the disk
 * stops reading early it calls `return`, which cancels the sender.
 */
export function chainedContent(
  held: readonly Uint8Array[],
  source: ContentSource,
  beforeChunk: (chunk: Uint8Array) => Promise<void>,
): AsyncIterable<Uint8Array> {
  let index = 0;
  const iterator: AsyncIterator<Uint8Array> = {
    async next() {
      const chunk = index < held.length ? held[index++]! : await source.next();
      if (chunk === null) return { done: true, value: undefined };
      await beforeChunk(chunk);
      return { done: false, value: chunk };
    },
    async return() {
      source.cancel();
      return { done: true, value: undefined };
    },
  };
  return { [Symbol.asyncIterator]: () => iterator };
}
