// One file part as the session tracks it: the UploadedFile the handler gets, its stream, and whether the
// stream wants more bytes (backpressure) and has received its last one.
import { Readable } from 'node:stream';
import type { UploadedFile } from '../types.js';
import type { PartHeaders } from './part-headers.js';

/** Buffered bytes per file stream before the request is paused: one typical socket read. */
export const FILE_STREAM_HIGH_WATER_MARK = 64 * 1024;

/** A file part's declared type when it sent no Content-Type. */
export const DEFAULT_FILE_TYPE = 'application/octet-stream';

export class FileEntry {
  readonly file: UploadedFile;
  readonly stream: Readable;
  /** The part's last byte was pushed (or the stream was given up). */
  ended = false;
  /** False after a push hit the high-water mark, until the consumer reads again. */
  wantsData = true;

  /**
   * `onRead` runs when the consumer asks for bytes; `onClose` when the stream is destroyed by anyone (the
   * handler giving it up, or the session skipping or failing it).
   */
  constructor(
    headers: PartHeaders,
    sizeAtMost: number | undefined,
    onRead: (entry: FileEntry) => void,
    onClose: (entry: FileEntry) => void,
  ) {
    this.stream = new Readable({
      highWaterMark: FILE_STREAM_HIGH_WATER_MARK,
      read: () => {
        this.wantsData = true;
        onRead(this);
      },
    });
    // The session reports every failure through the iterator too; a handler that listens only there must
    // not crash the process with an unhandled 'error' event.
    this.stream.on('error', () => undefined);
    this.stream.once('close', () => onClose(this));
    const file: UploadedFile = {
      field: headers.name,
      filename: headers.filename ?? '',
      declaredType: headers.contentType ?? DEFAULT_FILE_TYPE,
      stream: this.stream,
    };
    if (headers.contentLength !== undefined) file.declaredLength = headers.contentLength;
    if (sizeAtMost !== undefined) file.sizeAtMost = sizeAtMost;
    this.file = file;
  }

  get declaredType(): string {
    return this.file.declaredType;
  }

  /** Hands part bytes to the stream; past the high-water mark the entry stops wanting data until a read. */
  push(data: Buffer): void {
    // Given up by the handler: 'close' (which switches the session to discarding) is still on its way.
    if (this.stream.destroyed) return;
    if (!this.stream.push(data)) this.wantsData = false;
  }

  /** The part ended: the stream ends once the consumer read what is buffered. */
  finish(): void {
    this.ended = true;
    this.stream.push(null);
  }

  /** Stops the stream before its part ended: without an error when skipped, with one when the upload failed. */
  abandon(error?: Error): void {
    this.ended = true;
    if (!this.stream.destroyed) this.stream.destroy(error);
  }
}
