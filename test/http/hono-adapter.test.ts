// What is specific to the Hono adapter: its options, the exposed app and fetch handler, listen/close, the
// fetch-based use without a server, Hono middleware and error handling, and the web-stream replies.
import { Hono } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { request as httpRequest } from 'node:http';
import { Readable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  createApp,
  HttpError,
  rawBody,
  route,
  securityPlugin,
  upload,
  type ErrorReport,
  type RawBodyInput,
  type ReplySink,
  type Route,
  type UploadInput,
} from 'svckit';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  honoPlugin,
  type HonoPluginOptions,
} from 'svckit/hono';
import { HonoSvcReply } from '../../runtime/adapters/hono/reply.js';
import { collectingLogger, type Logger } from '../../runtime/log/index.js';
import { call, parseRawResponse, rawRequest, rawSocket } from './harness.js';

const routes = [
  route({ method: 'GET', url: '/ip', handler: ({ request }) => ({ ip: request.ip ?? null }) }),
  route({
    method: 'GET',
    url: '/where',
    handler: ({ request }) => ({ url: request.url, path: request.path, pattern: request.routePattern }),
  }),
  route({ method: 'POST', url: '/echo', handler: ({ body }) => ({ body: body ?? null }) }),
  route({ method: 'GET', url: '/notes/:id', handler: ({ params }) => ({ route: 'one', params }) }),
  route({ method: 'GET', url: '/notes/new', handler: () => ({ route: 'new' }) }),
  route({
    method: 'HEAD',
    url: '/probe',
    handler: ({ reply }) => {
      reply.header('x-probe', 'yes');
    },
  }),
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
  route({
    method: 'GET',
    url: '/odd-names',
    handler: ({ reply }) => {
      const unset = [typeof reply.getHeader('constructor'), typeof reply.getHeader('toString')];
      reply.header('x-unset', JSON.stringify(unset));
      reply.header('__proto__', 'polluted');
      return 'never';
    },
  }),
  route({
    method: 'GET',
    url: '/cookies',
    handler: ({ reply }) => {
      reply.header('set-cookie', ['a=1', 'b=2']);
      return 'ok';
    },
  }),
  route({
    method: 'GET',
    url: '/boom',
    handler: () => {
      throw new Error('kaboom');
    },
  }),
];

async function started(options: HonoPluginOptions = {}, extra: Route[] = []) {
  const app = createApp();
  const plugin = honoPlugin({ routes: [...routes, ...extra], onError: false, ...options });
  app.register(plugin);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, plugin, address };
}

/** A booted app used through its fetch handler only, as on Bun, Deno or Workers. */
async function fetchOnly(options: HonoPluginOptions = {}, extra: Route[] = [], logger?: Logger) {
  const plugin = honoPlugin({ routes: [...routes, ...extra], onError: false, ...options });
  await createApp(logger ? { logger } : {})
    .register(plugin)
    .boot();
  return (path: string, init?: RequestInit) =>
    Promise.resolve(plugin.fetch(new Request(`http://svc.test${path}`, init)));
}

/** A POST whose body goes out in chunks, without Content-Length (Transfer-Encoding: chunked). */
function chunkedPost(url: string, path: string, chunks: string[]): Promise<{ status: number; body: string }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: 'POST',
        path,
        headers: { 'content-type': 'text/plain' },
      },
      (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    // The server may answer (and stop reading) before every chunk went out.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') reject(error);
    });
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

/** The reply a handler gets is the adapter's sink; tests drive stream() on it directly. */
const sinkOf = (reply: unknown) => reply as ReplySink;

afterEach(() => {
  vi.restoreAllMocks();
});

