// Quarantine under requireScan: refusals before any byte is read, the scanner's bypass, verdicts, problems.
import { describe, expect, it } from 'vitest';
import { INTERNAL_SCAN_KEY, toPublicFile } from '../../../../runtime/files/record.js';
import { png } from '../sniff-samples.js';
import { buf, countingDisk, setup, SIGNING_KEY } from './helpers.js';

function quarantined() {
  const { disk, reads } = countingDisk();
  const ctx = setup({ disk, requireScan: true, urlSigningKey: SIGNING_KEY });
  return { ...ctx, reads };
}

describe('quarantine', () => {
  it('answers 423 FILE_NOT_SCANNED for every read of an unscanned file, reading no byte', async () => {
    const { service, reads } = quarantined();
    const file = await service.upload(buf('payload'), { name: 'a' });
    const notScanned = { status: 423, code: 'FILE_NOT_SCANNED' };
    await expect(service.download(file.id)).rejects.toMatchObject(notScanned);
    await expect(service.downloadStream(file.id)).rejects.toMatchObject(notScanned);
    await expect(service.temporaryUrl(file.id, 60)).rejects.toMatchObject(notScanned);
    expect(reads).toEqual({ get: 0, getStream: 0 });
  });

  it('lets the scanner read with bypassQuarantine, then serves a clean file', async () => {
    const { service, reads } = quarantined();
    const file = await service.upload(buf('payload'), { name: 'a' });
    expect((await service.download(file.id, undefined, { bypassQuarantine: true })).content.toString()).toBe(
      'payload',
    );
    const { stream } = await service.downloadStream(file.id, undefined, { bypassQuarantine: true });
    stream.destroy();
    const scanned = await service.markScanned(file.id, { clean: true, detail: 'engine 1.0' });
    expect(scanned.scan).toEqual({ clean: true, detail: 'engine 1.0' });
    expect(new Date(scanned.scannedAt!).toISOString()).toBe(scanned.scannedAt);
    expect((await service.download(file.id)).content.toString()).toBe('payload');
    expect(reads.get).toBe(2);
  });

  it('answers 403 FILE_INFECTED after a verdict that is not clean, also for signed URLs', async () => {
    const { service, reads } = quarantined();
    const file = await service.upload(buf('evil'), { name: 'a' });
    await service.markScanned(file.id, { clean: true });
    const { url } = await service.temporaryUrl(file.id, 60);
    await service.markScanned(file.id, { clean: false, detail: 'Eicar-Test-Signature' });
    const infected = { status: 403, code: 'FILE_INFECTED' };
    await expect(service.download(file.id)).rejects.toMatchObject(infected);
    await expect(service.downloadStream(file.id)).rejects.toMatchObject(infected);
    await expect(service.temporaryUrl(file.id, 60)).rejects.toMatchObject(infected);
    const query = Object.fromEntries(new URL(url, 'http://x').searchParams) as Record<string, string>;
    await expect(service.openTemporaryUrl({ ...query, id: file.id } as never)).rejects.toMatchObject(
      infected,
    );
    expect(reads).toEqual({ get: 0, getStream: 0 });
  });

  it('noteScanProblem keeps the file quarantined; a verdict removes the entry; the public view hides it', async () => {
    const { service } = quarantined();
    const file = await service.upload(buf('x'), { name: 'a' });
    await service.noteScanProblem(file.id, 'scanner-unavailable');
    const noted = await service.get(file.id);
    expect(noted.metadata?.[INTERNAL_SCAN_KEY]).toMatchObject({ reason: 'scanner-unavailable' });
    expect(toPublicFile(noted).metadata).toBeUndefined();
    await expect(service.download(file.id)).rejects.toMatchObject({ code: 'FILE_NOT_SCANNED' });
    const scanned = await service.markScanned(file.id, { clean: true });
    expect(scanned.metadata?.[INTERNAL_SCAN_KEY]).toBeUndefined();
    expect(service.toPublicFile(scanned)).toEqual({
      id: file.id,
      name: 'a',
      contentType: 'application/octet-stream',
      size: 1,
      createdAt: file.createdAt,
      scannedAt: scanned.scannedAt,
      scan: { clean: true },
    });
  });

  it('keeps declaredType when a verdict clears the scan entry', async () => {
    const { service } = setup({ requireScan: true, validate: { sniff: true } });
    const file = await service.upload(Buffer.from(png), {
      name: 'a',
      contentType: 'application/octet-stream',
    });
    await service.noteScanProblem(file.id, 'scanner-error');
    const scanned = await service.markScanned(file.id, { clean: true });
    expect(scanned.metadata).toEqual({ declaredType: 'application/octet-stream' });
  });

  it('lists every record with its scan state, oldest first', async () => {
    let now = Date.UTC(2026, 0, 1);
    const { service } = setup({ requireScan: true, clock: () => (now += 1000) });
    const a = await service.upload(buf('a'), { name: 'a' });
    const b = await service.upload(buf('b'), { name: 'b' });
    const c = await service.upload(buf('c'), { name: 'c' });
    await service.markScanned(a.id, { clean: true });
    await service.markScanned(b.id, { clean: false });
    const listed = await service.list();
    expect(listed.map((f) => [f.id, f.scan?.clean])).toEqual([
      [a.id, true],
      [b.id, false],
      [c.id, undefined],
    ]);
  });

  it('refuses a malformed verdict or reason, and an unknown id', async () => {
    const { service } = quarantined();
    const file = await service.upload(buf('x'), { name: 'a' });
    await expect(service.markScanned(file.id, { clean: 'yes' } as never)).rejects.toMatchObject({
      code: 'OPTION_INVALID',
    });
    await expect(service.noteScanProblem(file.id, '')).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    await expect(service.markScanned('nope', { clean: true })).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
    await expect(service.markScanned(file.id, { clean: true }, 'other')).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });
});
