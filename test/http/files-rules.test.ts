// The rules of the file service that files.test.ts, files-urls.test.ts and files-limits.test.ts leave out, over
// HTTP on every adapter: the service's own size and type validation (maxSize, a part's declared length,
// allowedTypes, sniffing of disguises), quarantine on temporary URLs, the hook-bus events, the public
// projection on every route, the remaining policy actions, a custom quota check, and the single-tenant key.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { errors } from '../../generated/modules/errors.js';
import { memoryDisk, type Disk } from '../../runtime/files/disks/index.js';
import { filesOf } from '../../runtime/files/plugin.js';
import { INTERNAL_SCAN_KEY, SINGLE_TENANT, toPublicFile } from '../../runtime/files/record.js';
import { bearer, get, post } from './auth-harness.js';
import {
  HTML,
  PNG,
  TEXT,
  UPLOAD,
  del,
  status,
  upload,
  uploadOne,
  urlOf,
  withFiles,
  createTenant,
} from './files-harness.js';
import { rawFilePart, WatchedFileStore } from './files-rules-harness.js';
import { adapters, call } from './harness.js';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << >> endobj\ntrailer << >>\n%%EOF\n');
const ELF = Buffer.concat([Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0x02, 0x01, 0x01, 0x00]), Buffer.alloc(56)]);
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000';
const items = (answer: { json: unknown }) => (answer.json as { items: Record<string, unknown>[] }).items;

