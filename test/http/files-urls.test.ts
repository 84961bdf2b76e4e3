// Temporary file URLs over HTTP on every adapter: made for a caller allowed to, opened with no credential
// but the signature, refused when tampered with or expired (fake clock), inline only when chosen and never
// for markup, and lifetimes bounded by maxUrlTtl.
import { describe, expect, it } from 'vitest';
import { bearer, post } from './auth-harness.js';
import { adapters, call } from './harness.js';
import { TEXT, UPLOAD, del, status, uploadOne, urlOf, withFiles, createTenant } from './files-harness.js';

describe.each(adapters)('temporary file URLs on $name', (adapter) => {
  it('temporary URLs: no credential needed, tampering and expiry refused, inline only when chosen', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      const id = await uploadOne(server, server.alice, TEXT);
      const made = await post(server.url, `/files/${id}/url`, {}, alice);
      expect(made.status, made.text).toBe(200);
      expect((made.json as { expiresAt: string }).expiresAt).toBe(
        new Date(1_900_000_000_000 + 900_000).toISOString(),
      );
      const opened = await call(`${server.url}${urlOf(made)}`);
      expect([opened.status, opened.text], urlOf(made)).toEqual([200, 'hello, files']);
      expect(opened.headers.get('content-disposition')).toMatch(/^attachment;/);
      expect(opened.headers.get('cache-control')).toBe('private, no-store');
      // A link tracker's own parameters do not break the link.
      const tracked = await call(`${server.url}${urlOf(made)}&utm_source=mail&utm_medium=link`);
      expect([tracked.status, tracked.text]).toEqual([200, 'hello, files']);

      const tampered = urlOf(made).replace(/signature=./, (found) =>
        found.endsWith('A') ? `${found.slice(0, -1)}B` : `${found.slice(0, -1)}A`,
      );
      expect(status(await call(`${server.url}${tampered}`))).toEqual([403, 'FILE_URL_INVALID']);
      const otherFile = urlOf(made).replace(id, '00000000-0000-4000-8000-000000000000');
      expect(status(await call(`${server.url}${otherFile}`))).toEqual([403, 'FILE_URL_INVALID']);
      const asInline = urlOf(made).replace('disposition=attachment', 'disposition=inline');
      expect(status(await call(`${server.url}${asInline}`))).toEqual([403, 'FILE_URL_INVALID']);
      const cut = urlOf(made).replace(/&signature=[^&]*/, '');
      expect(status(await call(`${server.url}${cut}`))).toEqual([403, 'FILE_URL_INVALID']);

      const inline = await post(
        server.url,
        `/files/${id}/url`,
        { disposition: 'inline', expiresIn: '1m' },
        alice,
      );
      expect((await call(`${server.url}${urlOf(inline)}`)).headers.get('content-disposition')).toMatch(
        /^inline;/,
      );
      server.advance(61_000);
      expect(status(await call(`${server.url}${urlOf(inline)}`))).toEqual([403, 'FILE_URL_INVALID']);
    });
  });

  it('never serves markup inline, even through a URL that asked for it', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      const id = await uploadOne(server, server.alice, {
        name: 'x.svg',
        type: 'image/svg+xml',
        bytes: '<svg/>',
      });
      const made = await post(server.url, `/files/${id}/url`, { disposition: 'inline' }, alice);
      const opened = await call(`${server.url}${urlOf(made)}`);
      expect(opened.headers.get('content-disposition')).toMatch(/^attachment;/);
    });
  });

  it('refuses URL lifetimes that are not positive or exceed maxUrlTtl', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const id = await uploadOne(server, server.alice, TEXT);
        for (const expiresIn of [0, -5, 601, '11m', '1.5m', 'soon', 1.5]) {
          const answer = await post(server.url, `/files/${id}/url`, { expiresIn }, alice);
          expect(status(answer), String(expiresIn)).toEqual([400, 'FILE_URL_EXPIRY_INVALID']);
          expect(answer.json).toMatchObject({ error: { details: { maxSeconds: 600 } } });
        }
        // The default (15 minutes) is lowered to maxUrlTtl.
        const made = await post(server.url, `/files/${id}/url`, undefined, alice);
        expect((made.json as { expiresAt: string }).expiresAt).toBe(
          new Date(1_900_000_000_000 + 600_000).toISOString(),
        );
        expect((await post(server.url, `/files/${id}/url`, { expiresIn: 600 }, alice)).status).toBe(200);
      },
      { files: { routes: { upload: UPLOAD, maxUrlTtl: '10m' } } },
    );
  });

  it('never lets a cache keep a URL or a refusal of one', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      const id = await uploadOne(server, server.alice, TEXT);
      const made = await post(server.url, `/files/${id}/url`, {}, alice);
      expect(made.status).toBe(200);
      expect(made.headers.get('cache-control')).toBe('private, no-store');
      const refusedMaking = await post(server.url, `/files/${id}/url`, { expiresIn: -1 }, alice);
      expect(status(refusedMaking)).toEqual([400, 'FILE_URL_EXPIRY_INVALID']);
      expect(refusedMaking.headers.get('cache-control')).toBe('private, no-store');

      const tampered = await call(
        `${server.url}${urlOf(made).replace('disposition=attachment', 'disposition=inline')}`,
      );
      expect(status(tampered)).toEqual([403, 'FILE_URL_INVALID']);
      expect(tampered.headers.get('cache-control')).toBe('private, no-store');
      expect((await del(server.url, `/files/${id}`, alice)).status).toBe(204);
      const gone = await call(`${server.url}${urlOf(made)}`);
      expect(status(gone)).toEqual([404, 'FILE_NOT_FOUND']);
      expect(gone.headers.get('cache-control')).toBe('private, no-store');
      const missing = await call(`${server.url}/files/${id}/content`, { headers: alice });
      expect(status(missing)).toEqual([404, 'FILE_NOT_FOUND']);
      expect(missing.headers.get('cache-control')).toBe('private, no-store');
    });
  });

  it('opens a link whatever tenant the client names: the URL carries its own', async () => {
    await withFiles(
      adapter,
      async (server) => {
        const alice = bearer(server.alice.token);
        const bob = bearer(server.bob.token);
        const team = { id: await createTenant(server.url, 'Acme', alice) };
        const bobs = { id: await createTenant(server.url, 'Bobs', bob) };
        const inTeam = { ...alice, 'x-tenant-id': team.id };
        const id = await uploadOne(server, server.alice, TEXT, { 'x-tenant-id': team.id });
        const made = await post(server.url, `/files/${id}/url`, {}, inTeam);
        expect(made.status, made.text).toBe(200);
        // Bob's client names his own tenant (not Acme's) and sends his token: the link still opens.
        const opened = await call(`${server.url}${urlOf(made)}`, {
          headers: { ...bob, 'x-tenant-id': bobs.id },
        });
        expect([opened.status, opened.text]).toEqual([200, 'hello, files']);
        const anonymous = await call(`${server.url}${urlOf(made)}`, { headers: { 'x-tenant-id': bobs.id } });
        expect([anonymous.status, anonymous.text]).toEqual([200, 'hello, files']);
        // The header gives no way around the signature: another tenant's name in the URL is refused.
        const moved = urlOf(made).replace(
          `tenant=${encodeURIComponent(team.id)}`,
          `tenant=${encodeURIComponent(bobs.id)}`,
        );
        expect(moved).not.toBe(urlOf(made));
        expect(status(await call(`${server.url}${moved}`, { headers: { 'x-tenant-id': bobs.id } }))).toEqual([
          403,
          'FILE_URL_INVALID',
        ]);
      },
      { tenancy: true },
    );
  });

  it('the longest lifetime is one hour by default', async () => {
    await withFiles(adapter, async (server) => {
      const alice = bearer(server.alice.token);
      const id = await uploadOne(server, server.alice, TEXT);
      for (const expiresIn of [3600, '1h', '60m']) {
        const made = await post(server.url, `/files/${id}/url`, { expiresIn }, alice);
        expect([made.status, made.text], String(expiresIn)).toEqual([200, expect.any(String)]);
        expect((made.json as { expiresAt: string }).expiresAt).toBe(
          new Date(1_900_000_000_000 + 3_600_000).toISOString(),
        );
      }
      for (const expiresIn of [3601, '61m', '2h']) {
        const answer = await post(server.url, `/files/${id}/url`, { expiresIn }, alice);
        expect(status(answer), String(expiresIn)).toEqual([400, 'FILE_URL_EXPIRY_INVALID']);
        expect(answer.json).toMatchObject({ error: { details: { maxSeconds: 3600 } } });
      }
      // The default, 15 minutes, is under the hour and kept.
      const made = await post(server.url, `/files/${id}/url`, undefined, alice);
      expect((made.json as { expiresAt: string }).expiresAt).toBe(
        new Date(1_900_000_000_000 + 900_000).toISOString(),
      );
    });
  });
});
