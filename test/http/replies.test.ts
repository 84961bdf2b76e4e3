// Reply mapping: JSON, text, bytes, 204, statuses, handler-set content types, handler-sent replies, HEAD.
import { describe, expect, it } from 'vitest';
import { route } from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

const routes = [
  route({ method: 'GET', url: '/json', handler: () => ({ ok: true, list: [1, 'é'] }) }),
  route({ method: 'GET', url: '/null', handler: () => null }),
  route({ method: 'GET', url: '/text', handler: () => 'plain text' }),
  route({ method: 'GET', url: '/bytes', handler: () => Buffer.from([0, 1, 2, 255]) }),
  route({ method: 'DELETE', url: '/nothing', handler: () => undefined }),
  route({
    method: 'POST',
    url: '/nothing-accepted',
    handler: ({ reply }) => {
      reply.status(202);
    },
  }),
  route({
    method: 'POST',
    url: '/no-content-typed',
    handler: ({ reply }) => {
      reply.status(204).header('content-type', 'text/csv');
      return 'never sent';
    },
  }),
  route({ method: 'POST', url: '/created', successStatus: 201, handler: () => ({ id: 1 }) }),
  route({
    method: 'POST',
    url: '/chosen',
    successStatus: 201,
    handler: ({ reply }) => {
      reply.status(200);
      return { updated: true };
    },
  }),
  route({
    method: 'GET',
    url: '/csv',
    handler: ({ reply }) => {
      reply.header('Content-Type', 'text/csv; charset=utf-8');
      return 'a,b\n1,2';
    },
  }),
  route({
    method: 'GET',
    url: '/hal',
    handler: ({ reply }) => {
      reply.header('content-type', 'application/hal+json');
      return { _links: {} };
    },
  }),
  route({
    method: 'GET',
    url: '/self',
    handler: ({ reply }) => {
      reply.status(206).header('x-custom', 'yes').send('partial');
      return { ignored: true };
    },
  }),
  route({
    method: 'GET',
    url: '/headers',
    handler: ({ reply }) => {
      reply.header('cache-control', 'no-store').header('x-removed', '1').removeHeader('x-removed');
      return { fine: reply.getHeader('cache-control') };
    },
  }),
  route({
    method: 'GET',
    url: '/async',
    handler: async () => {
      await new Promise((resolve) => setImmediate(resolve));
      return { later: true };
    },
  }),
  route({
    method: 'GET',
    url: '/bad-status',
    handler: ({ reply }) => {
      reply.status(1000);
      return 'never';
    },
  }),
];

