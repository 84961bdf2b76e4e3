// openapiPlugin on every adapter: the generated document at /openapi.json, public, with an ETag.
import { describe, expect, it } from 'vitest';
import { createApp, openapiPlugin } from 'svckit';
import document from '../../generated/openapi.json' with { type: 'json' };
import { adapters, call, denyAllPlugin, withServer } from './harness.js';

describe.each(adapters)('openapiPlugin on $name', (adapter) => {
  it('serves the generated document, public, with info applied and an ETag', async () => {
    const plugin = openapiPlugin({ document, info: { title: 'Notes (staging)' }, tags: [{ name: 'notes' }] });
    await withServer(adapter, { routes: [], plugins: [denyAllPlugin(), plugin] }, async (url) => {
      const response = await call(`${url}/openapi.json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const served = response.json as typeof document;
      expect(served.info).toEqual({ ...document.info, title: 'Notes (staging)' });
      expect(served.tags).toEqual([{ name: 'notes' }]);
      expect(served.paths).toEqual(document.paths);
      // The input document is left as it was.
      expect(document.info.title).not.toBe('Notes (staging)');
      const etag = response.headers.get('etag');
      expect(etag).toMatch(/^"/);
      const again = await call(`${url}/openapi.json`, { headers: { 'if-none-match': etag ?? '' } });
      expect(again.status).toBe(304);
    });
  });

  it('serves at another path when asked', async () => {
    await withServer(
      adapter,
      { routes: [], plugins: [openapiPlugin({ document, path: '/docs/api.json' })] },
      async (url) => {
        expect((await call(`${url}/docs/api.json`)).status).toBe(200);
        expect((await call(`${url}/openapi.json`)).status).toBe(404);
      },
    );
  });
});

describe('openapiPlugin options', () => {
  it('refuses something that is not an OpenAPI document, and a path with parameters', () => {
    expect(() => openapiPlugin({ document: undefined as never })).toThrow(TypeError);
    expect(() => openapiPlugin({ document: { paths: {} } })).toThrow(/openapi/);
    expect(() => openapiPlugin({ document, path: '/docs/:v' })).toThrow(/path/);
  });

  it('lists the document among the URLs printed at start', async () => {
    const app = createApp().register(openapiPlugin({ document }));
    await app.boot();
    expect(app.metadata.list('app:urls')).toContainEqual({ label: 'OpenAPI', path: '/openapi.json' });
  });
});
