// A 50 MiB file generated on the fly (every chunk a fresh allocation, as from a socket), stored through a
// slow writer: the bytes arrive intact and memory stays bounded, because nothing is read ahead of the disk.
import { createHash } from 'node:crypto';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { BOUNDARY, sessionOf } from './multipart.js';

const MiB = 1024 * 1024;
const CHUNK = 64 * 1024;
const FILE_BYTES = 50 * MiB;

/** The body: headers, FILE_BYTES of a CR-rich pattern, close delimiter; produced chunk by chunk. */
function generatedBody(): { stream: Readable; expectedHash: string; produced(): number } {
  const head = Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="big"; filename="big.bin"\r\n\r\n`,
  );
  const tail = Buffer.from(`\r\n--${BOUNDARY}--\r\n`);
  // Dense in CR, LF and dashes, so the delimiter search meets near-misses in every chunk.
  const period = Buffer.from(`\r\n-\r\n--${BOUNDARY.slice(0, 7)}\r\r\n--x`.repeat(64) + 'data');
  const pattern = Buffer.alloc(CHUNK + period.length);
  for (let at = 0; at < pattern.length; at += period.length) period.copy(pattern, at);
  const hash = createHash('sha256');
  let produced = 0;
  // The bytes depend only on their offset in the file, so any chunking yields the same file.
  const fileChunk = (size: number) => {
    const offset = produced % period.length;
    const chunk = Buffer.from(pattern.subarray(offset, offset + size));
    produced += size;
    return chunk;
  };
  for (let at = 0; at < FILE_BYTES; at += CHUNK) hash.update(fileChunk(Math.min(CHUNK, FILE_BYTES - at)));
  const expectedHash = hash.digest('hex');
  produced = 0;
  let sentHead = false;
  let sentTail = false;
  const stream = new Readable({
    highWaterMark: CHUNK,
    read() {
      if (!sentHead) {
        sentHead = true;
        this.push(Buffer.concat([head, fileChunk(CHUNK - head.length)]));
      } else if (produced < FILE_BYTES) {
        this.push(fileChunk(Math.min(CHUNK, FILE_BYTES - produced)));
      } else if (!sentTail) {
        sentTail = true;
        this.push(tail);
      } else {
        this.push(null);
      }
    },
  });
  return { stream, expectedHash, produced: () => produced };
}

describe('a 50 MiB upload', () => {
  it('arrives byte for byte with bounded memory', async () => {
    const { stream, expectedHash, produced } = generatedBody();
    let maxAhead = 0;
    const hash = createHash('sha256');
    let size = 0;
    const disk = new Writable({
      highWaterMark: 16 * 1024,
      write(chunk: Buffer, _encoding, callback) {
        hash.update(chunk);
        size += chunk.length;
        // Bytes produced but not yet written: everything held in the source, the parser and the file stream.
        maxAhead = Math.max(maxAhead, produced() - size);
        // A disk slower than the producer: backpressure has to hold the request back.
        setImmediate(callback);
      },
    });
    const session = sessionOf(stream, { limits: { maxBytes: 64 * MiB } });
    for await (const file of session.body.files) await pipeline(file.stream, disk);
    expect(size).toBe(FILE_BYTES);
    expect(hash.digest('hex')).toBe(expectedHash);
    expect(await session.finish()).toEqual({ complete: true });
    // Without backpressure most of the 50 MiB would sit in the file stream's buffer.
    expect(maxAhead).toBeLessThan(512 * 1024);
  });
});
