// meta.etag: strong ETag and 304 for GET/HEAD when the handler returned a value.
import { describe, expect, it } from 'vitest';
import { HttpError, route } from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

let version = 1;
const routes = [
  route({ method: 'GET', url: '/doc', meta: { etag: true }, handler: () => ({ version }) }),
  route({ method: 'GET', url: '/plain', handler: () => ({ version }) }),
  route({ method: 'POST', url: '/doc', meta: { etag: true }, handler: () => ({ version }) }),
  route({
    method: 'GET',
    url: '/self',
    meta: { etag: true },
    handler: ({ reply }) => {
      reply.send('self');
    },
  }),
  route({
    method: 'GET',
    url: '/missing',
    meta: { etag: true },
    handler: () => {
      throw new HttpError(404, 'DOC_NOT_FOUND', 'Not here.');
    },
  }),
];

describe.each(adapters)('etag on $name', (adapter) => {
  it('sends a strong ETag on 200 and 304 with the ETag and no body on a match', async () => {
    await withServer(adapter, { routes }, async (url) => {
      version = 1;
      const first = await call(`${url}/doc`);
      const etag = first.headers.get('etag');
      expect(first.status).toBe(200);
      expect(etag).toMatch(/^"[^"]+"$/);
      const again = await rawRequest(url, {
        method: 'GET',
        path: '/doc',
        headers: { 'if-none-match': etag ?? '' },
      });
      expect(again.status).toBe(304);
      expect(again.body).toBe('');
      expect(again.headers['content-type']).toBeUndefined();
      expect(again.headers['content-length']).toBeUndefined();
      expect(again.headers.etag).toBe(etag);
      expect(again.headers['x-request-id']).toBeDefined();
    });
  });

  it('matches lists, W/ tags and *', async () => {
    await withServer(adapter, { routes }, async (url) => {
      version = 1;
      const etag = (await call(`${url}/doc`)).headers.get('etag') ?? '';
      for (const header of [`"other", ${etag}`, `W/${etag}`, '*']) {
        const response = await rawRequest(url, {
          method: 'GET',
          path: '/doc',
          headers: { 'if-none-match': header },
        });
        expect([header, response.status]).toEqual([header, 304]);
      }
    });
  });

  it('answers 200 with a new ETag once the body changes', async () => {
    await withServer(adapter, { routes }, async (url) => {
      version = 1;
      const etag = (await call(`${url}/doc`)).headers.get('etag') ?? '';
      version = 2;
      const changed = await call(`${url}/doc`, { headers: { 'if-none-match': etag } });
      expect(changed.status).toBe(200);
      expect(changed.json).toEqual({ version: 2 });
      expect(changed.headers.get('etag')).not.toBe(etag);
    });
  });

  it('applies to HEAD as well', async () => {
    await withServer(adapter, { routes }, async (url) => {
      version = 1;
      const etag = (await call(`${url}/doc`)).headers.get('etag') ?? '';
      const head = await rawRequest(url, {
        method: 'HEAD',
        path: '/doc',
        headers: { 'if-none-match': etag },
      });
      expect(head.status).toBe(304);
      expect(head.headers.etag).toBe(etag);
    });
  });

  it('is off without meta.etag, on POST, on replies the handler sent and on errors', async () => {
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/plain`)).headers.get('etag')).toBeNull();
      const post = await call(`${url}/doc`, { method: 'POST', headers: { 'if-none-match': '*' } });
      expect(post.status).toBe(200);
      expect(post.headers.get('etag')).toBeNull();
      const self = await call(`${url}/self`, { headers: { 'if-none-match': '*' } });
      expect(self.status).toBe(200);
      expect(self.headers.get('etag')).toBeNull();
      const missing = await call(`${url}/missing`, { headers: { 'if-none-match': '*' } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('etag')).toBeNull();
    });
  });
});
