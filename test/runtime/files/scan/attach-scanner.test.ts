// The scanner runner on the real file service with quarantine on, against a real clamd: what a user relies on
// is that an infected upload never becomes downloadable, a clean one does, and a scanner that is down leaves
// files quarantined with the reason recorded, without failing the upload.
import { createServer } from 'node:net';
import { once } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryDisk, type Disk } from '../../../../runtime/files/disks/index.js';
import { INTERNAL_SCAN_KEY, type FileRecord } from '../../../../runtime/files/record.js';
import {
  attachScanner,
  clamdScanner,
  type FileScanner,
  type ScanResult,
} from '../../../../runtime/files/scan/index.js';
import type { FileService } from '../../../../runtime/files/service/api.js';
import { createFileService } from '../../../../runtime/files/service/service.js';
import { collectingLogger } from '../../../../runtime/log/index.js';
import { startClamd, type TestClamd } from '../../../helpers/clamd.js';

const MARKER = Buffer.from('svc-scan-test: this marker stands in for malware');
const INFECTED = Buffer.concat([Buffer.from('%PDF-1.7 looks harmless\n'), MARKER, Buffer.from('\n%%EOF')]);
const CLEAN = Buffer.from('quarterly numbers, nothing to see\n');

let clamd: TestClamd;
beforeAll(async () => {
  clamd = await startClamd({ signatures: [{ name: 'Svc.Test.Marker', bytes: MARKER }] });
});
afterAll(() => clamd?.stop());

function quarantinedService(disk: Disk = memoryDisk()): FileService {
  return createFileService({ disk, requireScan: true, logger: collectingLogger() });
}

async function upload(files: FileService, content: Buffer, name = 'report.pdf'): Promise<FileRecord> {
  return files.upload(content, { name, contentType: 'application/pdf' });
}

function scanProblemOf(record: FileRecord): unknown {
  return record.metadata?.[INTERNAL_SCAN_KEY];
}

