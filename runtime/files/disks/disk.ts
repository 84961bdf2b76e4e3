// The storage disk contract (docs/files.md, "Disks"): what the file service asks of any backend that keeps
// bytes under a key. A driver for a new backend (an S3 bucket, say) implements these methods and nothing else;
// the service owns names, records, quotas and sniffing, and hands the disk opaque keys it made itself.
import type { Readable } from 'node:stream';

/**
 * Bytes a disk accepts: a buffer or byte array (written as is), or a stream of byte chunks in any of the
 * forms Node and the web platform produce. Streams are read once, chunk by chunk, never gathered whole. A
 * chunk handed over is the disk's from then on (it may be written after the next one is read), so a source
 * must not change or reuse it, as with any Node writable stream.
 */
export type DiskContent =
  Uint8Array | AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | NodeJS.ReadableStream;

export interface DiskPutOptions {
  /**
   * The size the sender declared. A whole number from 0 to Number.MAX_SAFE_INTEGER, else 400
   * STORAGE_CONTENT_LENGTH_INVALID before a byte is read; a body of another size is 400
   * STORAGE_CONTENT_LENGTH_MISMATCH and nothing is stored.
   */
  contentLength?: number;
  /**
   * The most bytes this write takes. Past it the source is cancelled and 413 FILE_TOO_LARGE
   * (`details.limit: 'maxBytes'`) is thrown; nothing is stored.
   */
  maxBytes?: number;
  /** Aborting stops the write, cancels the source and rejects with the signal's reason; nothing is stored. */
  signal?: AbortSignal;
}

export interface DiskPutResult {
  /** Bytes stored. */
  size: number;
  /** SHA-256 of the bytes stored, lowercase hex (64 characters), computed while they streamed. */
  checksum: string;
}

/**
 * A storage backend. Every method takes a key made by the service (`<tenant>/<id>`), checked with
 * `assertStorageKey` (storage-key.ts) before any backend call, so a key from elsewhere is refused the same
 * way by every driver.
 *
 * Writes are all-or-nothing: `put` resolves only once the whole object is stored under `key` (replacing any
 * earlier object); when it rejects (source error, abort, length mismatch, size cap) no object and no partial
 * or temporary data stay behind, and an object already under `key` is left as it was.
 */
export interface Disk {
  /** A short name of the driver (`local`, `memory`, `s3`), for logs and errors. */
  readonly driver: string;
  /** True when the driver has `getStream`; the service falls back to `get` otherwise. */
  readonly canStream: boolean;
  put(key: string, content: DiskContent, options?: DiskPutOptions): Promise<DiskPutResult>;
  /** The whole object. A missing key rejects with 404 FILE_NOT_FOUND. */
  get(key: string): Promise<Buffer>;
  /**
   * The object as a stream of chunks, opened before it resolves (a missing key rejects with 404
   * FILE_NOT_FOUND rather than failing the stream later). The caller must consume or destroy it. Optional:
   * a driver that cannot stream omits it and says `canStream: false`.
   */
  getStream?(key: string): Promise<Readable>;
  /** Removes the object: true when one was there, false when there was none. */
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
  /** The object's size in bytes, or null when there is none. Optional. */
  size?(key: string): Promise<number | null>;
}

/** A disk whose driver streams reads. */
export type StreamingDisk = Disk & { getStream(key: string): Promise<Readable> };

/** Whether `disk` can stream reads; narrows it so `getStream` may be called. */
export function canStream(disk: Disk): disk is StreamingDisk {
  return disk.canStream && typeof disk.getStream === 'function';
}
