// Routing conventions: neutral 404, notFound: false, 405 with Allow, case-sensitive paths, no trailing-slash
// alias, conflicting routes refuse to boot.
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { adapters, call, withServer } from './harness.js';

const routes = [
  route({ method: 'GET', url: '/notes', handler: () => 'list' }),
  route({ method: 'POST', url: '/notes', handler: () => 'create' }),
  route({ method: 'GET', url: '/notes/:id', handler: ({ params }) => ({ id: params.id }) }),
  route({ method: 'DELETE', url: '/notes/:id', handler: () => undefined }),
  route({ method: 'GET', url: '/Caps', handler: () => 'caps' }),
];

describe.each(adapters)('routing on $name', (adapter) => {
  it('answers an unknown path with the neutral 404', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const path of ['/nope', '/notes/1/extra', '/']) {
        const response = await call(`${url}${path}`, { method: 'POST' });
        expect([path, response.status]).toEqual([path, 404]);
        expect(response.json).toEqual({ error: { code: 'NOT_FOUND', message: 'Route not found.' } });
      }
    });
  });

  it('answers 405 with Allow when the path exists for other methods', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const put = await call(`${url}/notes`, { method: 'PUT' });
      expect(put.status).toBe(405);
      expect(put.headers.get('allow')).toBe('GET, POST, HEAD');
      expect(put.json).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed.' } });
      const patch = await call(`${url}/notes/42?x=1`, { method: 'PATCH' });
      expect(patch.status).toBe(405);
      expect(patch.headers.get('allow')).toBe('GET, DELETE, HEAD');
    });
  });

  it('is case-sensitive and has no trailing-slash alias', async () => {
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/Caps`)).text).toBe('caps');
      expect((await call(`${url}/caps`)).status).toBe(404);
      expect((await call(`${url}/NOTES`)).status).toBe(404);
      expect((await call(`${url}/notes/`)).status).toBe(404);
    });
  });

  it('decodes path parameters', async () => {
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/notes/a%20b`)).json).toEqual({ id: 'a b' });
    });
  });

  it('notFound: false mounts no neutral 404', async () => {
    await withServer(adapter, { routes, options: { notFound: false } }, async (url) => {
      const response = await call(`${url}/nope`);
      expect(response.status).toBe(404);
      expect(response.json).not.toEqual({ error: { code: 'NOT_FOUND', message: 'Route not found.' } });
    });
  });

  it('refuses to boot when two routes share method and path', async () => {
    const conflicting = [
      route({ method: 'GET', url: '/a/:id', handler: () => 1 }),
      route({ method: 'GET', url: '/a/:other', handler: () => 2 }),
    ];
    await expect(adapter.start({ routes: conflicting })).rejects.toMatchObject({
      code: 'HTTP_ROUTE_CONFLICT',
      message: expect.stringContaining('GET /a/:other repeats GET /a/:id'),
    });
  });
});
