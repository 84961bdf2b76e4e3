// Temporary file URLs over HTTP on every adapter: made for a caller allowed to, opened with no credential
// but the signature, refused when tampered with or expired (fake clock), inline only when chosen and never
// for markup, and lifetimes bounded by maxUrlTtl.
import { describe, expect, it } from 'vitest';
import { bearer, post } from './auth-harness.js';
import { adapters, call } from './harness.js';
import { TEXT, UPLOAD, status, uploadOne, urlOf, withFiles } from './files-harness.js';

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
});
