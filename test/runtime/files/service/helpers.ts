// Shared pieces of the file service tests: a service on a memory disk, sources that record being cancelled,
// and a disk wrapper that counts reads.
import { collectingLogger } from '../../../../runtime/log/collecting-logger.js';
import { memoryDisk, type MemoryDisk } from '../../../../runtime/files/disks/index.js';
import type { Disk } from '../../../../runtime/files/disks/disk.js';
import type { FileServiceOptions } from '../../../../runtime/files/service/api.js';
import { createFileService } from '../../../../runtime/files/service/service.js';
import { MemoryFileStore } from '../../../../runtime/files/store/memory-store.js';

export const SIGNING_KEY = new Uint8Array(32).fill(7);

export function setup(options: Partial<FileServiceOptions> = {}) {
  const disk: MemoryDisk = memoryDisk();
  const store = new MemoryFileStore();
  const logger = collectingLogger();
  const service = createFileService({ disk, store, logger, ...options });
  return { disk, store, logger, service };
}

/** A source of `chunks` that records how many were pulled and whether it was cancelled (return()). */
export function trackedSource(chunks: Uint8Array[]) {
  const state = { pulled: 0, cancelled: false };
  const source: AsyncIterable<Uint8Array> = {
    [Symbol.asyncIterator]() {
      return {
        async next() {
          if (state.cancelled) return { done: true, value: undefined };
          const chunk = chunks[state.pulled];
          if (chunk === undefined) return { done: true, value: undefined };
          state.pulled++;
          return { done: false, value: chunk };
        },
        async return() {
          state.cancelled = true;
          return { done: true, value: undefined };
        },
      };
    },
  };
  return { source, state };
}

/** A disk that counts get/getStream calls (to prove a refusal read no byte). */
export function countingDisk(inner: Disk = memoryDisk()) {
  const reads = { get: 0, getStream: 0 };
  const disk: Disk = {
    driver: inner.driver,
    canStream: inner.canStream,
    put: (key, content, options) => inner.put(key, content, options),
    get: (key) => {
      reads.get++;
      return inner.get(key);
    },
    getStream: async (key) => {
      reads.getStream++;
      return inner.getStream!(key);
    },
    delete: (key) => inner.delete(key),
    exists: (key) => inner.exists(key),
  };
  return { disk, reads };
}

export const buf = (text: string) => Buffer.from(text);