describe('honoPlugin: server and app', () => {
  it('listens on the given host and port, reports them, and close() stops the node server', async () => {
    const { app, plugin, address } = await started();
    try {
      expect(address.host).toBe('127.0.0.1');
      expect(address.port).toBeGreaterThan(0);
      expect(address.url).toBe(`http://127.0.0.1:${address.port}`);
      expect(plugin.server?.listening).toBe(true);
      expect(plugin.server?.requestTimeout).toBe(DEFAULT_REQUEST_TIMEOUT_MS);
      expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000);
      expect((await call(`${address.url}/where`)).status).toBe(200);
    } finally {
      await app.close();
    }
    expect(plugin.server).toBeUndefined();
    await expect(fetch(`${address.url}/where`)).rejects.toThrow();
  });

  it('exposes the Hono app and its fetch handler after boot only', async () => {
    const plugin = honoPlugin({ routes });
    expect(() => plugin.hono).toThrow(/after app.boot/);
    expect(() => plugin.fetch).toThrow(/after app.boot/);
    await createApp().register(plugin).boot();
    expect(plugin.hono).toBeInstanceOf(Hono);
    const response = await plugin.fetch(new Request('http://svc.test/where?x=1'));
    expect(await response.json()).toEqual({ url: '/where?x=1', path: '/where', pattern: '/where' });
  });

  it('mounts on an own Hono app: its middleware runs first and the headers it sets go out', async () => {
    const own = new Hono();
    own.use(async (c, next) => {
      c.header('x-before', 'set before the route');
      await next();
      c.header('x-after', 'set after the route');
    });
    own.get('/native', (c) => c.text('from hono'));
    const plugin = honoPlugin({ app: own, routes, onError: false });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(plugin.hono).toBe(own);
      for (const [path, status] of [
        ['/where', 200],
        ['/nowhere', 404],
        ['/boom', 500],
      ] as const) {
        const response = await call(`${url}${path}`);
        expect([path, response.status]).toEqual([path, status]);
        expect([path, response.headers.get('x-before')]).toEqual([path, 'set before the route']);
        expect([path, response.headers.get('x-after')]).toEqual([path, 'set after the route']);
        expect(response.headers.get('x-request-id')).toBeTruthy();
      }
      expect((await call(`${url}/where`)).json).toEqual({ url: '/where', path: '/where', pattern: '/where' });
      expect((await call(`${url}/native`)).text).toBe('from hono');
    } finally {
      await app.close();
    }
  });

  it('reads a body Hono middleware already parsed from Hono, not from the spent stream', async () => {
    const own = new Hono();
    own.use(async (c, next) => {
      if (c.req.method === 'POST') c.set('seen' as never, (await c.req.json()) as never);
      await next();
    });
    const plugin = honoPlugin({ app: own, routes, onError: false });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await call(`${url}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      expect(response.json).toEqual({ body: { a: 1 } });
    } finally {
      await app.close();
    }
  });

  it('ranks static segments before parameters, whatever the registration order, as the other adapters', async () => {
    const { app, address } = await started();
    try {
      expect((await call(`${address.url}/notes/new`)).json).toEqual({ route: 'new' });
      expect((await call(`${address.url}/notes/7`)).json).toEqual({ route: 'one', params: { id: '7' } });
    } finally {
      await app.close();
    }
  });

  it('answers HEAD on a HEAD-only route, and GET there with 405 Allow: HEAD', async () => {
    const { app, address } = await started();
    try {
      const head = await rawRequest(address.url, { method: 'HEAD', path: '/probe' });
      expect([head.status, head.headers['x-probe']]).toEqual([204, 'yes']);
      const get = await call(`${address.url}/probe`);
      expect(get.status).toBe(405);
      expect(get.headers.get('allow')).toBe('HEAD');
    } finally {
      await app.close();
    }
  });

  it('reads no inherited header names and refuses __proto__ as one', async () => {
    const reports: ErrorReport[] = [];
    const { app, address } = await started({ onError: (report) => reports.push(report) });
    try {
      const response = await rawRequest(address.url, { method: 'GET', path: '/odd-names' });
      expect(response.status).toBe(500);
      expect(response.headers['x-unset']).toBe('["undefined","undefined"]');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      expect((reports[0]?.error as Error).message).toMatch(/Invalid header name/);
    } finally {
      await app.close();
    }
  });

  it('sends a list header (set-cookie) as separate header lines', async () => {
    const { app, address } = await started();
    try {
      const response = await rawRequest(address.url, { method: 'GET', path: '/cookies' });
      expect(response.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    } finally {
      await app.close();
    }
  });

  it('serves a request whose Host or target node-server cannot turn into a URL, as the other adapters do', async () => {
    const { app, address } = await started();
    try {
      const get = async (target: string, host: string) =>
        parseRawResponse(
          await rawSocket(
            address.url,
            `GET ${target} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
          ),
        );
      const oddHost = await get('/where?a=1', 'bad host');
      expect(oddHost.status).toBe(200);
      expect(JSON.parse(oddHost.body)).toEqual({ url: '/where?a=1', path: '/where', pattern: '/where' });
      expect(oddHost.headers['x-request-id']).toBeDefined();
      // The path is matched as sent, and the neutral request and Hono's c.req.path carry it unresolved.
      const dots = await get('/notes/%2e%2e', 'localhost');
      expect(JSON.parse(dots.body)).toEqual({ route: 'one', params: { id: '..' } });
      const backslash = await get('/notes/a\\b', 'a b');
      expect(JSON.parse(backslash.body)).toEqual({ route: 'one', params: { id: 'a\\b' } });
    } finally {
      await app.close();
    }
  });
});

