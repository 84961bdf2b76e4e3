// Virus scanning through HTTP on every adapter, against a real clamd: filesPlugin with `scanner:
// clamdScanner({ url })` and quarantine. An upload answers at once and stays 423 until its scan; the scan's
// verdict arrives as file:scanned on the app's hook bus (waited for, never slept on); an infected file is 403
// for good, a clean one is served. With clamd stopped, uploads still succeed, stay quarantined with the reason
// kept server side, and the service keeps answering.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clamdScanner } from '../../runtime/files/scan/index.js';
import { INTERNAL_SCAN_KEY } from '../../runtime/files/record.js';
import { startClamd, type TestClamd } from '../helpers/clamd.js';
import { bearer, get, post } from './auth-harness.js';
import { status, upload, uploadOne, withFiles } from './files-harness.js';
import { WatchedFileStore } from './files-rules-harness.js';
import { adapters } from './harness.js';

/** Stands in for EICAR: clamd is given this marker as its only signature. */
const MARKER = Buffer.from('svc-http-scan-test: this marker stands in for malware');
const INFECTED = Buffer.concat([Buffer.from('looks like notes\n'), MARKER, Buffer.from('\n')]);
const CLEAN = Buffer.from('quarterly numbers, nothing to see\n');

let clamd: TestClamd;
beforeAll(async () => {
  clamd = await startClamd({ signatures: [{ name: 'Svc.Http.Marker', bytes: MARKER }] });
});
afterAll(() => clamd?.stop());

describe.each(adapters)('file scanning with clamd over HTTP on $name', (adapter) => {
  it('an infected upload stays 403 FILE_INFECTED and a clean one becomes downloadable', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const infected = await uploadOne(server, server.alice, {
          name: 'eicar.txt',
          type: 'text/plain',
          bytes: INFECTED,
        });
        const clean = await uploadOne(server, server.alice, {
          name: 'notes.txt',
          type: 'text/plain',
          bytes: CLEAN,
        });
        await Promise.all([
          server.announced('file:scanned', infected),
          server.announced('file:scanned', clean),
        ]);

        const refused = await get(server.url, `/files/${infected}/content`, alice);
        expect(status(refused)).toEqual([403, 'FILE_INFECTED']);
        expect(refused.text).not.toContain('marker');
        expect(status(await post(server.url, `/files/${infected}/url`, {}, alice))).toEqual([
          403,
          'FILE_INFECTED',
        ]);
        const served = await get(server.url, `/files/${clean}/content`, alice);
        expect([served.status, served.text]).toEqual([200, CLEAN.toString()]);
        const listed = await get(server.url, '/files', alice);
        expect(listed.json).toMatchObject({
          items: [
            { id: infected, scan: { clean: false } },
            { id: clean, scan: { clean: true } },
          ],
        });
        // The signature name is the engine's detail: kept server side.
        expect((await server.files.get(infected)).scan?.detail).toBe('Svc.Http.Marker.UNOFFICIAL');
        expect(listed.text).not.toContain('Svc.Http.Marker');
      },
      { files: { requireScan: true, scanner: clamdScanner({ url: clamd.url }) } },
    );
  });

  it('with clamd stopped uploads stay quarantined (423) and the service keeps answering', async () => {
    // Its own clamd, reached over its unix socket: once stopped, the socket file is gone for good (a freed TCP
    // port could be taken by another suite's clamd).
    const own = await startClamd({ signatures: [MARKER] });
    const store = new WatchedFileStore();
    try {
      await withFiles(
        adapter,
        async (server) => {
          const alice = bearer(server.alice.token);
          const before = await uploadOne(server, server.alice, {
            name: 'a.txt',
            type: 'text/plain',
            bytes: CLEAN,
          });
          await server.announced('file:scanned', before);
          expect((await get(server.url, `/files/${before}/content`, alice)).status).toBe(200);

          await own.stop();
          const id = await uploadOne(server, server.alice, {
            name: 'b.txt',
            type: 'text/plain',
            bytes: CLEAN,
          });
          const noted = await store.problemNoted(id);
          expect(noted.metadata?.[INTERNAL_SCAN_KEY]).toMatchObject({ reason: 'scanner-unavailable' });
          expect(noted.scan).toBeUndefined();
          expect(status(await get(server.url, `/files/${id}/content`, alice))).toEqual([
            423,
            'FILE_NOT_SCANNED',
          ]);
          expect(status(await post(server.url, `/files/${id}/url`, {}, alice))).toEqual([
            423,
            'FILE_NOT_SCANNED',
          ]);

          const listed = await get(server.url, '/files', alice);
          expect(listed.status).toBe(200);
          expect(listed.json).toMatchObject({ items: [{ id: before, scan: { clean: true } }, { id }] });
          expect((listed.json as { items: object[] }).items[1]).not.toHaveProperty('scan');
          expect(listed.text).not.toContain('scanner-unavailable');
          // The file scanned before the outage is still served, and uploads are still taken.
          expect((await get(server.url, `/files/${before}/content`, alice)).text).toBe(CLEAN.toString());
          const later = await upload(server.url, [{ name: 'c.txt', type: 'text/plain', bytes: 'c' }], alice);
          expect(later.status).toBe(201);
          expect(server.events.filter((event) => event.startsWith('file:scanned'))).toEqual([
            'file:scanned a.txt clean',
          ]);
        },
        { files: { requireScan: true, store, scanner: clamdScanner({ url: own.socketUrl }) } },
      );
    } finally {
      await own.stop();
    }
  });
});
