// What is specific to the Fastify adapter: its options, the exposed instance, listen/close.
import { describe, expect, it } from 'vitest';
import { createApp, route, securityPlugin } from 'svckit';
import { DEFAULT_REQUEST_TIMEOUT_MS, fastifyPlugin } from 'svckit/fastify';
import { call, parseRawResponse, rawRequest, rawSocket } from './harness.js';

const routes = [
  route({ method: 'GET', url: '/ip', handler: ({ request }) => ({ ip: request.ip }) }),
  route({
    method: 'GET',
    url: '/where',
    handler: ({ request }) => ({ url: request.url, path: request.path, pattern: request.routePattern }),
  }),
  route({ method: 'POST', url: '/echo', handler: ({ body }) => ({ body }) }),
  route({
    method: 'GET',
    url: '/inject-sent',
    handler: ({ reply }) => {
      reply.header('x-bad', 'a\r\nSet-Cookie: evil=1').send('never');
    },
  }),
  route({
    method: 'GET',
    url: '/inject',
    handler: ({ reply }) => {
      reply.header('x-bad', 'a\r\nSet-Cookie: evil=1');
      return 'never';
    },
  }),
];

async function started(options: Parameters<typeof fastifyPlugin>[0] = {}) {
  const app = createApp();
  const plugin = fastifyPlugin({ routes, onError: false, ...options });
  app.register(plugin);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, plugin, address };
}