describe('honoPlugin: fetch-based use without a server', () => {
  it('answers through app.fetch: JSON, bodies, params, HEAD, 404 and 405', async () => {
    const fetchIt = await fetchOnly();
    const where = await fetchIt('/where?q=1');
    expect(where.status).toBe(200);
    expect(where.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(where.headers.get('x-request-id')).toBeTruthy();
    expect(await where.json()).toEqual({ url: '/where?q=1', path: '/where', pattern: '/where' });
    const echo = await fetchIt('/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'a=1&a=2',
    });
    expect(await echo.json()).toEqual({ body: { a: ['1', '2'] } });
    expect(await (await fetchIt('/notes/a%20b')).json()).toEqual({ route: 'one', params: { id: 'a b' } });
    const head = await fetchIt('/where', { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(0);
    expect(await head.text()).toBe('');
    expect((await fetchIt('/probe', { method: 'HEAD' })).headers.get('x-probe')).toBe('yes');
    const missing = await fetchIt('/nope');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'Route not found.' } });
    const wrong = await fetchIt('/where', { method: 'DELETE' });
    expect([wrong.status, wrong.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
  });

  it('warns once per plugin, when no socket and no getClientIp exist, that clients share one bucket', async () => {
    const logger = collectingLogger();
    const first = await fetchOnly({}, [], logger);
    expect(await (await first('/ip')).json()).toEqual({ ip: null });
    expect(await (await first('/ip')).json()).toEqual({ ip: null });
    expect(logger.at('warn')).toHaveLength(1);
    expect(logger.at('warn')[0]?.msg).toMatch(/getClientIp.*one rate-limit bucket/s);
    const second = await fetchOnly({}, [], logger);
    await second('/ip');
    expect(logger.at('warn')).toHaveLength(2);
  });

  it('prints no warning when a getClientIp resolver is configured, and uses it with the Hono context', async () => {
    const logger = collectingLogger();
    const fetchIt = await fetchOnly({ getClientIp: (c) => c.req.header('cf-connecting-ip') }, [], logger);
    const response = await fetchIt('/ip', { headers: { 'cf-connecting-ip': '198.51.100.7' } });
    expect(await response.json()).toEqual({ ip: '198.51.100.7' });
    expect(logger.entries).toEqual([]);
  });

  it('applies bodyLimit to web bodies: declared length refused, streamed body cut', async () => {
    const fetchIt = await fetchOnly({ bodyLimit: 8 });
    const declared = await fetchIt('/echo', {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'content-length': '9' },
      body: '123456789',
    });
    expect(declared.status).toBe(413);
    const chunks = ['12345', '67890'];
    const streamed = await fetchIt('/echo', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: new ReadableStream({
        pull(controller) {
          const next = chunks.shift();
          if (next === undefined) controller.close();
          else controller.enqueue(new TextEncoder().encode(next));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(await streamed.json()).toEqual({
      error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
    });
    const fits = await fetchIt('/echo', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: '12345678',
    });
    expect(await fits.json()).toEqual({ body: '12345678' });
  });
});

const bodyRoutes = [
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/raw',
    body: rawBody({ maxBytes: 64 }),
    handler: ({ body }) => ({ hex: body.bytes.toString('hex'), contentType: body.contentType ?? null }),
  }),
  route<{ body: UploadInput }>({
    method: 'POST',
    url: '/upload',
    body: upload({ maxBytes: 4096, maxFiles: 2 }),
    handler: async ({ body }) => {
      const files: string[] = [];
      for await (const file of body.files) {
        const chunks: Buffer[] = [];
        for await (const chunk of file.stream) chunks.push(chunk as Buffer);
        files.push(`${file.field}:${file.filename}:${Buffer.concat(chunks).toString()}`);
      }
      return { files, fields: { ...body.fields } };
    },
  }),
];

describe('honoPlugin: upload and raw bodies', () => {
  const bytes = Buffer.from([0x7b, 0xff, 0x00, 0x0d, 0x0a, 0x7d]);

  it('hands the unread web body to raw and upload routes on a fetch runtime', async () => {
    const fetchIt = await fetchOnly({}, bodyRoutes);
    const raw = await fetchIt('/raw', {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
      body: bytes,
    });
    expect(await raw.json()).toEqual({ hex: bytes.toString('hex'), contentType: 'application/octet-stream' });
    const form = new FormData();
    form.append('title', 'hello');
    form.append('doc', new Blob(['file body'], { type: 'text/plain' }), 'a.txt');
    const uploaded = await fetchIt('/upload', { method: 'POST', body: form });
    expect(await uploaded.json()).toEqual({ files: ['doc:a.txt:file body'], fields: { title: 'hello' } });
  });

  it('gives a raw route the bytes Hono middleware already read, on node and on a fetch runtime', async () => {
    const own = () => {
      const app = new Hono();
      app.use(async (c, next) => {
        if (c.req.method === 'POST') await c.req.arrayBuffer();
        await next();
      });
      return app;
    };
    const plugin = honoPlugin({ app: own(), routes: bodyRoutes, onError: false });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await rawRequest(url, {
        method: 'POST',
        path: '/raw',
        headers: { 'content-type': 'application/octet-stream' },
        body: bytes,
      });
      expect(JSON.parse(response.body)).toEqual({
        hex: bytes.toString('hex'),
        contentType: 'application/octet-stream',
      });
    } finally {
      await app.close();
    }
    const fetched = honoPlugin({ app: own(), routes: bodyRoutes, onError: false });
    await createApp().register(fetched).boot();
    const response = await fetched.fetch(
      new Request('http://svc.test/raw', {
        method: 'POST',
        headers: { 'content-length': String(bytes.length) },
        body: bytes,
      }),
    );
    expect(await response.json()).toEqual({ hex: bytes.toString('hex'), contentType: null });
  });
});

