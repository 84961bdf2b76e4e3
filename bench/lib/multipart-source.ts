// A multipart/form-data request body with one file part, made on the fly: the file's bytes come from a seeded
// xorshift generator, 64 KiB at a time, so a 1 GiB upload needs neither a 1 GiB file nor a 1 GiB buffer, and
// the bytes cannot be compressed or deduplicated anywhere on the way.
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';

export const CHUNK_BYTES = 64 * 1024;

export interface MultipartSource {
  stream: Readable;
  contentType: string;
  /** Bytes of the whole request body: part headers, file and closing boundary. */
  contentLength: number;
}

/** Fills `chunk` with pseudo-random bytes (xorshift32, four bytes per step); returns the next state. */
function fillRandom(chunk: Buffer, state: number): number {
  const words = new Uint32Array(chunk.buffer, chunk.byteOffset, chunk.length >>> 2);
  let x = state;
  for (let i = 0; i < words.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    words[i] = x;
  }
  return x;
}

/**
 * The body of a form with one file field `file` of `fileBytes` bytes. `onFirstByte` runs when the first chunk
 * is handed to the request, which is where the bench starts its clock.
 */
export function multipartSource(fileBytes: number, seed: number, onFirstByte?: () => void): MultipartSource {
  if (fileBytes % 4 !== 0) throw new Error('fileBytes must be a multiple of 4');
  const boundary = `svc-bench-${randomBytes(12).toString('hex')}`;
  const head = Buffer.from(
    `--${boundary}\r\n` +
      'Content-Disposition: form-data; name="file"; filename="random.bin"\r\n' +
      'Content-Type: application/octet-stream\r\n\r\n',
  );
  const tail = Buffer.from(`\r\n--${boundary}--\r\n`);
  let state = seed >>> 0 || 0x9e3779b9; // xorshift must not start at 0
  let remaining = fileBytes;
  let started = false;
  const stream = new Readable({
    highWaterMark: CHUNK_BYTES * 2,
    read() {
      if (!started) {
        started = true;
        onFirstByte?.();
        this.push(head);
        return;
      }
      if (remaining === 0) {
        this.push(tail);
        this.push(null);
        return;
      }
      // A fresh buffer per chunk: the socket may still hold the previous one when the next is made.
      const chunk = Buffer.allocUnsafe(Math.min(CHUNK_BYTES, remaining));
      state = fillRandom(chunk, state);
      remaining -= chunk.length;
      this.push(chunk);
    },
  });
  return {
    stream,
    contentType: `multipart/form-data; boundary=${boundary}`,
    contentLength: head.length + fileBytes + tail.length,
  };
}
