// `memoryDisk()`: a disk held in the process, for tests and development. It keeps the contract of every disk
// (checked keys, all-or-nothing writes, streamed reads), so code tested against it behaves the same on a
// real one; its bytes vanish with the process.
import { Readable } from 'node:stream';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import type { Disk, DiskContent, DiskPutOptions, DiskPutResult } from './disk.js';
import { objectMissing, tooLarge } from './disk-errors.js';
import { putLimits, readContent } from './read-content.js';
import { assertStorageKey } from './storage-key.js';

export interface MemoryDiskOptions {
  /**
   * The most bytes the disk holds at once, over all objects (default: no cap). A write that would pass it
   * is cancelled as soon as it would, with 413 FILE_TOO_LARGE (`details.limit: 'disk.maxBytes'`); the
   * object it replaces counts as freed.
   */
  maxBytes?: number;
}

const OPTION_KEYS = optionKeys<MemoryDiskOptions>({ maxBytes: true });
const OWNER = 'memoryDisk()';
/** Chunk size of `getStream`, like a file read stream's. */
const STREAM_CHUNK_BYTES = 64 * 1024;

export interface MemoryDisk extends Disk {
  readonly driver: 'memory';
  readonly canStream: true;
  getStream(key: string): Promise<Readable>;
  size(key: string): Promise<number | null>;
  /** Bytes held now, over all objects. */
  usedBytes(): number;
}

export function memoryDisk(options: MemoryDiskOptions = {}): MemoryDisk {
  if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
  rejectUnknownOptions(options, OPTION_KEYS, OWNER);
  const { maxBytes = Infinity } = options;
  if (maxBytes !== Infinity && !(Number.isSafeInteger(maxBytes) && maxBytes >= 0)) {
    throw invalidOption(OWNER, 'maxBytes', 'a whole number, 0 or more, or Infinity');
  }
  const objects = new Map<string, Buffer>();
  let used = 0;
  // Bytes promised to writes in flight, so parallel writes cannot pass the cap together.
  let reserved = 0;

  const read = (key: string): Buffer => {
    assertStorageKey(key);
    const object = objects.get(key);
    if (object === undefined) throw objectMissing();
    return object;
  };

  return {
    driver: 'memory',
    canStream: true,

    async put(key: string, content: DiskContent, putOptions?: DiskPutOptions): Promise<DiskPutResult> {
      assertStorageKey(key);
      const limits = putLimits('memoryDisk().put()', putOptions);
      const chunks: Buffer[] = [];
      let taken = 0;
      const freed = objects.get(key)?.byteLength ?? 0;
      try {
        const result = await readContent(content, limits, (chunk) => {
          if (used + reserved + chunk.byteLength - Math.min(freed, taken + chunk.byteLength) > maxBytes) {
            throw tooLarge('disk.maxBytes');
          }
          taken += chunk.byteLength;
          reserved += chunk.byteLength;
          // A copy: a chunk may be a view into a larger buffer (a socket read), which keeping it would pin.
          chunks.push(Buffer.from(chunk));
        });
        const previous = objects.get(key)?.byteLength ?? 0;
        objects.set(key, Buffer.concat(chunks, result.size));
        used += result.size - previous;
        return result;
      } finally {
        reserved -= taken;
      }
    },

    async get(key: string): Promise<Buffer> {
      return Buffer.from(read(key));
    },

    async getStream(key: string): Promise<Readable> {
      const object = read(key);
      return Readable.from(slices(object), { objectMode: false });
    },

    async delete(key: string): Promise<boolean> {
      assertStorageKey(key);
      const object = objects.get(key);
      if (object === undefined) return false;
      objects.delete(key);
      used -= object.byteLength;
      return true;
    },

    async exists(key: string): Promise<boolean> {
      assertStorageKey(key);
      return objects.has(key);
    },

    async size(key: string): Promise<number | null> {
      assertStorageKey(key);
      return objects.get(key)?.byteLength ?? null;
    },

    usedBytes: () => used,
  };
}

function* slices(object: Buffer): Generator<Buffer> {
  for (let offset = 0; offset < object.byteLength; offset += STREAM_CHUNK_BYTES) {
    // Copies, so a consumer that writes into a chunk cannot change the stored object.
    yield Buffer.from(object.subarray(offset, offset + STREAM_CHUNK_BYTES));
  }
}
