// The disk contract, run against every built-in driver: what the file service relies on from any disk.
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { canStream, localDisk, memoryDisk, type Disk } from '../../../runtime/files/disks/index.js';
import { bytes, failingSource, recordingSource } from './disk-helpers.js';

const sha256 = (content: Uint8Array): string => createHash('sha256').update(content).digest('hex');

async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const drivers: [string, (root: string) => Disk][] = [
  ['local', (root) => localDisk({ root })],
  ['memory', () => memoryDisk()],
];

describe.each(drivers)('%s disk', (_name, makeDisk) => {
  let root: string;
  let disk: Disk;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'svc-disk-'));
    disk = makeDisk(join(root, 'files'));
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const content = bytes('hello, disk — ünïcode and more');
  const parts = [content.subarray(0, 5), content.subarray(5, 12), content.subarray(12)];

  it.each([
    ['a buffer', () => Buffer.from(content)],
    ['a byte array', () => new Uint8Array(content)],
    ['a Node readable', () => Readable.from(parts.map((part) => Buffer.from(part)))],
    ['an async iterable', () => recordingSource(parts).source],
    [
      'a web stream',
      () =>
        new ReadableStream<Uint8Array>({
          start(controller) {
            for (const part of parts) controller.enqueue(part);
            controller.close();
          },
        }),
    ],
  ])('stores %s and reads it back whole and streamed, with size and SHA-256 hex', async (_form, source) => {
    const result = await disk.put('tenant-1/file-1', source());
    expect(result).toEqual({ size: content.byteLength, checksum: sha256(content) });
    expect(result.checksum).toMatch(/^[0-9a-f]{64}$/);
    expect(await disk.get('tenant-1/file-1')).toEqual(Buffer.from(content));
    expect(canStream(disk)).toBe(true);
    if (!canStream(disk)) return;
    expect(await collect(await disk.getStream('tenant-1/file-1'))).toEqual(Buffer.from(content));
    expect(await disk.exists('tenant-1/file-1')).toBe(true);
    expect(await disk.size?.('tenant-1/file-1')).toBe(content.byteLength);
  });

  it('stores an empty object', async () => {
    expect(await disk.put('t/empty', new Uint8Array(0))).toEqual({
      size: 0,
      checksum: sha256(new Uint8Array(0)),
    });
    expect((await disk.get('t/empty')).byteLength).toBe(0);
  });

  it('replaces an object under the same key', async () => {
    await disk.put('t/f', bytes('first version'));
    await disk.put('t/f', bytes('second'));
    expect((await disk.get('t/f')).toString()).toBe('second');
  });

  it('accepts a matching contentLength', async () => {
    expect(
      (await disk.put('t/f', recordingSource(parts).source, { contentLength: content.byteLength })).size,
    ).toBe(content.byteLength);
  });

  it.each([-1, 1.5, Number.NaN, Infinity, -Infinity, Number.MAX_SAFE_INTEGER + 1, '10' as unknown as number])(
    'refuses contentLength %s with 400 STORAGE_CONTENT_LENGTH_INVALID before reading',
    async (contentLength) => {
      const { source, reads } = recordingSource(parts);
      await expect(disk.put('t/f', source, { contentLength })).rejects.toMatchObject({
        status: 400,
        code: 'STORAGE_CONTENT_LENGTH_INVALID',
      });
      expect(reads()).toBe(0);
      expect(await disk.exists('t/f')).toBe(false);
    },
  );

  it.each([
    ['more', content.byteLength - 1],
    ['fewer', content.byteLength + 1],
  ])(
    'refuses a body carrying %s bytes than declared with 400 STORAGE_CONTENT_LENGTH_MISMATCH',
    async (_, declared) => {
      await expect(
        disk.put('t/f', recordingSource(parts).source, { contentLength: declared }),
      ).rejects.toMatchObject({
        status: 400,
        code: 'STORAGE_CONTENT_LENGTH_MISMATCH',
      });
      await expect(disk.put('t/g', Buffer.from(content), { contentLength: declared })).rejects.toMatchObject({
        code: 'STORAGE_CONTENT_LENGTH_MISMATCH',
      });
      expect(await disk.exists('t/f')).toBe(false);
      expect(await disk.exists('t/g')).toBe(false);
    },
  );

  it('cancels the source as soon as it passes the declared length', async () => {
    let cancelled = false;
    let pulls = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls++;
        controller.enqueue(new Uint8Array(1024));
      },
      cancel() {
        cancelled = true;
      },
    });
    await expect(disk.put('t/f', stream, { contentLength: 4096 })).rejects.toMatchObject({
      code: 'STORAGE_CONTENT_LENGTH_MISMATCH',
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled).toBe(true);
    expect(pulls).toBeLessThan(10);
    expect(await disk.exists('t/f')).toBe(false);
  });

  it('refuses a write past its maxBytes with 413 FILE_TOO_LARGE and stores nothing', async () => {
    const source = Readable.from([Buffer.alloc(1000), Buffer.alloc(1000), Buffer.alloc(1000)]);
    await expect(disk.put('t/f', source, { maxBytes: 1500 })).rejects.toMatchObject({
      status: 413,
      code: 'FILE_TOO_LARGE',
      details: { limit: 'maxBytes' },
    });
    expect(source.destroyed).toBe(true);
    expect(await disk.exists('t/f')).toBe(false);
    expect((await disk.put('t/f', Buffer.alloc(1500), { maxBytes: 1500 })).size).toBe(1500);
  });

  it('keeps nothing when the source fails half-way, and keeps the earlier object', async () => {
    await expect(disk.put('t/new', failingSource(parts))).rejects.toThrow('source broke');
    expect(await disk.exists('t/new')).toBe(false);
    await disk.put('t/old', bytes('kept'));
    await expect(disk.put('t/old', failingSource(parts))).rejects.toThrow('source broke');
    expect((await disk.get('t/old')).toString()).toBe('kept');
  });

  it('stops on abort, even while the source is stalled, and cancels the source', async () => {
    const source = new Readable({ read() {} });
    source.push(Buffer.from('first chunk'));
    const controller = new AbortController();
    const writing = disk.put('t/f', source, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    const reason = new Error('client went away');
    controller.abort(reason);
    await expect(writing).rejects.toBe(reason);
    await new Promise((resolve) => setImmediate(resolve));
    expect(source.destroyed).toBe(true);
    expect(await disk.exists('t/f')).toBe(false);
  });

  it('cancels a stalled web stream on abort', async () => {
    let cancelled = false;
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(10));
      },
      cancel() {
        cancelled = true;
      },
    });
    const controller = new AbortController();
    const writing = disk.put('t/f', stream, { signal: controller.signal });
    await new Promise((resolve) => setTimeout(resolve, 20));
    controller.abort();
    await expect(writing).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((resolve) => setImmediate(resolve));
    expect(cancelled).toBe(true);
    expect(await disk.exists('t/f')).toBe(false);
  });

  it('reads nothing when the signal is already aborted', async () => {
    const { source, reads } = recordingSource(parts);
    await expect(disk.put('t/f', source, { signal: AbortSignal.abort() })).rejects.toMatchObject({
      name: 'AbortError',
    });
    expect(reads()).toBe(0);
  });

  it('refuses chunks that are not bytes', async () => {
    await expect(disk.put('t/f', Readable.from(['text'], { objectMode: true }))).rejects.toMatchObject({
      status: 500,
      details: { reason: 'storage-content-not-bytes' },
    });
    for (const notContent of ['text', null, 42, {}]) {
      await expect(disk.put('t/f', notContent as never)).rejects.toMatchObject({
        details: { reason: 'storage-content-not-bytes' },
      });
    }
    expect(await disk.exists('t/f')).toBe(false);
  });

  it('deletes, answering false the second time', async () => {
    await disk.put('t/f', bytes('x'));
    expect(await disk.delete('t/f')).toBe(true);
    expect(await disk.exists('t/f')).toBe(false);
    expect(await disk.delete('t/f')).toBe(false);
    expect(await disk.delete('never/was')).toBe(false);
  });

  it('answers 404 FILE_NOT_FOUND for a missing object, whole or streamed', async () => {
    await expect(disk.get('t/missing')).rejects.toMatchObject({ status: 404, code: 'FILE_NOT_FOUND' });
    await expect(disk.getStream?.('t/missing')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
    expect(await disk.size?.('t/missing')).toBeNull();
    expect(await disk.exists('t/missing')).toBe(false);
  });

  it.each([
    ['a parent segment', 't/../../etc/passwd'],
    ['a lone parent', '..'],
    ['a dot segment', 't/./f'],
    ['a hidden name', 't/.tmp-abc'],
    ['an absolute path', '/etc/passwd'],
    ['a trailing slash', 't/f/'],
    ['an empty segment', 't//f'],
    ['a NUL byte', 't/f\0.txt'],
    ['a backslash', 't\\..\\..\\f'],
    ['a Windows drive', 'C:\\f'],
    ['an encoded parent', 't/%2e%2e/f'],
    ['a space', 't/f g'],
    ['a non-ASCII character', 't/ｆ'],
    ['an empty key', ''],
    ['a too long key', `t/${'a'.repeat(1100)}`],
    ['a too long segment', `t/${'a'.repeat(256)}`],
  ])('refuses a key with %s for every operation', async (_, key) => {
    const refused = { status: 500, code: 'INTERNAL_ERROR' };
    await expect(disk.put(key, bytes('x'))).rejects.toMatchObject(refused);
    await expect(disk.get(key)).rejects.toMatchObject(refused);
    await expect(disk.getStream?.(key)).rejects.toMatchObject(refused);
    await expect(disk.exists(key)).rejects.toMatchObject(refused);
    await expect(disk.delete(key)).rejects.toMatchObject(refused);
  });

  it('takes the keys the service makes', async () => {
    await disk.put('@single/0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b', bytes('x'));
    await disk.put('tenant_1/a.b-c=d', bytes('y'));
    expect(await disk.exists('@single/0190a3c4-5b6d-7e8f-9a0b-1c2d3e4f5a6b')).toBe(true);
    expect(await disk.exists('tenant_1/a.b-c=d')).toBe(true);
  });

  it('refuses unknown put options', async () => {
    await expect(disk.put('t/f', bytes('x'), { contentlength: 1 } as never)).rejects.toMatchObject({
      code: 'OPTION_UNKNOWN',
    });
  });
});
