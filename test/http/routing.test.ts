// Routing conventions: neutral 404, notFound: false, 405 with Allow, case-sensitive paths, no trailing-slash
// alias, conflicting routes refuse to boot, paths matched as sent (no dot-segment normalisation), the Host
// header never used to route, unknown adapter options refused.
import { describe, expect, it } from 'vitest';
import { adapterPlugin, route } from 'svckit';
import { adapters, call, parseRawResponse, rawSocket, withServer } from './harness.js';

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

/** One GET on a fresh connection with exactly this target and Host line (null: no Host header). */
async function rawGet(url: string, target: string, host: string | null) {
  const hostLine = host === null ? '' : `Host: ${host}\r\n`;
  return parseRawResponse(
    await rawSocket(url, `GET ${target} HTTP/1.1\r\n${hostLine}Connection: close\r\n\r\n`),
  );
}

describe.each(adapters)('paths and Host as sent on $name', (adapter) => {
  it('matches the path as sent: dot segments, encoded or not, are never resolved', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const target of [
        '/x/../notes',
        '/auth/%2e%2e/notes',
        '/auth/%2E%2E/notes',
        '/./notes',
        '/x/%2e/../notes',
      ]) {
        const response = await rawGet(url, target, 'localhost');
        expect([target, response.status]).toEqual([target, 404]);
        expect(JSON.parse(response.body)).toEqual({
          error: { code: 'NOT_FOUND', message: 'Route not found.' },
        });
      }
      // A dot segment is an ordinary parameter value.
      for (const [target, id] of [
        ['/notes/..', '..'],
        ['/notes/.', '.'],
        ['/notes/%2e%2e', '..'],
        ['/notes/%2E', '.'],
      ] as const) {
        const response = await rawGet(url, target, 'localhost');
        expect([target, response.status, JSON.parse(response.body)]).toEqual([target, 200, { id }]);
      }
    });
  });

  it('answers a backslash path and an asterisk target like any unknown path', async () => {
    await withServer(adapter, { routes }, async (url) => {
      for (const target of ['/notes\\x', '/x\\..\\notes', '*']) {
        const response = await rawGet(url, target, 'localhost');
        expect([target, response.status]).toEqual([target, 404]);
      }
      const response = await rawGet(url, '/notes/a\\b', 'localhost');
      expect([response.status, JSON.parse(response.body)]).toEqual([200, { id: 'a\\b' }]);
    });
  });

  it('serves a request whatever its Host header says; HTTP/1.1 without one is a 400', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const hosts = [
        'a b',
        '[zz]',
        'example.com:99999',
        'a@b',
        'x/y',
        'x?y',
        'x#y',
        'EXAMPLE.com',
        '[::1]:80',
        '',
      ];
      for (const host of hosts) {
        const response = await rawGet(url, '/notes?q=1', host);
        expect([host, response.status, response.body]).toEqual([host, 200, 'list']);
      }
      const unknown = await rawGet(url, '/nope', 'a b');
      expect([unknown.status, JSON.parse(unknown.body).error.code]).toEqual([404, 'NOT_FOUND']);
      // RFC 9112 §3.2; node answers it itself, before any adapter sees the request.
      expect((await rawGet(url, '/notes', null)).status).toBe(400);
    });
  });

  it('refuses an unknown adapter option at start, naming it and the likely intended one', async () => {
    await expect(adapter.start({ routes, options: { notfound: false } })).rejects.toThrow(
      /unknown option "notfound" \(did you mean "notFound"\?\)/,
    );
  });
});

describe('adapterPlugin options', () => {
  it('takes only the options every adapter shares and names an unknown one', async () => {
    for (const name of ['fastify', 'express', 'hono'] as const) {
      await expect(adapterPlugin(name, { routes: [], bodyLimit: 10 } as never)).rejects.toThrow(
        /adapterPlugin\(\): unknown option "bodyLimit"; it takes routes, allowUnguardedMeta, notFound, onError/,
      );
      // The shared options are taken, and the adapter the name asks for is the one made.
      expect((await adapterPlugin(name, { routes: [], notFound: false })).name).toBe(`svc:${name}`);
    }
  });
});