describe('honoPlugin: options', () => {
  it('takes the client IP from the socket, never from X-Forwarded-For', async () => {
    const { app, address } = await started();
    try {
      const response = await call(`${address.url}/ip`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.json).toEqual({ ip: '127.0.0.1' });
    } finally {
      await app.close();
    }
  });

  it('uses a custom getClientIp on node too', async () => {
    const { app, address } = await started({ getClientIp: (c) => `via-${c.req.method}` });
    try {
      expect((await call(`${address.url}/ip`)).json).toEqual({ ip: 'via-GET' });
    } finally {
      await app.close();
    }
  });

  it('defaults bodyLimit to 1 MiB and refuses an invalid one', () => {
    expect(DEFAULT_BODY_LIMIT).toBe(1_048_576);
    expect(() => honoPlugin({ bodyLimit: -1 })).toThrow(TypeError);
    expect(() => honoPlugin({ bodyLimit: 1.5 })).toThrow(/bodyLimit/);
  });

  it('refuses an unknown option when the plugin is created, naming it', () => {
    expect(() => honoPlugin({ getClientIP: () => '1.2.3.4' } as never)).toThrow(
      /honoPlugin\(\): unknown option "getClientIP" \(did you mean "getClientIp"\?\); it takes routes, allowUnguardedMeta, notFound, onError, app, bodyLimit, requestTimeout, getClientIp, errorHandler\./,
    );
    expect(() => honoPlugin({ requesttimeout: 1000 } as never)).toThrow(/unknown option "requesttimeout"/);
    expect(() => honoPlugin({ requestTimeout: -1 })).toThrow(/requestTimeout/);
  });

  it('refuses a declared Content-Length over bodyLimit before reading the body', async () => {
    const seen: unknown[] = [];
    const { app, address } = await started({ bodyLimit: 16 }, [
      route({ method: 'POST', url: '/count', handler: ({ body }) => void seen.push(body) }),
    ]);
    try {
      // The body never arrives: only a refusal based on the declared length can answer.
      const response = parseRawResponse(
        await rawSocket(
          address.url,
          'POST /count HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\nConnection: close\r\n\r\nshort',
        ),
      );
      expect(response.status).toBe(413);
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
      });
      expect(response.headers['x-request-id']).toBeDefined();
      expect(seen).toEqual([]);
      const fits = await rawRequest(address.url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'text/plain' },
        body: 'x'.repeat(16),
      });
      expect(JSON.parse(fits.body)).toEqual({ body: 'x'.repeat(16) });
    } finally {
      await app.close();
    }
  });

  it('cuts a chunked body at bodyLimit with 413', async () => {
    const { app, address } = await started({ bodyLimit: 16 });
    try {
      const over = await chunkedPost(address.url, '/echo', ['0123456789', '0123456789']);
      expect(over.status).toBe(413);
      expect(JSON.parse(over.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      const under = await chunkedPost(address.url, '/echo', ['01234567', '01234567']);
      expect(JSON.parse(under.body)).toEqual({ body: '0123456701234567' });
    } finally {
      await app.close();
    }
  });

  it('answers errors thrown by Hono middleware with the envelope, reporting 5xx to onError', async () => {
    const reports: ErrorReport[] = [];
    const own = new Hono();
    own.use('/mw/*', (c) => {
      const kind = c.req.path.slice('/mw/'.length);
      if (kind === 'crash') throw new Error('password=hunter2');
      if (kind === 'hono-413') throw new HTTPException(413, { message: 'hono says too big' });
      if (kind === 'hono-401') throw new HTTPException(401, { message: 'hono says who are you' });
      throw new HttpError(409, 'CLASH', 'Clash.');
    });
    const plugin = honoPlugin({ app: own, routes, onError: (report) => reports.push(report) });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const crash = await call(`${url}/mw/crash`, { headers: { 'x-request-id': 'mw-1' } });
      expect(crash.status).toBe(500);
      expect(crash.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
      expect(crash.headers.get('x-request-id')).toBe('mw-1');
      expect(crash.text).not.toContain('hunter2');
      const tooBig = await call(`${url}/mw/hono-413`);
      expect([tooBig.status, tooBig.json]).toEqual([
        413,
        { error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' } },
      ]);
      // Any other client error Hono raises maps to BAD_REQUEST, never echoing Hono's message.
      const unauthorised = await call(`${url}/mw/hono-401`);
      expect(unauthorised.json).toEqual({
        error: { code: 'BAD_REQUEST', message: 'Malformed request body.' },
      });
      const clash = await call(`${url}/mw/svc`);
      expect([clash.status, clash.json]).toEqual([409, { error: { code: 'CLASH', message: 'Clash.' } }]);
      // Route errors report too.
      expect((await call(`${url}/boom`)).status).toBe(500);
      expect(reports.map((report) => [report.code, report.status, report.requestId])).toEqual([
        ['INTERNAL_ERROR', 500, 'mw-1'],
        ['INTERNAL_ERROR', 500, expect.any(String)],
      ]);
      expect((reports[0]?.error as Error).message).toContain('hunter2');
    } finally {
      await app.close();
    }
  });

  it("runs svc's request hooks on errors Hono middleware throws", async () => {
    const own = new Hono();
    own.use('/mw/*', () => {
      throw new HTTPException(401, { message: 'hono says who are you' });
    });
    const plugin = honoPlugin({ app: own, routes, onError: false });
    const app = createApp()
      .register(securityPlugin({ rateLimit: { limit: 10, windowMs: 60_000 } }))
      .register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const refused = await call(`${url}/mw/x`);
      expect(refused.status).toBe(400);
      expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('9');
    } finally {
      await app.close();
    }
  });

  it('errorHandler: false leaves Hono error handling alone', async () => {
    const own = new Hono();
    own.use('/mw/*', () => {
      throw new Error('middleware failed');
    });
    own.onError((_error, c) => c.text('handled by the app', 503));
    const plugin = honoPlugin({ app: own, routes, onError: false, errorHandler: false });
    const app = createApp().register(plugin);
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const response = await call(`${url}/mw/x`);
      expect([response.status, response.text]).toEqual([503, 'handled by the app']);
      // svc's routes still answer their own errors in the envelope.
      expect((await call(`${url}/boom`)).json).toEqual({
        error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' },
      });
    } finally {
      await app.close();
    }
    const bare = new Hono();
    bare.use('/mw/*', () => {
      throw new Error('middleware failed');
    });
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const fetchIt = await (async () => {
      const plain = honoPlugin({ app: bare, routes, onError: false, errorHandler: false });
      await createApp().register(plain).boot();
      return plain.fetch;
    })();
    const response = await fetchIt(new Request('http://svc.test/mw/x'));
    expect([response.status, await response.text()]).toEqual([500, 'Internal Server Error']);
  });

  it('answers a header value with CR/LF with 500 and never splits the response', async () => {
    const { app, address } = await started();
    try {
      for (const path of ['/inject', '/inject-sent']) {
        const text = await rawSocket(
          address.url,
          `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
        );
        const response = parseRawResponse(text);
        expect([path, response.status]).toEqual([path, 500]);
        expect(JSON.parse(response.body)).toEqual({
          error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' },
        });
        expect(text).not.toMatch(/evil|set-cookie|never/i);
        expect(response.headers['x-request-id']).toBeDefined();
      }
    } finally {
      await app.close();
    }
  });
});

describe('honoPlugin: streamed replies', () => {
  function recorder() {
    return { events: [] as string[], settled: undefined as Promise<void> | undefined };
  }

  it('streams a node Readable as the web body, and HEAD or 204 get no body while the source is destroyed', async () => {
    const sources: Readable[] = [];
    const stream = route({
      method: 'GET',
      url: '/stream/:status',
      handler: ({ reply, params }) => {
        const source = Readable.from([Buffer.from('one,'), 'two,', Buffer.from('three')]);
        sources.push(source);
        reply.header('content-type', 'text/csv');
        return sinkOf(reply).stream(Number((params as { status: string }).status), source);
      },
    });
    const { app, address } = await started({}, [stream]);
    try {
      const ok = await call(`${address.url}/stream/200`);
      expect([ok.status, ok.text, ok.headers.get('content-type')]).toEqual([
        200,
        'one,two,three',
        'text/csv',
      ]);
      const head = await rawRequest(address.url, { method: 'HEAD', path: '/stream/200' });
      expect([head.status, head.body, head.headers['content-type']]).toEqual([200, '', 'text/csv']);
      expect(sources[1]?.destroyed).toBe(true);
      const empty = await rawRequest(address.url, { method: 'GET', path: '/stream/204' });
      expect([empty.status, empty.body, empty.headers['content-type']]).toEqual([204, '', undefined]);
      expect(sources[2]?.destroyed).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('rejects before the head when the source fails at once, so the envelope answers', async () => {
    const state = recorder();
    const failing = route({
      method: 'GET',
      url: '/missing-file',
      handler: ({ reply }) => {
        const source = new Readable({
          read() {
            this.destroy(new Error('ENOENT: no such file'));
          },
        });
        state.settled = sinkOf(reply).stream(200, source);
        return state.settled;
      },
    });
    const { app, address } = await started({}, [failing]);
    try {
      const response = await call(`${address.url}/missing-file`);
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
      await expect(state.settled).rejects.toThrow('ENOENT');
    } finally {
      await app.close();
    }
  });

  it('cuts the connection and rejects when the source fails after the head went out', async () => {
    const state = recorder();
    const failing = route({
      method: 'GET',
      url: '/fails-late',
      handler: ({ reply }) => {
        let sent = 0;
        const source = new Readable({
          read() {
            if (sent++ === 0) this.push('first part');
            else setTimeout(() => this.destroy(new Error('disk vanished')), 20);
          },
        });
        state.settled = sinkOf(reply).stream(200, source);
        state.settled.catch(() => undefined);
        return state.settled;
      },
    });
    const { app, address } = await started({}, [failing]);
    const consoleError = vi.spyOn(console, 'error');
    try {
      const response = await fetch(`${address.url}/fails-late`);
      expect(response.status).toBe(200);
      await expect(response.text()).rejects.toThrow();
      await expect(state.settled).rejects.toThrow('disk vanished');
      // The node server saw a closed client, not a failed body it would log and answer itself.
      expect(consoleError).not.toHaveBeenCalled();
    } finally {
      await app.close();
    }
  });

  it('destroys the source and resolves when the client goes away (node-server cancels the body)', async () => {
    const state = recorder();
    let source: Readable | undefined;
    const endless = route({
      method: 'GET',
      url: '/endless',
      handler: ({ reply }) => {
        let count = 0;
        source = new Readable({
          read() {
            setTimeout(() => this.push(`event ${count++}\n`), 2);
          },
        });
        source.on('close', () => state.events.push('source closed'));
        state.settled = sinkOf(reply)
          .stream(200, source)
          .then(() => void state.events.push('resolved'));
        return state.settled;
      },
    });
    const { app, address } = await started({}, [endless]);
    try {
      const target = new URL(`${address.url}/endless`);
      await new Promise<void>((resolve, reject) => {
        const req = httpRequest(
          { host: target.hostname, port: target.port, path: target.pathname },
          (res) => {
            res.once('data', () => {
              req.destroy();
              resolve();
            });
          },
        );
        req.on('error', (error: NodeJS.ErrnoException) => {
          if (error.code !== 'ECONNRESET') reject(error);
        });
        req.end();
      });
      await expect.poll(() => state.events).toEqual(['source closed', 'resolved']);
      expect(source?.destroyed).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('errors the web body when the source fails mid-body on a fetch runtime', async () => {
    const state = recorder();
    const failing = route({
      method: 'GET',
      url: '/fails-late',
      handler: ({ reply }) => {
        let sent = 0;
        const source = new Readable({
          read() {
            if (sent++ === 0) this.push('first part');
            else setTimeout(() => this.destroy(new Error('upstream vanished')), 5);
          },
        });
        state.settled = sinkOf(reply).stream(200, source);
        state.settled.catch(() => undefined);
        return state.settled;
      },
    });
    const fetchIt = await fetchOnly({}, [failing]);
    const response = await fetchIt('/fails-late');
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow('upstream vanished');
    await expect(state.settled).rejects.toThrow('upstream vanished');
  });

  it('stops a silent source and answers when the client leaves before the first chunk', async () => {
    const state = recorder();
    let source: Readable | undefined;
    const silent = route({
      method: 'GET',
      url: '/silent',
      handler: ({ reply }) => {
        source = new Readable({ read() {} });
        state.settled = sinkOf(reply).stream(200, source);
        return state.settled;
      },
    });
    const fetchIt = await fetchOnly({}, [silent]);
    const client = new AbortController();
    const answered = fetchIt('/silent', { signal: client.signal });
    // The handler ran synchronously inside fetch and waits for the first chunk.
    expect(state.settled).toBeDefined();
    client.abort();
    await expect(state.settled).resolves.toBeUndefined();
    expect(source?.destroyed).toBe(true);
    expect(await (await answered).text()).toBe('');
  });

  it('applies backpressure: the source is not read ahead of a consumer that does not read', async () => {
    let reads = 0;
    const endless = route({
      method: 'GET',
      url: '/pressure',
      handler: ({ reply }) => {
        const source = new Readable({
          highWaterMark: 16,
          read() {
            reads++;
            this.push(Buffer.alloc(16, 1));
          },
        });
        return sinkOf(reply).stream(200, source);
      },
    });
    const fetchIt = await fetchOnly({}, [endless]);
    const response = await fetchIt('/pressure');
    await new Promise((resolve) => setTimeout(resolve, 50));
    // Nobody reads the body: only the first chunk, one queued and node's own small buffer were read.
    expect(reads).toBeLessThan(8);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    for (let index = 0; index < 20; index++) expect((await reader.read()).done).toBe(false);
    expect(reads).toBeGreaterThan(20);
    await reader.cancel();
  });

  it('rejects a second answer once a Response exists', async () => {
    const outcomes: string[] = [];
    const twice = route({
      method: 'GET',
      url: '/twice',
      handler: async ({ reply }) => {
        reply.send('first');
        const source = Readable.from(['x']);
        await sinkOf(reply)
          .stream(200, source)
          .catch((error: Error) => outcomes.push(`stream: ${error.message}`));
        outcomes.push(`source destroyed: ${String(source.destroyed)}`);
        try {
          reply.send('second');
        } catch (error) {
          outcomes.push(`send: ${(error as Error).message}`);
        }
      },
    });
    const fetchIt = await fetchOnly({}, [twice]);
    expect(await (await fetchIt('/twice')).text()).toBe('first');
    await expect.poll(() => outcomes.length).toBe(3);
    expect(outcomes).toEqual([
      'stream: The response was already sent.',
      'source destroyed: true',
      'send: The response was already sent.',
    ]);
  });
});

describe('HonoSvcReply', () => {
  it('is sent once the Response exists and builds it from the collected headers', async () => {
    const sink = new HonoSvcReply(undefined, 200, false, false, undefined);
    sink.header('X-Custom', 'one').header('x-gone', '1').removeHeader('X-GONE');
    expect([sink.sent, sink.getHeader('x-custom'), sink.getHeader('x-gone')]).toEqual([
      false,
      'one',
      undefined,
    ]);
    sink.finish(201, '{"a":1}', 'application/json');
    expect(sink.sent).toBe(true);
    const response = sink.response as Response;
    expect([response.status, response.headers.get('x-custom'), await response.text()]).toEqual([
      201,
      'one',
      '{"a":1}',
    ]);
  });

  it('answers a bare 500 envelope when the route settles without answering', async () => {
    const sink = new HonoSvcReply(undefined, 200, false, false, undefined);
    sink.header('x-request-id', 'lost-1');
    const answered = await sink.whenAnswered(Promise.resolve(), () => undefined);
    expect([answered.status, answered.headers.get('x-request-id')]).toEqual([500, 'lost-1']);
    expect(await answered.json()).toEqual({
      error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' },
    });
  });

  it('resolves the pending answer with the Response the first finish() produced', async () => {
    const sink = new HonoSvcReply(undefined, 200, false, false, undefined);
    let finishRoute: () => void = () => undefined;
    const pending = new Promise<void>((resolve) => (finishRoute = resolve));
    const answer = sink.whenAnswered(pending, () => undefined);
    sink.send('later');
    finishRoute();
    expect(await ((await answer) as Response).text()).toBe('later');
  });
});