describe.each(adapters)('replies on $name', (adapter) => {
  it("never validates a value against the route's response schemas (documentation and clients only)", async () => {
    const documented = route({
      method: 'GET',
      url: '/documented',
      response: {
        200: {
          type: 'object',
          properties: { count: { type: 'integer' } },
          required: ['count'],
          additionalProperties: false,
        },
      },
      handler: () => ({ count: 'many', extra: true }),
    });
    await withServer(adapter, { routes: [documented] }, async (url) => {
      const response = await call(`${url}/documented`);
      expect(response.status).toBe(200);
      expect(response.json).toEqual({ count: 'many', extra: true });
    });
  });

  it('sends a returned object as JSON with status 200', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/json`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.text).toBe('{"ok":true,"list":[1,"é"]}');
      const nothing = await call(`${url}/null`);
      expect(nothing.text).toBe('null');
    });
  });

  it('sends a string as text/plain; charset=utf-8', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/text`);
      expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(response.text).toBe('plain text');
    });
  });

  it('sends a Buffer as application/octet-stream', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await fetch(`${url}/bytes`);
      expect(response.headers.get('content-type')).toBe('application/octet-stream');
      expect([...new Uint8Array(await response.arrayBuffer())]).toEqual([0, 1, 2, 255]);
    });
  });

  it('answers undefined with 204 and no body, or the status the handler set', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const none = await rawRequest(url, { method: 'DELETE', path: '/nothing' });
      expect(none.status).toBe(204);
      expect(none.body).toBe('');
      expect(none.headers['content-type']).toBeUndefined();
      expect(none.headers['content-length']).toBeUndefined();
      const accepted = await rawRequest(url, { method: 'POST', path: '/nothing-accepted' });
      expect(accepted.status).toBe(202);
      expect(accepted.body).toBe('');
      // An empty answer with a status that may carry a body says so, so keep-alive framing holds.
      expect(accepted.headers['content-length']).toBe('0');
    });
  });

  it('sends neither body nor content headers with a 204, even when the handler set a type and returned text', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await rawRequest(url, { method: 'POST', path: '/no-content-typed' });
      expect(response.status).toBe(204);
      expect(response.body).toBe('');
      expect(response.headers['content-type']).toBeUndefined();
      expect(response.headers['content-length']).toBeUndefined();
      expect(response.headers['x-request-id']).toBeDefined();
    });
  });

  it("uses the route's success status unless the handler chose one", async () => {
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/created`, { method: 'POST' })).status).toBe(201);
      expect((await call(`${url}/chosen`, { method: 'POST' })).status).toBe(200);
    });
  });

  it('keeps a content type the handler set', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const csv = await call(`${url}/csv`);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.text).toBe('a,b\n1,2');
      const hal = await call(`${url}/hal`);
      expect(hal.headers.get('content-type')).toMatch(/^application\/hal\+json/);
      expect(hal.json).toEqual({ _links: {} });
    });
  });

  it('ignores the return value when the handler already replied', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/self`);
      expect(response.status).toBe(206);
      expect(response.text).toBe('partial');
      expect(response.headers.get('x-custom')).toBe('yes');
    });
  });

  it('lets the handler set, read and remove headers', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/headers`);
      expect(response.headers.get('cache-control')).toBe('no-store');
      expect(response.headers.get('x-removed')).toBeNull();
      expect(response.json).toEqual({ fine: 'no-store' });
    });
  });

  it('replaces a header set twice, Set-Cookie included; a list sends one line per value', async () => {
    const cookies = [
      route({
        method: 'GET',
        url: '/cookies/replaced',
        handler: ({ reply }) => {
          reply.header('set-cookie', 'a=1; Path=/');
          reply.header('Set-Cookie', 'b=2; Path=/');
          return { ok: true };
        },
      }),
      route({
        method: 'GET',
        url: '/cookies/listed',
        handler: ({ reply }) => {
          reply.header('set-cookie', 'a=1; Path=/');
          reply.header('set-cookie', ['b=2; Path=/', 'c=3; Path=/']);
          return { ok: true, read: reply.getHeader('set-cookie') };
        },
      }),
    ];
    await withServer(adapter, { routes: cookies }, async (url) => {
      const replaced = await rawRequest(url, { method: 'GET', path: '/cookies/replaced' });
      expect(replaced.headers['set-cookie']).toEqual(['b=2; Path=/']);
      const listed = await rawRequest(url, { method: 'GET', path: '/cookies/listed' });
      expect(listed.headers['set-cookie']).toEqual(['b=2; Path=/', 'c=3; Path=/']);
      expect(JSON.parse(listed.body)).toEqual({ ok: true, read: ['b=2; Path=/', 'c=3; Path=/'] });
    });
  });

  it('awaits async handlers', async () => {
    await withServer(adapter, { routes }, async (url) => {
      expect((await call(`${url}/async`)).json).toEqual({ later: true });
    });
  });

  it('answers an invalid status chosen by the handler with 500', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const response = await call(`${url}/bad-status`);
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
    });
  });

  it('answers HEAD on a GET route with headers only', async () => {
    await withServer(adapter, { routes }, async (url) => {
      const get = await rawRequest(url, { method: 'GET', path: '/json' });
      const head = await rawRequest(url, { method: 'HEAD', path: '/json' });
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(head.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(head.headers['content-length']).toBe(get.headers['content-length']);
      expect(head.headers['x-request-id']).toBeDefined();
    });
  });

  it('lets an application define HEAD itself beside GET, in either order', async () => {
    const headFirst = [
      route({
        method: 'HEAD',
        url: '/b',
        handler: ({ reply }) => {
          reply.header('x-head', 'own');
        },
      }),
      route({ method: 'GET', url: '/b', handler: () => 'get b' }),
    ];
    const getFirst = [
      route({ method: 'GET', url: '/a', handler: () => 'get a' }),
      route({
        method: 'HEAD',
        url: '/a',
        handler: ({ reply }) => {
          reply.header('x-head', 'own');
        },
      }),
    ];
    await withServer(adapter, { routes: [...getFirst, ...headFirst] }, async (url) => {
      for (const path of ['/a', '/b']) {
        const head = await rawRequest(url, { method: 'HEAD', path });
        expect([path, head.status, head.headers['x-head']]).toEqual([path, 204, 'own']);
        expect((await call(`${url}${path}`)).text).toBe(`get ${path.slice(1)}`);
      }
    });
  });
});
