// The file routes over HTTP on every adapter: upload (multipart, public projection only), owner-only access
// and its alternatives (shared, authorize, present), streamed content that a browser will not render as
// this site's, the buffered fallback, quarantine before any byte, and the routes left out by the options.
import { describe, expect, it } from 'vitest';
import { bearer, get, post } from './auth-harness.js';
import { adapters, call } from './harness.js';
import { route } from 'svckit';
import { memoryDisk } from '../../runtime/files/disks/index.js';
import { fileRoutes } from '../../runtime/files/http/routes.js';
import { filesOf } from '../../runtime/files/plugin.js';
import { toPublicFile } from '../../runtime/files/record.js';
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
} from './files-harness.js';

const REPLACED = {
  name: 'replaced',
  contentType: 'text/plain',
  size: 0,
  createdAt: '2030-01-01T00:00:00.000Z',
};

describe.each(adapters)('file routes on $name', (adapter) => {
  it('uploads every file part and answers the public projection only', async () => {
    await withFiles(adapter, async (server) => {
      const answer = await upload(
        server.url,
        [TEXT, { name: '../../etc/a.png', type: 'image/png', bytes: PNG }],
        bearer(server.alice.token),
      );
      expect(answer.status, answer.text).toBe(201);
      const items = (answer.json as { items: Record<string, unknown>[] }).items;
      expect(items.map((item) => [item.name, item.contentType, item.size])).toEqual([
        ['notes.txt', 'text/plain', 12],
        ['a.png', 'image/png', PNG.length],
      ]);
      for (const item of items) {
        expect(Object.keys(item).sort()).toEqual(['contentType', 'createdAt', 'id', 'name', 'size']);
      }
      const stored = await server.files.list();
      expect(stored.map((record) => record.uploadedBy)).toEqual([server.alice.id, server.alice.id]);
      // Without a signed-in user nothing is stored.
      expect(status(await upload(server.url, [TEXT], {}))).toEqual([401, 'AUTH_REQUIRED']);
    });
  });

  it('every route but the temporary URL needs a signed-in user (401 AUTH_REQUIRED)', async () => {
    await withFiles(adapter, async (server) => {
      const id = await uploadOne(server, server.alice, TEXT);
      for (const answer of [
        await get(server.url, '/files'),
        await get(server.url, `/files/${id}`),
        await get(server.url, `/files/${id}/content`),
        await post(server.url, `/files/${id}/url`, {}),
        await del(server.url, `/files/${id}`, {}),
      ]) {
        expect(status(answer)).toEqual([401, 'AUTH_REQUIRED']);
        expect(answer.text).not.toContain('hello, files');
      }
      expect(await server.files.list()).toHaveLength(1);
    });
  });

  it('is owner-only: another user neither lists nor reaches a file (404 for every route)', async () => {
    await withFiles(adapter, async (server) => {
      const id = await uploadOne(server, server.alice, TEXT);
      const bob = bearer(server.bob.token);
      expect((await get(server.url, '/files', bob)).json).toEqual({ items: [] });
      const listed = await get(server.url, '/files', bearer(server.alice.token));
      expect((listed.json as { items: { id: string }[] }).items.map((item) => item.id)).toEqual([id]);
      for (const answer of [
        await get(server.url, `/files/${id}`, bob),
        await get(server.url, `/files/${id}/content`, bob),
        await post(server.url, `/files/${id}/url`, {}, bob),
        await del(server.url, `/files/${id}`, bob),
      ]) {
        expect(status(answer)).toEqual([404, 'FILE_NOT_FOUND']);
      }
      expect(await server.files.list()).toHaveLength(1);
      expect((await del(server.url, `/files/${id}`, bearer(server.alice.token))).status).toBe(204);
      expect(status(await get(server.url, `/files/${id}`, bearer(server.alice.token)))).toEqual([
        404,
        'FILE_NOT_FOUND',
      ]);
      expect(server.disk.usedBytes()).toBe(0);
    });
  });

  it('shared: true makes a tenant-wide drive', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const id = await uploadOne(server, server.alice, TEXT);
        const bob = bearer(server.bob.token);
        expect((await get(server.url, '/files', bob)).json).toMatchObject({ items: [{ id }] });
        const content = await get(server.url, `/files/${id}/content`, bob);
        expect([content.status, content.text]).toEqual([200, 'hello, files']);
        expect((await del(server.url, `/files/${id}`, bob)).status).toBe(204);
      },
      { files: { routes: { upload: UPLOAD, shared: true } } },
    );
  });

  it('authorize replaces the policy per action; present shapes the answers', async () => {
    const asked: string[] = [];
    await withFiles(
      adapter,
      async (server) => {
        const id = await uploadOne(server, server.alice, TEXT);
        const bob = bearer(server.bob.token);
        const read = await get(server.url, `/files/${id}`, bob);
        expect(read.status).toBe(200);
        expect(read.json).toMatchObject({ id, name: 'notes.txt', viewer: server.bob.id });
        expect(read.json).not.toHaveProperty('uploadedBy');
        expect(status(await del(server.url, `/files/${id}`, bob))).toEqual([404, 'FILE_NOT_FOUND']);
        expect(asked).toEqual(['read', 'delete']);
      },
      {
        files: {
          routes: {
            upload: UPLOAD,
            // A policy answering a truthy non-boolean must not grant: only `true` does.
            authorize: (action) => {
              asked.push(action);
              return action === 'read' ? true : ('yes' as never);
            },
            present: (file, user) => ({ ...toPublicFile(file), viewer: user.id }),
          },
        },
      },
    );
  });

  it('streams content as an attachment that a browser will not sniff or render', async () => {
    await withFiles(adapter, async (server) => {
      const id = await uploadOne(server, server.alice, {
        name: 'page.html',
        type: 'text/html',
        bytes: HTML,
      });
      const content = await get(server.url, `/files/${id}/content`, bearer(server.alice.token));
      expect(content.status).toBe(200);
      expect(content.text).toBe(HTML.toString());
      expect(content.headers.get('content-type')).toBe('text/html');
      expect(content.headers.get('content-disposition')).toBe('attachment; filename="page.html"');
      expect(content.headers.get('x-content-type-options')).toBe('nosniff');
      expect(content.headers.get('content-security-policy')).toContain('sandbox');
      expect(content.headers.get('content-length')).toBe(String(HTML.length));
    });
  });

  it('falls back to a buffered read when the disk cannot stream', async () => {
    const disk = memoryDisk();
    const bufferedOnly = {
      driver: 'buffered',
      canStream: false,
      put: disk.put.bind(disk),
      get: disk.get.bind(disk),
      delete: disk.delete.bind(disk),
      exists: disk.exists.bind(disk),
    };
    await withFiles(
      adapter,
      async (server) => {
        const id = await uploadOne(server, server.alice, TEXT);
        const content = await get(server.url, `/files/${id}/content`, bearer(server.alice.token));
        expect([content.status, content.text]).toEqual([200, 'hello, files']);
      },
      { files: { disk: bufferedOnly } },
    );
  });

  it('quarantine: 423 before a clean scan and 403 after a bad one, before any byte; URLs too', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const pending = await uploadOne(server, server.alice, TEXT);
        const infected = await uploadOne(server, server.alice, TEXT);
        const unscanned = await get(server.url, `/files/${pending}/content`, alice);
        expect(status(unscanned)).toEqual([423, 'FILE_NOT_SCANNED']);
        expect(unscanned.headers.get('content-disposition')).toBeNull();
        expect(status(await post(server.url, `/files/${pending}/url`, {}, alice))).toEqual([
          423,
          'FILE_NOT_SCANNED',
        ]);
        await server.files.markScanned(pending, { clean: true });
        await server.files.markScanned(infected, { clean: false, detail: 'Eicar' });
        expect((await get(server.url, `/files/${pending}/content`, alice)).text).toBe('hello, files');
        expect(status(await get(server.url, `/files/${infected}/content`, alice))).toEqual([
          403,
          'FILE_INFECTED',
        ]);
        const listed = (await get(server.url, '/files', alice)).json as { items: unknown[] };
        expect(listed.items).toMatchObject([{ scan: { clean: true } }, { scan: { clean: false } }]);
        expect(JSON.stringify(listed)).not.toContain('Eicar');
        // Quarantine keeps bytes from being read, never from being deleted: unscanned and infected alike.
        const waiting = await uploadOne(server, server.alice, TEXT);
        for (const id of [waiting, infected]) {
          expect((await del(server.url, `/files/${id}`, alice)).status).toBe(204);
          await server.announced('file:deleted', id);
          expect(status(await get(server.url, `/files/${id}`, alice))).toEqual([404, 'FILE_NOT_FOUND']);
        }
        expect((await server.files.list()).map((record) => record.id)).toEqual([pending]);
      },
      { files: { requireScan: true } },
    );
  });

  it('download: false leaves the content route out; without upload settings POST /files is not served', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const record = await server.files.upload(Buffer.from('x'), {
          name: 'x.txt',
          uploadedBy: server.alice.id,
        });
        const alice = bearer(server.alice.token);
        expect((await get(server.url, `/files/${record.id}`, alice)).status).toBe(200);
        expect(status(await get(server.url, `/files/${record.id}/content`, alice))).toEqual([
          404,
          'NOT_FOUND',
        ]);
        // GET /files exists, so the method is what is refused.
        expect(status(await upload(server.url, [TEXT], alice))).toEqual([405, 'METHOD_NOT_ALLOWED']);
      },
      { files: { routes: { download: false } } },
    );
  });

  it("fileRoutes(options) serves the app's registered file service, found on each request", async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const bob = bearer(server.bob.token);
        const made = await upload(server.url, [TEXT], alice);
        expect(made.status, made.text).toBe(201);
        const id = (made.json as { items: { id: string }[] }).items[0]!.id;
        // The plugin's service holds the file, and `shared: true` (the options in first place) applies.
        expect((await server.files.get(id)).uploadedBy).toBe(server.alice.id);
        expect((await get(server.url, `/files/${id}/content`, bob)).text).toBe('hello, files');
        const url = await post(server.url, `/files/${id}/url`, { expiresIn: 60 }, bob);
        expect((await call(`${server.url}${urlOf(url)}`)).text).toBe('hello, files');
      },
      { files: { routes: false }, routes: fileRoutes({ upload: UPLOAD, shared: true }) },
    );
  });

  it('handlers reach the service with filesOf(context), in the request tenant', async () => {
    const routes = [
      route({
        method: 'GET',
        url: '/my-files',
        meta: { auth: true },
        handler: async ({ context }) => ({ count: (await filesOf(context).list()).length }),
      }),
    ];
    await withFiles(
      adapter,
      async (server) => {
        await uploadOne(server, server.alice, TEXT);
        expect((await get(server.url, '/my-files', bearer(server.alice.token))).json).toEqual({ count: 1 });
      },
      { routes },
    );
  });

  it('omit leaves routes out and replace answers with the handler of the app', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const id = await uploadOne(server, server.alice, TEXT);
        expect((await get(server.url, `/files/${id}`, alice)).json).toEqual({ ...REPLACED, id });
        expect((await del(server.url, `/files/${id}`, alice)).status).toBe(405);
      },
      {
        files: {
          routes: {
            upload: UPLOAD,
            omit: ['deleteFile'],
            replace: {
              // Answered through the route's serializer: the declared shape, nothing more.
              getFile: ({ params }) => ({ ...REPLACED, id: params.id, extra: 'dropped' }),
            },
          },
        },
      },
    );
  });
});