describe('attachScanner with clamd', () => {
  it('keeps an infected upload refused with 403 FILE_INFECTED and records the signature server side', async () => {
    const files = quarantinedService();
    const logger = collectingLogger();
    const runner = attachScanner(files, clamdScanner({ url: clamd.url }), { logger });
    const { id } = await upload(files, INFECTED);
    await runner.idle();

    const record = await files.get(id);
    expect(record.scan).toEqual({ clean: false, detail: 'Svc.Test.Marker.UNOFFICIAL' });
    expect(files.toPublicFile(record).scan).toEqual({ clean: false });
    await expect(files.download(id)).rejects.toMatchObject({ code: 'FILE_INFECTED', status: 403 });
    await expect(files.downloadStream(id)).rejects.toMatchObject({ code: 'FILE_INFECTED', status: 403 });
    expect(logger.at('warn')).toEqual([
      expect.objectContaining({
        msg: 'file scan found malware',
        fields: expect.objectContaining({ fileId: id }),
      }),
    ]);
  });

  it('does not hold the upload for the scan, then releases a clean file', async () => {
    const files = quarantinedService();
    const runner = attachScanner(files, clamdScanner({ url: clamd.url }), { logger: collectingLogger() });
    const { id } = await upload(files, CLEAN);
    // The upload answered before clamd did: the file is still quarantined.
    await expect(files.download(id)).rejects.toMatchObject({ code: 'FILE_NOT_SCANNED', status: 423 });
    await runner.idle();

    expect((await files.get(id)).scan).toEqual({ clean: true });
    expect((await files.download(id)).content.equals(CLEAN)).toBe(true);
  });

  it('reads the file with download() when the disk cannot stream', async () => {
    const { getStream: _unused, ...rest } = memoryDisk();
    const bufferedOnly: Disk = { ...rest, canStream: false };
    const files = quarantinedService(bufferedOnly);
    expect(files.canStreamDownloads()).toBe(false);
    const runner = attachScanner(files, clamdScanner({ url: clamd.url }), { logger: collectingLogger() });
    const infected = await upload(files, INFECTED);
    const clean = await upload(files, CLEAN);
    await runner.idle();
    expect((await files.get(infected.id)).scan?.clean).toBe(false);
    expect((await files.get(clean.id)).scan?.clean).toBe(true);
  });

  it('does not send a file over maxStreamBytes and records too-large-for-scanner', async () => {
    const files = quarantinedService();
    const logger = collectingLogger();
    const runner = attachScanner(files, clamdScanner({ url: clamd.url, maxStreamBytes: 16 }), { logger });
    const { id } = await upload(files, CLEAN);
    await runner.idle();

    const record = await files.get(id);
    expect(record.scan).toBeUndefined();
    expect(scanProblemOf(record)).toMatchObject({ reason: 'too-large-for-scanner' });
    expect(files.toPublicFile(record).metadata).toBeUndefined();
    await expect(files.download(id)).rejects.toMatchObject({ code: 'FILE_NOT_SCANNED' });
    expect(logger.at('warn')[0]?.fields).toMatchObject({ fileId: id, reason: 'too-large-for-scanner' });
  });

  it('records scanner-unavailable for a clamd that is not there, then scanPending settles the file', async () => {
    const closed = createServer();
    closed.listen(0, '127.0.0.1');
    await once(closed, 'listening');
    const { port } = closed.address() as { port: number };
    await new Promise((resolve) => closed.close(resolve));

    const files = quarantinedService();
    const logger = collectingLogger();
    const down = attachScanner(files, clamdScanner({ url: `clamd://127.0.0.1:${port}` }), { logger });
    const clean = await upload(files, CLEAN);
    const infected = await upload(files, INFECTED);
    await down.idle();
    down.detach();
    expect(scanProblemOf(await files.get(clean.id))).toMatchObject({ reason: 'scanner-unavailable' });
    await expect(files.download(clean.id)).rejects.toMatchObject({ code: 'FILE_NOT_SCANNED', status: 423 });
    expect(logger.at('warn')).toHaveLength(2);

    const up = attachScanner(files, clamdScanner({ url: clamd.url }), { logger: collectingLogger() });
    await expect(up.scanPending()).resolves.toEqual({ clean: 1, infected: 1, problems: 0, skipped: 0 });
    const settled = await files.get(clean.id);
    expect(settled.scan).toEqual({ clean: true });
    // The verdict clears the problem it settles.
    expect(scanProblemOf(settled)).toBeUndefined();
    expect((await files.get(infected.id)).scan?.clean).toBe(false);
    await expect(up.rescan('00000000-0000-4000-8000-000000000000')).rejects.toMatchObject({
      code: 'FILE_NOT_FOUND',
    });
  });

  it('runs at most `concurrency` scans at once and never blocks an upload', async () => {
    let running = 0;
    let most = 0;
    const release: (() => void)[] = [];
    const gated: FileScanner = {
      name: 'gated',
      maxStreamBytes: 1024,
      concurrency: 2,
      async scan(content): Promise<ScanResult> {
        running++;
        most = Math.max(most, running);
        for await (const _chunk of content instanceof Uint8Array ? [content] : content) void _chunk;
        await new Promise<void>((resolve) => release.push(resolve));
        running--;
        return { verdict: 'clean' };
      },
    };
    const files = quarantinedService();
    const runner = attachScanner(files, gated, { logger: collectingLogger() });
    for (let i = 0; i < 5; i++) await upload(files, CLEAN, `file-${i}.pdf`);
    while (release.length < 2) await new Promise((resolve) => setImmediate(resolve));
    expect(running).toBe(2);
    while (release.length > 0 || running > 0) {
      release.shift()?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await runner.idle();
    expect(most).toBe(2);
    const scanned = await files.list();
    expect(scanned).toHaveLength(5);
    expect(scanned.every((record) => record.scan?.clean === true)).toBe(true);
  });
});

// Last: stops this file's clamd.
describe('attachScanner when clamd has stopped', () => {
  it('leaves new uploads quarantined with the reason recorded, the upload succeeding', async () => {
    await clamd.stop();
    const files = quarantinedService();
    const logger = collectingLogger();
    const runner = attachScanner(files, clamdScanner({ url: clamd.url, timeoutMs: 1_000 }), { logger });
    const { id } = await upload(files, CLEAN);
    await runner.idle();

    const record = await files.get(id);
    expect(record.scan).toBeUndefined();
    expect(scanProblemOf(record)).toMatchObject({ reason: 'scanner-unavailable', at: expect.any(String) });
    await expect(files.download(id)).rejects.toMatchObject({ code: 'FILE_NOT_SCANNED', status: 423 });
    expect(logger.at('warn')[0]).toMatchObject({
      msg: 'file scan gave no verdict; the file stays quarantined',
      fields: { fileId: id, reason: 'scanner-unavailable' },
    });
    expect(logger.at('error')).toEqual([]);
  });
});
