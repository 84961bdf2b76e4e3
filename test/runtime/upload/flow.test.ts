// Reading only on demand: backpressure from file streams, skipping unread files, early stops, and finish()
// draining what the handler left unread.
import { PassThrough, Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { UploadedFile } from '../../../runtime/http/types.js';
import { multipart, readStream, sessionOf, settle } from './multipart.js';

const KiB = 1024;
const MiB = 1024 * KiB;

/** Serves a body in fixed chunks and tells how many bytes were pulled so far. */
function countingSource(body: Buffer, chunkSize = 64 * KiB): Readable & { pulled(): number } {
  let offset = 0;
  const stream = new Readable({
    highWaterMark: chunkSize,
    read() {
      if (offset >= body.length) {
        this.push(null);
        return;
      }
      const chunk = body.subarray(offset, offset + chunkSize);
      offset += chunk.length;
      this.push(chunk);
    },
  });
  return Object.assign(stream, { pulled: () => offset });
}

function pattern(size: number, seed: number): Buffer {
  const data = Buffer.allocUnsafe(size);
  for (let i = 0; i < size; i++) data[i] = (i * 31 + seed) & 0xff;
  return data;
}

async function firstFile(files: AsyncIterable<UploadedFile>) {
  const iterator = files[Symbol.asyncIterator]();
  const first = await iterator.next();
  if (first.done) throw new Error('expected a file');
  return { iterator, file: first.value };
}

describe('backpressure', () => {
  it('reads nothing before the handler asks for a file', async () => {
    const source = countingSource(multipart([{ name: 'f', filename: 'f', data: pattern(MiB, 1) }]));
    sessionOf(source);
    await settle(5);
    expect(source.pulled()).toBe(0);
  });

  it('pauses the request while the file stream is full, and resumes when it is read', async () => {
    const data = pattern(10 * MiB, 2);
    const source = countingSource(multipart([{ name: 'f', filename: 'f', data }]));
    const session = sessionOf(source);
    const { iterator, file } = await firstFile(session.body.files);
    await settle(10);
    // The source's own buffer, the file stream's buffer and a chunk in flight, nothing like 10 MiB.
    expect(source.pulled()).toBeLessThanOrEqual(320 * KiB);
    expect(source.isPaused()).toBe(true);
    expect((await readStream(file.stream)).equals(data)).toBe(true);
    expect((await iterator.next()).done).toBe(true);
    expect(await session.finish()).toEqual({ complete: true });
  });

  it('keeps what is buffered bounded with a slow consumer', async () => {
    const data = pattern(8 * MiB, 3);
    const source = countingSource(multipart([{ name: 'f', filename: 'f', data }]));
    const session = sessionOf(source);
    let written = 0;
    let maxAhead = 0;
    const slowDisk = new Writable({
      highWaterMark: 16 * KiB,
      write(chunk: Buffer, _encoding, callback) {
        written += chunk.length;
        maxAhead = Math.max(maxAhead, source.pulled() - written);
        setImmediate(callback);
      },
    });
    for await (const file of session.body.files) await pipeline(file.stream, slowDisk);
    expect(written).toBe(data.length);
    expect(maxAhead).toBeLessThanOrEqual(400 * KiB);
  });
});

describe('skipping files', () => {
  it('skips the rest of a file when the next one is asked for before it was read', async () => {
    const first = pattern(2 * MiB, 4);
    const second = pattern(MiB, 5);
    const source = countingSource(
      multipart([
        { name: 'a', filename: 'a', data: first },
        { name: 'b', filename: 'b', data: second },
      ]),
    );
    const session = sessionOf(source);
    const { iterator, file } = await firstFile(session.body.files);
    let ended = false;
    file.stream.on('end', () => (ended = true));
    const next = await iterator.next();
    expect(next.done).toBe(false);
    expect(next.done ? undefined : next.value.field).toBe('b');
    expect(file.stream.destroyed).toBe(true);
    const secondData = next.done ? undefined : await readStream(next.value.stream);
    expect(secondData?.equals(second)).toBe(true);
    expect((await iterator.next()).done).toBe(true);
    expect(ended).toBe(false);
  });

  it('leaves a file whose bytes all arrived readable after the next one is asked for', async () => {
    const session = sessionOf(
      multipart([
        { name: 'a', filename: 'a', data: 'small and complete' },
        { name: 'b', filename: 'b', data: 'second' },
      ]),
    );
    const { iterator, file } = await firstFile(session.body.files);
    await settle();
    const next = await iterator.next();
    expect(next.done).toBe(false);
    expect((await readStream(file.stream)).toString()).toBe('small and complete');
  });

  it('discards the rest of a file whose stream the handler destroyed', async () => {
    const source = countingSource(
      multipart([
        { name: 'a', filename: 'a', data: pattern(3 * MiB, 6) },
        { name: 'b', filename: 'b', data: 'after' },
      ]),
    );
    const session = sessionOf(source);
    const { iterator, file } = await firstFile(session.body.files);
    file.stream.destroy();
    await settle();
    const next = await iterator.next();
    expect(next.done ? undefined : (await readStream(next.value.stream)).toString()).toBe('after');
    expect((await iterator.next()).done).toBe(true);
  });

  it('still enforces maxFileBytes on a skipped file', async () => {
    const session = sessionOf(
      multipart([
        { name: 'a', filename: 'a', data: pattern(MiB, 7) },
        { name: 'b', filename: 'b', data: 'x' },
      ]),
      { limits: { maxFileBytes: 100 * KiB } },
    );
    const { iterator } = await firstFile(session.body.files);
    await expect(iterator.next()).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('stopping early', () => {
  it('reads nothing more after the handler breaks out of the loop', async () => {
    const body = multipart([
      { name: 'a', filename: 'a', data: 'first' },
      { name: 'b', filename: 'b', data: pattern(4 * MiB, 8) },
    ]);
    const source = countingSource(body);
    const session = sessionOf(source);
    for await (const file of session.body.files) {
      expect((await readStream(file.stream)).toString()).toBe('first');
      break;
    }
    await settle(10);
    const pulled = source.pulled();
    expect(pulled).toBeLessThan(512 * KiB);
    await settle(10);
    expect(source.pulled()).toBe(pulled);
    expect(await session.body.files[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
  });
});

describe('finish()', () => {
  it('is complete when the body was read to its end', async () => {
    const session = sessionOf(multipart([{ name: 'a', filename: 'a', data: 'x' }]));
    for await (const file of session.body.files) file.stream.resume();
    expect(await session.finish()).toEqual({ complete: true });
  });

  it('skips the unread file, drains the rest without parsing and is not complete', async () => {
    const body = multipart([
      { name: 'a', filename: 'a', data: pattern(2 * MiB, 9) },
      // Malformed after the first file: draining never parses it.
      Buffer.from('garbage without headers'),
    ]);
    const source = countingSource(body);
    const session = sessionOf(source);
    const { file } = await firstFile(session.body.files);
    expect(await session.finish()).toEqual({ complete: false });
    expect(file.stream.destroyed).toBe(true);
    await new Promise((resolve) => source.once('end', resolve));
    expect(source.pulled()).toBe(body.length);
    expect(source.destroyed).toBe(true); // autoDestroy after 'end', not cut
    expect(source.readableEnded).toBe(true);
  });

  it('drains a body the handler never looked at', async () => {
    const source = countingSource(multipart([{ name: 'a', filename: 'a', data: pattern(MiB, 10) }]));
    const session = sessionOf(source);
    expect(await session.finish()).toEqual({ complete: false });
    await new Promise((resolve) => source.once('end', resolve));
  });

  it('resolves at once even when the rest of the body never comes', async () => {
    const source = new PassThrough();
    const session = sessionOf(source);
    source.write('--svc-test-boundary\r\n');
    const result = await Promise.race([
      session.finish(),
      new Promise((resolve) => setTimeout(() => resolve('blocked'), 500)),
    ]);
    expect(result).toEqual({ complete: false });
    // Bytes arriving later are drained in the background.
    source.write(Buffer.alloc(1000));
    await settle();
    expect(source.readableLength).toBe(0);
  });

  it('destroys the request once the drained total passes maxBytes', async () => {
    const source = new PassThrough();
    const session = sessionOf(source, { limits: { maxBytes: 10 * KiB } });
    source.write(Buffer.alloc(4 * KiB));
    expect(await session.finish()).toEqual({ complete: false });
    source.write(Buffer.alloc(4 * KiB));
    await settle();
    expect(source.destroyed).toBe(false);
    source.write(Buffer.alloc(4 * KiB));
    await settle();
    expect(source.destroyed).toBe(true);
  });

  it('destroys the request at once when the body already passed maxBytes', async () => {
    const source = new PassThrough();
    const session = sessionOf(source, { limits: { maxBytes: 10 * KiB } });
    const next = session.body.files[Symbol.asyncIterator]().next();
    source.write(Buffer.alloc(12 * KiB, 0x41));
    await expect(next).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    // Nothing more arrives: the cut must not wait for another chunk.
    expect(await session.finish()).toEqual({ complete: false });
    await settle();
    expect(source.destroyed).toBe(true);
  });

  it('counts a request node:http received completely as complete', async () => {
    const source = countingSource(multipart([{ name: 'a', filename: 'a', data: 'x' }]));
    Object.assign(source, { complete: true });
    const session = sessionOf(source);
    expect(await session.finish()).toEqual({ complete: true });
  });

  it('never rejects, is idempotent, and survives a request error while draining', async () => {
    const source = new PassThrough();
    const session = sessionOf(source);
    source.write('--svc-test-boundary\r\nContent-Disposition: form-data; name="a"; filename="a"\r\n\r\nxx');
    const { file } = await firstFile(session.body.files);
    const first = session.finish();
    expect(session.finish()).toBe(first);
    expect(await first).toEqual({ complete: false });
    expect(file.stream.destroyed).toBe(true);
    source.destroy(new Error('connection reset'));
    await settle();
    expect(await session.finish()).toEqual({ complete: false });
  });

  it('ends the iteration: next() answers done afterwards', async () => {
    const session = sessionOf(multipart([{ name: 'a', filename: 'a', data: 'x' }]));
    await session.finish();
    expect(await session.body.files[Symbol.asyncIterator]().next()).toEqual({ done: true, value: undefined });
  });
});