describe.each(adapters)('file service rules over HTTP on $name', (adapter) => {
  it('validate.maxSize: a bigger file, or a part declaring more, is 413 FILE_TOO_LARGE and stores nothing', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const over = await upload(
          server.url,
          [{ name: 'a.txt', type: 'text/plain', bytes: 'x'.repeat(17) }],
          alice,
        );
        expect(status(over)).toEqual([413, 'FILE_TOO_LARGE']);
        // The declared length alone is enough: refused before the part's bytes are read.
        const declared = await rawFilePart(
          server.url,
          { headers: ['Content-Length: 100'], bytes: 'tiny' },
          alice,
        );
        expect(status(declared)).toEqual([413, 'FILE_TOO_LARGE']);
        expect(await server.files.list()).toEqual([]);
        expect(server.disk.usedBytes()).toBe(0);
        expect(server.events).toEqual([]);
        const exact = await upload(
          server.url,
          [{ name: 'b.txt', type: 'text/plain', bytes: 'x'.repeat(16) }],
          alice,
        );
        expect(exact.status, exact.text).toBe(201);
      },
      { files: { validate: { maxSize: 16 } } },
    );
  });

  it("a part declaring more than the route's maxBytes is 413 FILE_TOO_LARGE before any quota is reserved for it", async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        // Below the service's 25 MiB cap and within the quota, but over the route's own per-file limit.
        const declared = await rawFilePart(
          server.url,
          { headers: ['Content-Length: 5000'], bytes: 'tiny' },
          alice,
        );
        expect(status(declared)).toEqual([413, 'FILE_TOO_LARGE']);
        // Nothing of the tenant's room was taken: a file filling the whole quota still fits.
        const full = await upload(
          server.url,
          [{ name: 'full.bin', type: 'application/octet-stream', bytes: Buffer.alloc(UPLOAD.maxBytes, 1) }],
          alice,
        );
        expect(full.status, full.text).toBe(201);
      },
      { files: { maxTotalBytes: UPLOAD.maxBytes } },
    );
  });

  it("a part's own Content-Length must match its bytes and be a safe integer (400 STORAGE_CONTENT_LENGTH_*)", async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      for (const length of [3, 7]) {
        const answer = await rawFilePart(
          server.url,
          { headers: [`Content-Length: ${length}`], bytes: 'hello' },
          alice,
        );
        expect(status(answer), String(length)).toEqual([400, 'STORAGE_CONTENT_LENGTH_MISMATCH']);
      }
      const unsafe = await rawFilePart(
        server.url,
        { headers: ['Content-Length: 9007199254740993'], bytes: 'hello' },
        alice,
      );
      expect(status(unsafe)).toEqual([400, 'STORAGE_CONTENT_LENGTH_INVALID']);
      expect(await server.files.list()).toEqual([]);
      expect(server.disk.usedBytes()).toBe(0);
      const right = await rawFilePart(server.url, { headers: ['Content-Length: 5'], bytes: 'hello' }, alice);
      expect(right.status, right.text).toBe(201);
      expect(items(right)).toMatchObject([{ size: 5 }]);
    });
  });

  it('validate.allowedTypes answers 415 FILE_TYPE_NOT_ALLOWED, judging the detected type when sniffing', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        expect(status(await upload(server.url, [TEXT], alice))).toEqual([415, 'FILE_TYPE_NOT_ALLOWED']);
        // Declared as octet-stream, the bytes are a PDF: the PDF is what is not allowed.
        const pdf = await upload(
          server.url,
          [{ name: 'x', type: 'application/octet-stream', bytes: PDF }],
          alice,
        );
        expect(status(pdf)).toEqual([415, 'FILE_TYPE_NOT_ALLOWED']);
        expect(await server.files.list()).toEqual([]);
        const png = await upload(
          server.url,
          [{ name: 'x', type: 'application/octet-stream', bytes: PNG }],
          alice,
        );
        expect(png.status, png.text).toBe(201);
        expect(items(png)).toMatchObject([{ contentType: 'image/png' }]);
      },
      { files: { validate: { allowedTypes: ['image/*'], sniff: true } } },
    );
  });

  it('sniffing refuses disguises (HTML as image/png, an executable as application/pdf or octet-stream)', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const disguises = [
          { part: { name: 'cat.png', type: 'image/png', bytes: HTML }, code: 'FILE_TYPE_MISMATCH' },
          { part: { name: 'report.pdf', type: 'application/pdf', bytes: ELF }, code: 'FILE_TYPE_MISMATCH' },
          {
            part: { name: 'page', type: 'application/octet-stream', bytes: HTML },
            code: 'FILE_TYPE_NOT_ALLOWED',
          },
          { part: { name: 'logo.png', type: 'image/png', bytes: SVG }, code: 'FILE_TYPE_MISMATCH' },
          { part: { name: 'notes.txt', type: 'text/plain', bytes: HTML }, code: 'FILE_TYPE_MISMATCH' },
          {
            part: { name: 'tool', type: 'application/octet-stream', bytes: ELF },
            code: 'FILE_TYPE_NOT_ALLOWED',
          },
        ];
        for (const { part, code } of disguises) {
          expect(status(await upload(server.url, [part], alice)), part.name).toEqual([415, code]);
        }
        expect(await server.files.list()).toEqual([]);
        expect(server.disk.usedBytes()).toBe(0);
        const promoted = await upload(
          server.url,
          [{ name: 'cat', type: 'application/octet-stream', bytes: PNG }],
          alice,
        );
        expect(promoted.status, promoted.text).toBe(201);
        const id = items(promoted)[0]!.id as string;
        expect((await get(server.url, `/files/${id}`, alice)).json).toMatchObject({
          contentType: 'image/png',
          metadata: { declaredType: 'application/octet-stream' },
        });
        const content = await get(server.url, `/files/${id}/content`, alice);
        expect(content.headers.get('content-type')).toBe('image/png');
      },
      { files: { validate: { sniff: true } } },
    );
  });

  it('quarantine on temporary URLs: no URL of an infected file, and a URL made while clean stops after a bad rescan', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const infected = await uploadOne(server, server.alice, TEXT);
        await server.files.markScanned(infected, { clean: false, detail: 'Eicar' });
        expect(status(await post(server.url, `/files/${infected}/url`, {}, alice))).toEqual([
          403,
          'FILE_INFECTED',
        ]);

        const later = await uploadOne(server, server.alice, TEXT);
        await server.files.markScanned(later, { clean: true });
        const made = await post(server.url, `/files/${later}/url`, {}, alice);
        expect((await call(`${server.url}${urlOf(made)}`)).text).toBe('hello, files');
        await server.files.markScanned(later, { clean: false, detail: 'Eicar' });
        const refused = await call(`${server.url}${urlOf(made)}`);
        expect(status(refused)).toEqual([403, 'FILE_INFECTED']);
        expect(refused.headers.get('content-disposition')).toBeNull();
        expect(refused.text).not.toContain('hello');
      },
      { files: { requireScan: true } },
    );
  });

  it('announces upload, scan and delete on the hook bus; a second DELETE is 404 and announces nothing', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const id = await uploadOne(server, server.alice, TEXT);
        await server.files.markScanned(id, { clean: true });
        expect((await del(server.url, `/files/${id}`, alice)).status).toBe(204);
        expect(server.events).toEqual([
          'file:uploaded notes.txt',
          'file:scanned notes.txt clean',
          `file:deleted ${id}`,
        ]);
        expect(server.disk.usedBytes()).toBe(0);
        expect(await server.files.list()).toEqual([]);
        for (const answer of [
          await del(server.url, `/files/${id}`, alice),
          await get(server.url, `/files/${id}`, alice),
          await get(server.url, `/files/${id}/content`, alice),
          await get(server.url, `/files/${UNKNOWN_ID}`, alice),
        ]) {
          expect(status(answer)).toEqual([404, 'FILE_NOT_FOUND']);
        }
        expect(server.events).toHaveLength(3);
      },
      { files: { requireScan: true } },
    );
  });

  it('every route answers the public projection: no server-side field, scan detail or internal scan entry', async () => {
    const store = new WatchedFileStore();
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const pending = await uploadOne(server, server.alice, {
          name: 'cat',
          type: 'application/octet-stream',
          bytes: PNG,
        });
        const infected = await uploadOne(server, server.alice, TEXT);
        await server.files.noteScanProblem(pending, 'scanner-unavailable');
        await server.files.markScanned(infected, { clean: false, detail: 'Eicar-Signature' });
        const [pendingRecord, infectedRecord] = await server.files.list();
        // The server side holds what the answers must not show.
        expect(pendingRecord!.metadata).toHaveProperty([INTERNAL_SCAN_KEY]);
        expect(infectedRecord!.scan).toEqual({ clean: false, detail: 'Eicar-Signature' });

        const one = (await get(server.url, `/files/${pending}`, alice)).json as Record<string, unknown>;
        expect(Object.keys(one).sort()).toEqual([
          'contentType',
          'createdAt',
          'id',
          'metadata',
          'name',
          'size',
        ]);
        expect(one.metadata).toEqual({ declaredType: 'application/octet-stream' });
        const bad = (await get(server.url, `/files/${infected}`, alice)).json as Record<string, unknown>;
        expect(Object.keys(bad).sort()).toEqual([
          'contentType',
          'createdAt',
          'id',
          'name',
          'scan',
          'scannedAt',
          'size',
        ]);
        expect(bad.scan).toEqual({ clean: false });
        const listed = await get(server.url, '/files', alice);
        expect(listed.json).toEqual({ items: [one, bad] });
        for (const record of [pendingRecord!, infectedRecord!]) {
          for (const secret of [record.checksum, record.path, record.tenantId, server.alice.id]) {
            expect(listed.text).not.toContain(secret);
          }
        }
        expect(listed.text).not.toContain('Eicar');
        expect(listed.text).not.toContain('scanner-unavailable');
      },
      { files: { requireScan: true, store, validate: { sniff: true } } },
    );
  });

  it('owner-only: a file stored without an uploader is reachable by no caller', async () => {
    await withFiles(adapter, async (server) => {
      const { id } = await server.files.upload(Buffer.from('system'), {
        name: 'system.txt',
        contentType: 'text/plain',
      });
      for (const who of [server.alice, server.bob]) {
        const caller = bearer(who.token);
        expect((await get(server.url, '/files', caller)).json).toEqual({ items: [] });
        expect(status(await get(server.url, `/files/${id}`, caller))).toEqual([404, 'FILE_NOT_FOUND']);
        expect(status(await get(server.url, `/files/${id}/content`, caller))).toEqual([
          404,
          'FILE_NOT_FOUND',
        ]);
        expect(status(await del(server.url, `/files/${id}`, caller))).toEqual([404, 'FILE_NOT_FOUND']);
      }
      expect(await server.files.list()).toHaveLength(1);
    });
  });

  it('authorize is asked for download and url too; a refusal answers 404 like a missing file', async () => {
    const asked: string[] = [];
    await withFiles(
      adapter,
      async (server) => {
        const id = await uploadOne(server, server.alice, TEXT);
        const bob = bearer(server.bob.token);
        const alice = bearer(server.alice.token);
        // Bob may download but not read, list or share; Alice may share her own file.
        expect(status(await get(server.url, `/files/${id}`, bob))).toEqual([404, 'FILE_NOT_FOUND']);
        expect((await get(server.url, '/files', bob)).json).toEqual({ items: [] });
        const content = await get(server.url, `/files/${id}/content`, bob);
        expect([content.status, content.text]).toEqual([200, 'hello, files']);
        expect(status(await post(server.url, `/files/${id}/url`, {}, bob))).toEqual([404, 'FILE_NOT_FOUND']);
        expect((await post(server.url, `/files/${id}/url`, {}, alice)).status).toBe(200);
        expect(new Set(asked)).toEqual(new Set(['read', 'download', 'url']));
      },
      {
        files: {
          routes: {
            upload: UPLOAD,
            authorize: (action, record, user) => {
              asked.push(action);
              return action === 'download' || (action === 'url' && record.uploadedBy === user.id);
            },
          },
        },
      },
    );
  });

  it("shared: a member reads a colleague's metadata and makes its URL", async () => {
    await withFiles(
      adapter,
      async (server) => {
        const id = await uploadOne(server, server.alice, TEXT);
        const bob = bearer(server.bob.token);
        expect((await get(server.url, `/files/${id}`, bob)).json).toMatchObject({ id, name: 'notes.txt' });
        const made = await post(server.url, `/files/${id}/url`, {}, bob);
        expect(made.status, made.text).toBe(200);
        expect((await call(`${server.url}${urlOf(made)}`)).text).toBe('hello, files');
      },
      { files: { routes: { upload: UPLOAD, shared: true } } },
    );
  });

  it('present shapes the list and the upload answer as well', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const created = await upload(server.url, [TEXT], alice);
        expect(items(created)).toMatchObject([{ name: 'notes.txt', viewer: server.alice.id }]);
        expect(items(await get(server.url, '/files', alice))).toMatchObject([{ viewer: server.alice.id }]);
      },
      {
        files: {
          routes: { upload: UPLOAD, present: (file, user) => ({ ...toPublicFile(file), viewer: user.id }) },
        },
      },
    );
  });

  it('checkQuota: a custom check that throws refuses the upload with its error and stores nothing', async () => {
    const checked: [string, number][] = [];
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const big = await upload(
          server.url,
          [{ name: 'big.txt', type: 'text/plain', bytes: 'x'.repeat(20) }],
          alice,
        );
        expect(status(big)).toEqual([402, 'FILE_QUOTA_EXCEEDED']);
        expect(await server.files.list()).toEqual([]);
        expect(server.disk.usedBytes()).toBe(0);
        expect((await upload(server.url, [TEXT], alice)).status).toBe(201);
        // Without tenancy the check runs for the single-tenant key.
        expect(checked).toEqual([
          [SINGLE_TENANT, 20],
          [SINGLE_TENANT, 12],
        ]);
      },
      {
        files: {
          checkQuota: (tenantId, size) => {
            checked.push([tenantId, size]);
            if (size > 16) throw errors.FILE_QUOTA_EXCEEDED();
          },
        },
      },
    );
  });

  it('a disk error without a status of its own is 500 INTERNAL_ERROR, says nothing of the disk, stores nothing', async () => {
    const disk = memoryDisk();
    let failing = true;
    const down = Object.assign(new Error('bucket svc-prod-files unreachable at 10.0.0.7'), {
      code: 'STORAGE_BACKEND_DOWN',
    });
    const flaky: Disk = {
      ...disk,
      put: (key, content, options) => (failing ? Promise.reject(down) : disk.put(key, content, options)),
      get: (key) => (failing ? Promise.reject(down) : disk.get(key)),
      getStream: (key) => (failing ? Promise.reject(down) : disk.getStream(key)),
    };
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const refused = await upload(server.url, [TEXT], alice);
        expect(status(refused)).toEqual([500, 'INTERNAL_ERROR']);
        expect(refused.text).not.toMatch(/bucket|10\.0\.0\.7|STORAGE_BACKEND_DOWN/);
        expect(await server.files.list()).toEqual([]);
        // Nothing of the quota was kept by the failed upload: a file filling all of it still fits.
        failing = false;
        const id = await uploadOne(server, server.alice, {
          name: 'full.txt',
          type: 'text/plain',
          bytes: 'x'.repeat(64),
        });
        failing = true;
        const read = await get(server.url, `/files/${id}/content`, alice);
        expect(status(read)).toEqual([500, 'INTERNAL_ERROR']);
        expect(read.text).not.toMatch(/bucket|10\.0\.0\.7/);
      },
      { files: { disk: flaky, maxTotalBytes: 64 } },
    );
  });

  it('the content route is never cacheable: a 200, a 404, and a stream that fails before its first byte', async () => {
    const disk = memoryDisk();
    let breakStream = false;
    const breaking: Disk = {
      ...disk,
      getStream: async (key) => {
        if (!breakStream) return disk.getStream(key);
        const broken = new Readable({ read() {} });
        setImmediate(() => broken.destroy(new Error('the disk went away')));
        return broken;
      },
    };
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const id = await uploadOne(server, server.alice, TEXT);
        const served = await get(server.url, `/files/${id}/content`, alice);
        const missing = await get(server.url, `/files/${UNKNOWN_ID}/content`, alice);
        breakStream = true;
        const failed = await get(server.url, `/files/${id}/content`, alice);
        expect(served.status).toBe(200);
        expect(status(missing)).toEqual([404, 'FILE_NOT_FOUND']);
        expect(status(failed)).toEqual([500, 'INTERNAL_ERROR']);
        for (const answer of [served, missing, failed]) {
          expect(answer.headers.get('cache-control'), String(answer.status)).toBe('private, no-store');
        }
      },
      { files: { disk: breaking } },
    );
  });

  it('without tenancy files live under @single, which a handler may not name (400 FILE_TENANT_RESERVED)', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/probe/:tenant',
        meta: { auth: true },
        handler: async ({ params, context }) => ({
          count: (await filesOf(context).list((params as { tenant: string }).tenant)).length,
        }),
      }),
    ];
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const id = await uploadOne(server, server.alice, TEXT);
        expect((await server.files.get(id)).tenantId).toBe(SINGLE_TENANT);
        const made = await post(server.url, `/files/${id}/url`, {}, alice);
        expect((await call(`${server.url}${urlOf(made)}`)).text).toBe('hello, files');
        expect(status(await get(server.url, `/probe/${encodeURIComponent(SINGLE_TENANT)}`, alice))).toEqual([
          400,
          'FILE_TENANT_RESERVED',
        ]);
        expect((await get(server.url, '/probe/acme', alice)).json).toEqual({ count: 0 });
      },
      { routes },
    );
  });

  it('with tenancy a handler cannot reach into another tenant (403 FILE_TENANT_MISMATCH); @single names no tenant', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/probe/:tenant',
        meta: { auth: true },
        handler: async ({ params, context }) => ({
          count: (await filesOf(context).list((params as { tenant: string }).tenant)).length,
        }),
      }),
    ];
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const team = { id: await createTenant(server.url, 'Acme', alice) };
        const other = { id: await createTenant(server.url, 'Other', alice) };
        await uploadOne(server, server.alice, TEXT, { 'x-tenant-id': other.id });
        const inTeam = { ...alice, 'x-tenant-id': team.id };
        expect(status(await get(server.url, `/probe/${other.id}`, inTeam))).toEqual([
          403,
          'FILE_TENANT_MISMATCH',
        ]);
        expect((await get(server.url, `/probe/${team.id}`, inTeam)).json).toEqual({ count: 0 });
        const single = await get(server.url, '/files', { ...alice, 'x-tenant-id': SINGLE_TENANT });
        // The tenancy plugin refuses the reserved key as a tenant id before the file service sees it.
        expect(status(single)).toEqual([400, 'TENANT_INVALID']);
        expect(single.text).not.toContain('notes.txt');
      },
      { tenancy: true, routes },
    );
  });
});