describe('fastifyPlugin', () => {
  it('refuses an unknown option when the plugin is created, naming it', () => {
    expect(() => fastifyPlugin({ routes, fastfy: { bodyLimit: 10 } } as never)).toThrow(
      /fastifyPlugin\(\): unknown option "fastfy" \(did you mean "fastify"\?\); it takes routes, allowUnguardedMeta, notFound, onError, fastify\./,
    );
    expect(() => fastifyPlugin({ routes, bodyLimit: 10 } as never)).toThrow(/unknown option "bodyLimit"/);
    expect(() => fastifyPlugin({ routes, notFound: false, fastify: {} })).not.toThrow();
  });

  it('listens on the given host and port and reports them', async () => {
    const { app, address } = await started();
    try {
      expect(address.host).toBe('127.0.0.1');
      expect(address.port).toBeGreaterThan(0);
      expect(address.url).toBe(`http://127.0.0.1:${address.port}`);
      expect((await call(`${address.url}/where`)).status).toBe(200);
    } finally {
      await app.close();
    }
    await expect(fetch(`${address.url}/where`)).rejects.toThrow();
  });

  it('sends headers that Fastify hooks set, and Fastify onResponse hooks see the answer', async () => {
    const plugin = fastifyPlugin({ routes });
    const app = createApp().register(plugin);
    await app.boot();
    const seen: number[] = [];
    plugin.fastify.addHook('onRequest', async (_request, reply) => {
      reply.header('x-from-hook', 'yes');
    });
    plugin.fastify.addHook('onResponse', async (_request, reply) => {
      seen.push(reply.statusCode);
    });
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const ok = await call(`${url}/where`);
      expect(ok.status).toBe(200);
      expect(ok.headers.get('x-from-hook')).toBe('yes');
      expect(ok.headers.get('x-request-id')).toBeTruthy();
      const missing = await call(`${url}/nowhere`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-from-hook')).toBe('yes');
      expect(seen).toEqual([200, 404]);
    } finally {
      await app.close();
    }
  });

  it("runs svc's request hooks on errors Fastify raises outside a route: a throwing Fastify hook, a bad URL", async () => {
    const plugin = fastifyPlugin({ routes, onError: false });
    const app = createApp()
      .register(securityPlugin({ rateLimit: { limit: 10, windowMs: 60_000 } }))
      .register(plugin);
    await app.boot();
    plugin.fastify.addHook('onRequest', async (request) => {
      if (request.headers['x-fail'] !== undefined)
        throw Object.assign(new Error('nope'), { statusCode: 401 });
    });
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const failed = await call(`${url}/where`, { headers: { 'x-fail': '1' } });
      expect(failed.status).toBe(500);
      expect(failed.headers.get('x-content-type-options')).toBe('nosniff');
      expect(failed.headers.get('x-ratelimit-remaining')).toBe('9');
      const badUrl = parseRawResponse(
        await rawSocket(url, 'GET /where%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      expect(badUrl.status).toBe(400);
      expect(badUrl.headers['content-security-policy']).toBeDefined();
      expect(badUrl.headers['x-ratelimit-remaining']).toBe('8');
    } finally {
      await app.close();
    }
  });

  it('exposes the Fastify instance after boot only', async () => {
    const plugin = fastifyPlugin({ routes });
    expect(() => plugin.fastify).toThrow(/after app.boot/);
    const app = createApp().register(plugin);
    await app.boot();
    const response = await plugin.fastify.inject({ method: 'GET', url: '/where?x=1' });
    expect(response.json()).toEqual({ url: '/where?x=1', path: '/where', pattern: '/where' });
    await app.close();
  });

  it('sets the request timeout to 30000 ms by default', async () => {
    const { app, plugin } = await started();
    try {
      expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000);
      expect(plugin.fastify.server.requestTimeout).toBe(30_000);
    } finally {
      await app.close();
    }
  });

  it('answers a request that does not arrive in time with 408 REQUEST_TIMEOUT', async () => {
    const { app, address } = await started({
      fastify: { requestTimeout: 200, http: { connectionsCheckingInterval: 50 } },
    });
    try {
      // Headers never finish: Node's request timeout fires and the client error handler answers.
      const response = parseRawResponse(await rawSocket(address.url, 'GET /where HTTP/1.1\r\nHost: x\r\n'));
      expect(response.status).toBe(408);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'REQUEST_TIMEOUT', message: 'Request timed out.' },
      });
    } finally {
      await app.close();
    }
  });

  it('passes native options through (bodyLimit, requestTimeout)', async () => {
    const { app, plugin, address } = await started({ fastify: { bodyLimit: 10, requestTimeout: 5000 } });
    try {
      expect(plugin.fastify.server.requestTimeout).toBe(5000);
      const small = await rawRequest(address.url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(small.status).toBe(200);
      const large = await rawRequest(address.url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/json' },
        body: '{"a":"12345"}',
      });
      expect(large.status).toBe(413);
      expect(JSON.parse(large.body).error.code).toBe('PAYLOAD_TOO_LARGE');
    } finally {
      await app.close();
    }
  });

  it('takes the client IP from the socket, never from X-Forwarded-For unless trustProxy is set', async () => {
    const plain = await started();
    try {
      const response = await call(`${plain.address.url}/ip`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(response.json).toEqual({ ip: '127.0.0.1' });
    } finally {
      await plain.app.close();
    }
    const proxied = await started({ fastify: { trustProxy: true } });
    try {
      const response = await call(`${proxied.address.url}/ip`, {
        headers: { 'x-forwarded-for': '203.0.113.9' },
      });
      expect(response.json).toEqual({ ip: '203.0.113.9' });
    } finally {
      await proxied.app.close();
    }
  });

  it('keeps routing conventions even when native options ask otherwise', async () => {
    const { app, address } = await started({
      fastify: { routerOptions: { ignoreTrailingSlash: true, caseSensitive: false } },
    });
    try {
      expect((await call(`${address.url}/where/`)).status).toBe(404);
      expect((await call(`${address.url}/WHERE`)).status).toBe(404);
    } finally {
      await app.close();
    }
  });

  it('gives the neutral request an origin-form url for absolute-form targets', async () => {
    const { app, address } = await started();
    try {
      const text = await rawSocket(
        address.url,
        `GET http://example.test/where?q=1 HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n`,
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ url: '/where?q=1', path: '/where' });
    } finally {
      await app.close();
    }
  });

  it('answers a header value with CR/LF from a handler with 500, never splitting the response', async () => {
    const { app, address } = await started();
    try {
      for (const path of ['/inject', '/inject-sent']) {
        const text = await rawSocket(
          address.url,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        expect(text).not.toMatch(/\r\nSet-Cookie: evil=1/i);
        expect(parseRawResponse(text).status).toBe(500);
      }
    } finally {
      await app.close();
    }
  });
});
