// Reading, listing and deleting within a tenant, streamed downloads, and the events.
import { Readable } from 'node:stream';
import { text } from 'node:stream/consumers';
import { describe, expect, it } from 'vitest';
import { Hooks } from '../../../../runtime/app/hooks.js';
import '../../../../runtime/files/service/events.js';
import type { Disk } from '../../../../runtime/files/disks/disk.js';
import { memoryDisk } from '../../../../runtime/files/disks/index.js';
import type { FileEventPayloads } from '../../../../runtime/files/service/api.js';
import { png } from '../sniff-samples.js';
import { buf, setup } from './helpers.js';

describe('get, list, download, delete', () => {
  it('reads a file whole and as a stream', async () => {
    const { service } = setup();
    const file = await service.upload(buf('content'), { name: 'a.txt', tenantId: 't1' });
    const { record, content } = await service.download(file.id, 't1');
    expect(record).toEqual(file);
    expect(content.toString()).toBe('content');
    const { stream } = await service.downloadStream(file.id, 't1');
    expect(await text(stream)).toBe('content');
    expect(service.canStreamDownloads()).toBe(true);
  });

  it('answers STORAGE_GET_STREAM_UNSUPPORTED on a disk that cannot stream', async () => {
    const inner = memoryDisk();
    const disk: Disk = {
      driver: 'plain',
      canStream: false,
      put: (k, c, o) => inner.put(k, c, o),
      get: (k) => inner.get(k),
      delete: (k) => inner.delete(k),
      exists: (k) => inner.exists(k),
    };
    const { service } = setup({ disk });
    const file = await service.upload(buf('x'), { name: 'a' });
    expect(service.canStreamDownloads()).toBe(false);
    await expect(service.downloadStream(file.id)).rejects.toMatchObject({
      code: 'STORAGE_GET_STREAM_UNSUPPORTED',
    });
    expect((await service.download(file.id)).content.toString()).toBe('x');
  });

  it('does not find another tenant’s file by id for any operation', async () => {
    const { service } = setup();
    const file = await service.upload(buf('secret'), { name: 'a', tenantId: 'acme' });
    const notFound = { status: 404, code: 'FILE_NOT_FOUND' };
    await expect(service.get(file.id, 'globex')).rejects.toMatchObject(notFound);
    await expect(service.download(file.id, 'globex')).rejects.toMatchObject(notFound);
    await expect(service.downloadStream(file.id, 'globex')).rejects.toMatchObject(notFound);
    await expect(service.delete(file.id, 'globex')).rejects.toMatchObject(notFound);
    await expect(service.get(file.id)).rejects.toMatchObject(notFound);
    expect(await service.list('globex')).toEqual([]);
    expect((await service.get(file.id, 'acme')).id).toBe(file.id);
  });

  it('lists in the order stored, even within one millisecond', async () => {
    const { service } = setup({ clock: () => Date.UTC(2026, 0, 1) });
    const ids = [];
    for (let i = 0; i < 20; i++) ids.push((await service.upload(buf('x'), { name: `f${i}` })).id);
    expect((await service.list()).map((f) => f.id)).toEqual(ids);
  });

  it('lists oldest first', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service } = setup({ clock: () => (now += 1000) });
    const ids = [];
    for (const name of ['a', 'b', 'c']) ids.push((await service.upload(buf(name), { name })).id);
    expect((await service.list()).map((f) => f.id)).toEqual(ids);
  });

  it('deletes bytes and record; of two concurrent deletes one wins and one event is emitted', async () => {
    const { service, disk, store } = setup();
    const deleted: FileEventPayloads['file:deleted'][] = [];
    service.on('file:deleted', (payload) => void deleted.push(payload));
    const file = await service.upload(buf('bytes'), { name: 'a', tenantId: 't1' });
    const results = await Promise.allSettled([service.delete(file.id, 't1'), service.delete(file.id, 't1')]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const loser = results.find((r) => r.status === 'rejected');
    expect(loser?.reason).toMatchObject({ code: 'FILE_NOT_FOUND' });
    expect(deleted).toEqual([{ tenantId: 't1', id: file.id }]);
    expect(disk.usedBytes()).toBe(0);
    expect(await store.get('t1', file.id)).toBeUndefined();
    await expect(service.download(file.id, 't1')).rejects.toMatchObject({ code: 'FILE_NOT_FOUND' });
  });

  it('offers the built-in sniffer and the public projection', async () => {
    const { service } = setup();
    expect(await service.sniffContentType(png)).toBe('image/png');
    const file = await service.upload(buf('x'), { name: 'a', uploadedBy: 'u1' });
    expect(Object.keys(service.toPublicFile(file)).sort()).toEqual([
      'contentType',
      'createdAt',
      'id',
      'name',
      'size',
    ]);
  });
});

describe('events', () => {
  it('emits file:uploaded with the full record after bytes and record exist', async () => {
    const { service, disk, store } = setup();
    const seen: string[] = [];
    service.on('file:uploaded', async ({ file }) => {
      expect(await disk.exists(file.path)).toBe(true);
      expect(await store.get(file.tenantId, file.id)).toEqual(file);
      expect(file.checksum).toHaveLength(64);
      seen.push(file.id);
    });
    const file = await service.upload(Readable.from([buf('x')]), { name: 'a' });
    expect(seen).toEqual([file.id]);
  });

  it('emits file:scanned with the updated record, and forContext services share subscribers', async () => {
    const { service } = setup({ requireScan: true });
    const scanned: unknown[] = [];
    service.on('file:scanned', ({ file }) => void scanned.push(file.scan));
    const scoped = service.forContext({ tenant: { id: 't1', role: 'member' } });
    const file = await scoped.upload(buf('x'), { name: 'a' });
    await scoped.markScanned(file.id, { clean: true });
    expect(scanned).toEqual([{ clean: true }]);
  });

  it('logs a throwing handler without failing the operation; unsubscribe stops delivery', async () => {
    const { service, logger, store } = setup();
    let calls = 0;
    const off = service.on('file:uploaded', () => {
      calls++;
      throw new Error('thumbnailer down');
    });
    const file = await service.upload(buf('x'), { name: 'a' });
    expect(await store.get('@single', file.id)).toBeDefined();
    expect(logger.at('error')).toHaveLength(1);
    expect(logger.at('error')[0]).toMatchObject({
      msg: 'file event handler failed',
      fields: { event: 'file:uploaded', error: { message: 'thumbnailer down' } },
    });
    off();
    await service.upload(buf('y'), { name: 'b' });
    expect(calls).toBe(1);
  });

  it('does not emit for a failed upload', async () => {
    const { service } = setup({ validate: { maxSize: 1 } });
    let emitted = false;
    service.on('file:uploaded', () => void (emitted = true));
    await expect(service.upload(buf('xx'), { name: 'a' })).rejects.toMatchObject({ code: 'FILE_TOO_LARGE' });
    expect(emitted).toBe(false);
  });

  it('declares the events on the app hook bus', async () => {
    const hooks = new Hooks();
    const { service } = setup();
    const names: string[] = [];
    hooks.on('file:uploaded', ({ file }) => void names.push(file.name));
    service.on('file:uploaded', (payload) => hooks.emit('file:uploaded', payload));
    await service.upload(buf('x'), { name: 'forwarded.txt' });
    expect(names).toEqual(['forwarded.txt']);
  });
});
