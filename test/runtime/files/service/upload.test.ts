// upload(): names, declared length, size cap, type decisions with real samples, streamed forms, abort, and
// "nothing written" on every refusal (memory disk usage, a local disk's directory listing).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { localDisk } from '../../../../runtime/files/disks/index.js';
import { SNIFF_WINDOW_BYTES } from '../../../../runtime/files/sniff/index.js';
import { createFileService } from '../../../../runtime/files/service/service.js';
import { MemoryFileStore } from '../../../../runtime/files/store/memory-store.js';
import { listTree } from '../disk-helpers.js';
import { exe, html, png } from '../sniff-samples.js';
import { buf, setup, trackedSource } from './helpers.js';

describe('upload basics', () => {
  it('stores the bytes and a full record with size, checksum and sanitised name', async () => {
    const { service, disk, store } = setup();
    const record = await service.upload(buf('hello'), {
      name: '../../etc/pass\u0000wd.txt',
      contentType: 'text/plain',
      uploadedBy: 'u1',
    });
    expect(record).toMatchObject({
      name: 'passwd.txt',
      contentType: 'text/plain',
      size: 5,
      checksum: createHash('sha256').update('hello').digest('hex'),
      tenantId: '@single',
      uploadedBy: 'u1',
      path: `@single/${record.id}`,
    });
    expect(record.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(new Date(record.createdAt).toISOString()).toBe(record.createdAt);
    expect((await disk.get(record.path)).toString()).toBe('hello');
    expect(await store.get('@single', record.id)).toEqual(record);
  });

  it('names a file whose name sanitises to nothing "file", and defaults the type to octet-stream', async () => {
    const { service } = setup();
    const record = await service.upload(buf('x'), { name: '..' });
    expect(record.name).toBe('file');
    expect(record.contentType).toBe('application/octet-stream');
  });

  it.each([-1, 1.5, Infinity, NaN, Number.MAX_SAFE_INTEGER + 1])(
    'refuses contentLength %s with STORAGE_CONTENT_LENGTH_INVALID before reading',
    async (contentLength) => {
      const { service, disk } = setup();
      const { source, state } = trackedSource([buf('abc')]);
      await expect(service.upload(source, { name: 'a', contentLength })).rejects.toMatchObject({
        status: 400,
        code: 'STORAGE_CONTENT_LENGTH_INVALID',
      });
      expect(state.pulled).toBe(0);
      expect(state.cancelled).toBe(true);
      expect(disk.usedBytes()).toBe(0);
    },
  );

  it('refuses a declared contentLength over maxSize with 413 before reading, cancelling the source', async () => {
    const { service, disk } = setup({ validate: { maxSize: 10 } });
    const { source, state } = trackedSource([buf('abc')]);
    await expect(service.upload(source, { name: 'a', contentLength: 11 })).rejects.toMatchObject({
      status: 413,
      code: 'FILE_TOO_LARGE',
    });
    expect(state.pulled).toBe(0);
    expect(state.cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(0);
  });

  it('refuses a stream past maxSize as it arrives, cancels it and writes nothing', async () => {
    const { service, disk, store } = setup({ validate: { maxSize: 10 } });
    const { source, state } = trackedSource([buf('123456'), buf('789012'), buf('more'), buf('more')]);
    await expect(service.upload(source, { name: 'a' })).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    expect(state.pulled).toBe(2);
    expect(state.cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(0);
    expect(await store.list('@single')).toEqual([]);
  });

  it('refuses a buffer over maxSize', async () => {
    const { service, disk } = setup({ validate: { maxSize: 4 } });
    await expect(service.upload(buf('12345'), { name: 'a' })).rejects.toMatchObject({
      code: 'FILE_TOO_LARGE',
    });
    expect(disk.usedBytes()).toBe(0);
  });

  it.each([
    ['shorter', 10],
    ['longer', 3],
  ])(
    'refuses a body %s than contentLength with STORAGE_CONTENT_LENGTH_MISMATCH',
    async (_, contentLength) => {
      const { service, disk, store } = setup();
      for (const content of [Readable.from([buf('abcd'), buf('ef')]), buf('abcdef')]) {
        await expect(service.upload(content, { name: 'a', contentLength })).rejects.toMatchObject({
          status: 400,
          code: 'STORAGE_CONTENT_LENGTH_MISMATCH',
        });
      }
      expect(disk.usedBytes()).toBe(0);
      expect(await store.list('@single')).toEqual([]);
    },
  );

  it('accepts every content form: Buffer, Uint8Array, Node Readable, web stream, async iterable', async () => {
    const { service, disk } = setup({ validate: { sniff: true } });
    async function* generator() {
      yield png.subarray(0, 10);
      yield png.subarray(10);
    }
    const forms = [
      Buffer.from(png),
      new Uint8Array(png),
      Readable.from([Buffer.from(png)]),
      new Blob([png]).stream(),
      generator(),
    ];
    for (const content of forms) {
      const record = await service.upload(content, { name: 'p.png', contentType: 'image/png' });
      expect(record.size).toBe(png.byteLength);
      expect(Buffer.from(await disk.get(record.path)).equals(Buffer.from(png))).toBe(true);
    }
  });
});

describe('upload sniffing', () => {
  it('stores a PNG as image/png', async () => {
    const { service } = setup({ validate: { sniff: true } });
    const record = await service.upload(Readable.from([Buffer.from(png)]), {
      name: 'a.png',
      contentType: 'image/png',
    });
    expect(record.contentType).toBe('image/png');
    expect(record.metadata).toBeUndefined();
  });

  it('promotes a PNG declared as octet-stream and keeps the claim in metadata.declaredType', async () => {
    const { service } = setup({ validate: { sniff: true } });
    const record = await service.upload(Readable.from([Buffer.from(png)]), {
      name: 'a.bin',
      contentType: 'application/octet-stream',
    });
    expect(record.contentType).toBe('image/png');
    expect(record.metadata).toEqual({ declaredType: 'application/octet-stream' });
  });

  it.each([
    ['HTML declared image/png', html, 'image/png', 'FILE_TYPE_MISMATCH'],
    ['an executable declared application/pdf', exe, 'application/pdf', 'FILE_TYPE_MISMATCH'],
    ['HTML declared octet-stream', html, 'application/octet-stream', 'FILE_TYPE_NOT_ALLOWED'],
  ])('refuses %s, writes nothing and cancels the source', async (_, sample, contentType, code) => {
    const { service, disk, store } = setup({ validate: { sniff: true } });
    const { source, state } = trackedSource([Buffer.from(sample), Buffer.alloc(SNIFF_WINDOW_BYTES)]);
    await expect(service.upload(source, { name: 'x', contentType })).rejects.toMatchObject({
      status: 415,
      code,
    });
    expect(state.cancelled).toBe(true);
    expect(state.pulled).toBe(2);
    expect(disk.usedBytes()).toBe(0);
    expect(await store.list('@single')).toEqual([]);
  });

  it('gives a custom sniffer at most the first 64 KiB and stores its answer', async () => {
    const seen: number[] = [];
    const { service } = setup({
      validate: {
        sniff: (window) => {
          seen.push(window.byteLength);
          return 'image/png';
        },
      },
    });
    const chunks = [Buffer.alloc(40_000), Buffer.alloc(40_000), Buffer.alloc(40_000)];
    const record = await service.upload(Readable.from(chunks), { name: 'a', contentType: 'image/png' });
    expect(seen).toEqual([SNIFF_WINDOW_BYTES]);
    expect(record.size).toBe(120_000);
    expect(record.contentType).toBe('image/png');
  });

  it('refuses a type outside allowedTypes before reading when sniffing is off', async () => {
    const { service, disk } = setup({ validate: { allowedTypes: ['image/*'] } });
    const { source, state } = trackedSource([buf('a')]);
    await expect(service.upload(source, { name: 'x', contentType: 'text/plain' })).rejects.toMatchObject({
      code: 'FILE_TYPE_NOT_ALLOWED',
    });
    expect(state.pulled).toBe(0);
    expect(disk.usedBytes()).toBe(0);
    expect((await service.upload(buf('a'), { name: 'y', contentType: 'image/png' })).contentType).toBe(
      'image/png',
    );
  });

  it("the caller's allowedTypes narrow the service's, judged on the detected type, keeping nothing on refusal", async () => {
    const { service, disk, store } = setup({
      validate: { sniff: true, allowedTypes: ['image/png', 'text/plain'] },
      maxTotalBytes: 10_000,
    });
    const only = { allowedTypes: ['image/*'] };
    const promoted = await service.upload(Readable.from([Buffer.from(png)]), {
      name: 'a',
      contentType: 'application/octet-stream',
      ...only,
    });
    expect(promoted.contentType).toBe('image/png');
    await service.delete(promoted.id);
    // Allowed by the service, not by the caller.
    await expect(
      service.upload(Readable.from([buf('hello')]), { name: 'b', contentType: 'text/plain', ...only }),
    ).rejects.toMatchObject({
      status: 415,
      code: 'FILE_TYPE_NOT_ALLOWED',
      details: { contentType: 'text/plain' },
    });
    // Allowed by the caller (image/*), not by the service (only image/png): the caller cannot widen it.
    await expect(
      service.upload(Readable.from([buf('GIF89a')]), { name: 'c', contentType: 'image/gif', ...only }),
    ).rejects.toMatchObject({ code: 'FILE_TYPE_NOT_ALLOWED' });
    expect(disk.usedBytes()).toBe(0);
    expect(await store.usedBytes('@single', Date.now())).toBe(0);
    expect(await store.list('@single')).toEqual([]);
    // `*/*` takes whatever the service does.
    const any = await service.upload(buf('hello'), {
      name: 'd',
      contentType: 'text/plain',
      allowedTypes: ['*/*'],
    });
    expect(any.contentType).toBe('text/plain');
  });

  it.each([[['image/**']], ['image/*'], [[42]]])(
    'refuses allowedTypes %j as a programming error',
    async (allowedTypes) => {
      const { service } = setup();
      await expect(
        service.upload(buf('x'), { name: 'a', allowedTypes: allowedTypes as string[] }),
      ).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    },
  );

  it('holds only the sniff window: the disk receives bytes before the source is read to the end', async () => {
    const { service, disk } = setup({ validate: { sniff: true, maxSize: 4 * 1024 * 1024 } });
    const chunk = 16 * 1024;
    const total = 64;
    let pulled = 0;
    let pulledWhenFirstWritten = -1;
    const original = disk.put.bind(disk);
    disk.put = (key, content, options) => {
      async function* spy() {
        for await (const piece of content as AsyncIterable<Uint8Array>) {
          if (pulledWhenFirstWritten < 0) pulledWhenFirstWritten = pulled;
          yield piece;
        }
      }
      return original(key, spy(), options);
    };
    async function* source() {
      for (let i = 0; i < total; i++) {
        pulled++;
        yield i === 0
          ? Buffer.concat([Buffer.from(png), Buffer.alloc(chunk - png.byteLength)])
          : Buffer.alloc(chunk);
      }
    }
    const record = await service.upload(source(), { name: 'big.png', contentType: 'image/png' });
    expect(record.size).toBe(chunk * total);
    // The window is 64 KiB: four 16 KiB chunks, then the bytes flow.
    expect(pulledWhenFirstWritten).toBe(SNIFF_WINDOW_BYTES / chunk);
  });
});

describe('upload failures keep nothing', () => {
  it.each([
    ['while streaming to the disk', false],
    ['while holding the sniff window', true],
  ])('an abort through input.signal %s keeps nothing and cancels the source', async (_, sniff) => {
    const { service, disk, store } = setup({ validate: { sniff } });
    let cancelled = false;
    const controller = new AbortController();
    let pulls = 0;
    let stalledPull: () => void = () => undefined;
    const stalled = new Promise<void>((resolve) => (stalledPull = resolve));
    // One chunk, then a sender that goes quiet: the abort must end the upload without it.
    const source = new ReadableStream<Uint8Array>(
      {
        pull(c) {
          if (pulls++ === 0) return void c.enqueue(buf('first'));
          stalledPull();
          return new Promise(() => undefined);
        },
        cancel: () => void (cancelled = true),
      },
      { highWaterMark: 0 },
    );
    const upload = service.upload(source, { name: 'a', signal: controller.signal });
    await stalled;
    controller.abort(new Error('client went away'));
    await expect(upload).rejects.toThrow('client went away');
    expect(cancelled).toBe(true);
    expect(disk.usedBytes()).toBe(0);
    expect(await store.list('@single')).toEqual([]);
  });

  it('deletes the written object when the record cannot be committed, and propagates the error', async () => {
    const store = new MemoryFileStore({ maxRecords: 1 });
    const { service, disk } = setup({ store });
    await service.upload(buf('one'), { name: 'a' });
    await expect(service.upload(buf('two'), { name: 'b' })).rejects.toMatchObject({
      code: 'FILE_STORE_FULL',
    });
    expect(disk.usedBytes()).toBe(3);
    expect(await store.list('@single')).toHaveLength(1);
  });

  it('a failing source leaves nothing', async () => {
    const { service, disk } = setup();
    async function* broken() {
      yield buf('abc');
      throw new Error('source broke');
    }
    await expect(service.upload(broken(), { name: 'a' })).rejects.toThrow('source broke');
    expect(disk.usedBytes()).toBe(0);
  });
});

describe('upload on a local disk', () => {
  let base: string;
  beforeEach(async () => {
    base = await mkdtemp(join(tmpdir(), 'svc-file-service-'));
  });
  afterEach(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('writes <tenant>/<id> and leaves no file on any refusal', async () => {
    const root = join(base, 'files');
    const store = new MemoryFileStore();
    const service = createFileService({
      disk: localDisk({ root }),
      store,
      validate: { sniff: true, maxSize: 100_000 },
      maxTotalBytes: 200_000,
    });
    const acme = service.forContext({ tenant: { id: 'org:acme', role: 'owner' } });
    const record = await acme.upload(Readable.from([Buffer.from(png)]), {
      name: 'a.png',
      contentType: 'image/png',
    });
    const folder = `=${Buffer.from('org:acme').toString('base64url')}`;
    expect(await listTree(root)).toEqual([folder, `${folder}/${record.id}`]);

    await expect(
      acme.upload(Readable.from([Buffer.from(html)]), { name: 'x', contentType: 'image/png' }),
    ).rejects.toMatchObject({ code: 'FILE_TYPE_MISMATCH' });
    await expect(
      acme.upload(Readable.from([Buffer.alloc(60_000), Buffer.alloc(60_000)]), { name: 'big' }),
    ).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    await expect(
      acme.upload(Readable.from([buf('abc')]), { name: 'x', contentLength: 5 }),
    ).rejects.toMatchObject({ code: 'STORAGE_CONTENT_LENGTH_MISMATCH' });
    expect(await listTree(root)).toEqual([folder, `${folder}/${record.id}`]);
    expect(await store.usedBytes('org:acme', Date.now())).toBe(png.byteLength);
  });
});
