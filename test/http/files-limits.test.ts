// What an upload may not do, over HTTP on every adapter: disguise markup (sniffing), pass the per-file size or
// the tenant quota (and then nothing of the request stays), or act outside the request's tenant.
import { describe, expect, it } from 'vitest';
import { bearer, codeOf, get, post } from './auth-harness.js';
import { adapters, call } from './harness.js';
import { MemoryFileStore } from '../../runtime/files/store/memory-store.js';
import {
  HTML,
  PNG,
  TEXT,
  status,
  upload,
  uploadOne,
  urlOf,
  withFiles,
  createTenant,
  expectPromotedPng,
} from './files-harness.js';

describe.each(adapters)('file upload limits and tenancy on $name', (adapter) => {
  it('sniffs: disguised markup is refused, PNG sent as octet-stream is promoted', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const disguised = await upload(
          server.url,
          [{ name: 'cat.png', type: 'image/png', bytes: HTML }],
          alice,
        );
        expect(disguised.status).toBe(415);
        expect(codeOf(disguised.json)).toBe('FILE_TYPE_MISMATCH');
        await expectPromotedPng(server.url, alice);
        expect(await server.files.list()).toHaveLength(1);
      },
      { files: { validate: { sniff: true } } },
    );
  });

  it('a part over maxBytes is refused with 413 and the request stores nothing; exactly maxBytes is fine', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      const exact = await upload(
        server.url,
        [{ name: 'a.bin', type: 'application/octet-stream', bytes: Buffer.alloc(1024, 1) }],
        alice,
      );
      expect(exact.status, exact.text).toBe(201);
      await server.files.delete((exact.json as { items: { id: string }[] }).items[0]!.id);
      const over = await upload(
        server.url,
        [TEXT, { name: 'b.bin', type: 'application/octet-stream', bytes: Buffer.alloc(1025, 1) }],
        alice,
      );
      expect(over.status).toBe(413);
      // The file is what is too large, whichever limit stopped it: the route's per-file one here.
      expect(over.json).toMatchObject({ error: { code: 'FILE_TOO_LARGE', details: { limit: 'maxBytes' } } });
      expect(await server.files.list()).toEqual([]);
      expect(server.disk.usedBytes()).toBe(0);
      // maxFiles: 3, each at its limit, fits the request limit.
      const full = Array.from({ length: 3 }, (_, index) => ({
        name: `${index}.bin`,
        type: 'application/octet-stream',
        bytes: Buffer.alloc(1024, index),
      }));
      expect((await upload(server.url, full, alice)).status).toBe(201);
      expect(status(await upload(server.url, [...full, TEXT], alice))).toEqual([400, 'TOO_MANY_FILES']);
      expect(await server.files.list()).toHaveLength(3);
    });
  });

  it('over the tenant quota answers 402 and keeps the earlier parts of the request neither', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const parts = ['a', 'b'].map((name) => ({ name, type: 'text/plain', bytes: Buffer.alloc(600, 97) }));
        expect(status(await upload(server.url, parts, alice))).toEqual([402, 'FILE_QUOTA_EXCEEDED']);
        expect(await server.files.list()).toEqual([]);
        // The first part was stored, then deleted again when the second failed.
        expect(server.events).toEqual(['file:uploaded a', expect.stringMatching(/^file:deleted /)]);
        expect(server.disk.usedBytes()).toBe(0);
      },
      { files: { maxTotalBytes: 1000 } },
    );
  });

  it('with tenancy: a tenant is required, another tenant is not found, non-members are refused', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const bob = bearer(server.bob.token);
        const team = { id: await createTenant(server.url, 'Acme', alice) };
        const other = { id: await createTenant(server.url, 'Other', alice) };
        expect(status(await upload(server.url, [TEXT], alice))).toEqual([400, 'FILE_TENANT_REQUIRED']);
        expect(status(await get(server.url, '/files', alice))).toEqual([400, 'FILE_TENANT_REQUIRED']);
        const id = await uploadOne(server, server.alice, TEXT, { 'x-tenant-id': team.id });
        const inOther = { ...alice, 'x-tenant-id': other.id };
        expect((await get(server.url, '/files', inOther)).json).toEqual({ items: [] });
        expect(status(await get(server.url, `/files/${id}`, inOther))).toEqual([404, 'FILE_NOT_FOUND']);
        expect(status(await get(server.url, `/files/${id}/content`, inOther))).toEqual([
          404,
          'FILE_NOT_FOUND',
        ]);
        expect(status(await get(server.url, '/files', { ...bob, 'x-tenant-id': team.id }))).toEqual([
          403,
          'TENANT_ACCESS_DENIED',
        ]);
        const made = await post(server.url, `/files/${id}/url`, {}, { ...alice, 'x-tenant-id': team.id });
        expect((await call(`${server.url}${urlOf(made)}`)).text).toBe('hello, files');
        expect((await server.files.list(team.id)).map((record) => record.tenantId)).toEqual([team.id]);
      },
      { tenancy: true },
    );
  });

  it('a request without a file part, or with a type the route does not take, stores nothing', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const empty = await call(`${server.url}/files`, {
          method: 'POST',
          body: new FormData(),
          headers: alice,
        });
        expect(status(empty)).toEqual([400, 'HTTP_VALIDATION']);
        const form = new FormData();
        form.append('note', 'only text');
        expect(
          status(await call(`${server.url}/files`, { method: 'POST', body: form, headers: alice })),
        ).toEqual([400, 'HTTP_VALIDATION']);
        const mixed = await upload(
          server.url,
          [
            { name: 'a.png', type: 'image/png', bytes: PNG },
            { name: 'b.txt', type: 'text/plain', bytes: 'x' },
          ],
          alice,
        );
        // The file's type is what the route does not take: the file service's code, as for validate.allowedTypes.
        expect(mixed.json).toMatchObject({
          error: { code: 'FILE_TYPE_NOT_ALLOWED', details: { contentType: 'text/plain' } },
        });
        expect(mixed.status).toBe(415);
        expect(await server.files.list()).toEqual([]);
        expect(server.disk.usedBytes()).toBe(0);
      },
      { files: { routes: { upload: { maxBytes: 1024, maxFiles: 3, allowedTypes: ['image/*'] } } } },
    );
  });

  it("the route's allowedTypes judge the detected type when sniffing, and a refusal keeps nothing", async () => {
    const store = new MemoryFileStore();
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const held = () => store.usedBytes('@single', Date.now());
        // Declared octet-stream, the bytes are a PNG: stored as image/png, which image/* takes.
        await expectPromotedPng(server.url, alice);
        const [stored] = await server.files.list();
        await server.files.delete(stored!.id);
        expect(status(await upload(server.url, [TEXT], alice))).toEqual([415, 'FILE_TYPE_NOT_ALLOWED']);
        const disguised = await upload(
          server.url,
          [{ name: 'cat.png', type: 'image/png', bytes: HTML }],
          alice,
        );
        expect(status(disguised)).toEqual([415, 'FILE_TYPE_MISMATCH']);
        expect(await server.files.list()).toEqual([]);
        expect(server.disk.usedBytes()).toBe(0);
        expect(await held()).toBe(0);
      },
      {
        files: {
          store,
          maxTotalBytes: 10_000,
          validate: { sniff: true },
          routes: { upload: { maxBytes: 1024, maxFiles: 3, allowedTypes: ['image/*'] } },
        },
      },
    );
  });
});
