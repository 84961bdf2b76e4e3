// The upload bench's own instruments: the generated multipart body must be one well-formed file part of exactly
// the requested size (else the bench measures a failing upload), and the peak tracker must see memory growth.
import busboy from 'busboy';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { residentBytes, trackPeak } from '../../bench/lib/memory.js';
import { multipartSource } from '../../bench/lib/multipart-source.js';

const MIB = 1024 ** 2;

async function collect(seed: number, fileBytes: number) {
  const source = multipartSource(fileBytes, seed);
  const parser = busboy({ headers: { 'content-type': source.contentType } });
  const files: { field: string; bytes: number; sha: string }[] = [];
  let sent = 0;
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('file', (field, stream) => {
      const hash = createHash('sha256');
      let bytes = 0;
      stream.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        hash.update(chunk);
      });
      stream.on('end', () => files.push({ field, bytes, sha: hash.digest('hex') }));
    });
    parser.on('close', resolve);
    parser.on('error', reject);
  });
  source.stream.on('data', (chunk: Buffer) => (sent += chunk.length));
  source.stream.pipe(parser);
  await parsed;
  return { files, sent, contentLength: source.contentLength };
}

describe('multipartSource', () => {
  it('is one file part of exactly the requested size, and Content-Length counts every byte sent', async () => {
    const { files, sent, contentLength } = await collect(1, 3 * MIB + 4);
    expect(files).toHaveLength(1);
    expect(files[0]).toMatchObject({ field: 'file', bytes: 3 * MIB + 4 });
    expect(sent).toBe(contentLength);
  });

  it('makes the same bytes for the same seed and different bytes for another', async () => {
    const [a, b, c] = await Promise.all([collect(7, MIB), collect(7, MIB), collect(8, MIB)]);
    expect(a.files[0]!.sha).toBe(b.files[0]!.sha);
    expect(a.files[0]!.sha).not.toBe(c.files[0]!.sha);
  });

  it('refuses a size the generator cannot fill exactly', () => {
    expect(() => multipartSource(3, 1)).toThrow(/multiple of 4/);
  });
});

describe('trackPeak', () => {
  it('reports a peak at least as high as memory allocated while it ran', async () => {
    const before = residentBytes(process.pid);
    const tracker = trackPeak(process.pid);
    const held = Buffer.alloc(64 * MIB, 1);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const peak = tracker.stop();
    expect(held.length).toBe(64 * MIB);
    expect(peak - before).toBeGreaterThanOrEqual(48 * MIB);
  });
});
