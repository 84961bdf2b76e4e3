// What is specific to the Express adapter: its options, the exposed application, the application's own
// middleware and parsers in front of svc's routes, listen/close.
import express, { type Express } from 'express';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createApp,
  rawBody,
  route,
  securityPlugin,
  type ErrorReport,
  type Plugin,
  type RawBodyInput,
} from 'svckit';
import {
  DEFAULT_BODY_LIMIT,
  DEFAULT_REQUEST_TIMEOUT_MS,
  captureRawBody,
  expressPlugin,
  type ExpressPluginOptions,
} from 'svckit/express';
import { call, parseRawResponse, rawRequest, rawSocket } from './harness.js';

const routes = [
  route({ method: 'GET', url: '/ip', handler: ({ request }) => ({ ip: request.ip }) }),
  route({
    method: 'GET',
    url: '/where',
    handler: ({ request }) => ({ url: request.url, path: request.path, pattern: request.routePattern }),
  }),
  route({
    method: 'POST',
    url: '/echo',
    handler: ({ body, request }) => ({ body: body ?? '(none)', kind: request.bodyKind ?? '(none)' }),
  }),
  route({
    method: 'POST',
    url: '/validated',
    body: { type: 'object', properties: { a: { type: 'integer' } }, required: ['a'] },
    handler: ({ body }) => ({ body }),
  }),
  route<{ body: RawBodyInput }>({
    method: 'POST',
    url: '/webhook',
    body: rawBody(),
    handler: ({ body }) => ({ text: body.text(), length: body.bytes.length }),
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
];

async function started(options: ExpressPluginOptions = {}, plugins: Plugin[] = []) {
  const app = createApp();
  for (const plugin of plugins) app.register(plugin);
  const plugin = expressPlugin({ routes, onError: false, ...options });
  app.register(plugin);
  const address = await app.listen({ port: 0, host: '127.0.0.1' });
  return { app, plugin, address, url: address.url };
}

/** An Express application with the given middleware registered before svc mounts its routes. */
function applicationWith(setup: (application: Express) => void): Express {
  const application = express();
  setup(application);
  return application;
}

const postJson = (url: string, path: string, body: string, headers: Record<string, string> = {}) =>
  rawRequest(url, {
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body,
  });

describe('expressPlugin: server and application', () => {
  it('listens on the given host and port, reports them, and stops answering after close', async () => {
    const { app, address } = await started();
    try {
      expect(address).toMatchObject({ host: '127.0.0.1', adapter: 'express' });
      expect(address.port).toBeGreaterThan(0);
      expect(address.url).toBe(`http://127.0.0.1:${address.port}`);
      expect((await call(`${address.url}/where`)).status).toBe(200);
    } finally {
      await app.close();
    }
    await expect(fetch(`${address.url}/where`)).rejects.toThrow();
  });

  it('exposes the Express application after boot only, and the node server while listening', async () => {
    const plugin = expressPlugin({ routes });
    expect(() => plugin.express).toThrow(/after app.boot/);
    const app = createApp().register(plugin);
    await app.boot();
    expect(typeof plugin.express.use).toBe('function');
    expect(plugin.server).toBeUndefined();
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect(plugin.server?.listening).toBe(true);
      expect((await call(`${url}/where?x=1`)).json).toEqual({
        url: '/where?x=1',
        path: '/where',
        pattern: '/where',
      });
    } finally {
      await app.close();
    }
    expect(plugin.server).toBeUndefined();
  });

  it('mounts on an existing application, whose own routes and middleware keep working', async () => {
    const application = applicationWith((own) => {
      own.use((_req, res, next) => {
        res.setHeader('x-from-middleware', 'yes');
        next();
      });
      own.get('/own', (_req, res) => {
        res.json({ own: true });
      });
    });
    const { app, plugin, url } = await started({ app: application });
    try {
      expect(plugin.express).toBe(application);
      const own = await call(`${url}/own`);
      expect(own.json).toEqual({ own: true });
      const svc = await call(`${url}/where`);
      expect(svc.status).toBe(200);
      expect(svc.headers.get('x-from-middleware')).toBe('yes');
      expect(svc.headers.get('x-request-id')).toBeTruthy();
      // The neutral 404 and the error envelope keep the middleware's headers too.
      const missing = await call(`${url}/nowhere`);
      expect(missing.status).toBe(404);
      expect(missing.headers.get('x-from-middleware')).toBe('yes');
      expect(missing.json).toEqual({ error: { code: 'NOT_FOUND', message: 'Route not found.' } });
    } finally {
      await app.close();
    }
  });

  it('writes responses itself: no Express ETag or X-Powered-By on an application svc created', async () => {
    const { app, url } = await started();
    try {
      const response = await call(`${url}/where`);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.headers.get('etag')).toBeNull();
      expect(response.headers.get('x-powered-by')).toBeNull();
    } finally {
      await app.close();
    }
  });

  it('refuses invalid options when the plugin is created', () => {
    for (const options of [{ bodyLimit: -1 }, { bodyLimit: 1.5 }, { requestTimeout: Number.NaN }]) {
      expect(() => expressPlugin(options)).toThrow(TypeError);
    }
    expect(() => expressPlugin({ app: {} as Express })).toThrow(/app must be an Express application/);
  });

  it('refuses an unknown option when the plugin is created, naming it', () => {
    expect(() => expressPlugin({ bodylimit: 10 } as never)).toThrow(
      /expressPlugin\(\): unknown option "bodylimit" \(did you mean "bodyLimit"\?\); it takes routes, allowUnguardedMeta, notFound, onError, app, bodyLimit, requestTimeout\./,
    );
    expect(() => expressPlugin({ fastify: {} } as never)).toThrow(/unknown option "fastify"/);
  });
});

describe('expressPlugin: limits', () => {
  it('sets the request timeout to 30000 ms by default', async () => {
    const { app, plugin } = await started();
    try {
      expect(DEFAULT_REQUEST_TIMEOUT_MS).toBe(30_000);
      expect(plugin.server?.requestTimeout).toBe(30_000);
    } finally {
      await app.close();
    }
  });

  it('applies bodyLimit to bodies svc reads: declared and streamed bodies past it answer 413', async () => {
    expect(DEFAULT_BODY_LIMIT).toBe(1_048_576);
    const { app, url } = await started({ bodyLimit: 10 });
    try {
      const small = await postJson(url, '/echo', '{"a":1}');
      expect(small.status).toBe(200);
      expect(JSON.parse(small.body)).toEqual({ body: { a: 1 }, kind: 'json' });
      const declared = await postJson(url, '/echo', '{"a":"12345"}');
      expect(declared.status).toBe(413);
      expect(JSON.parse(declared.body)).toEqual({
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
      });
      expect(declared.headers.connection).toBe('close');
      expect(declared.headers['x-request-id']).toBeTruthy();
      // Chunked: no length is declared, so the body is cut once it passes the limit.
      const streamed = parseRawResponse(
        await rawSocket(
          url,
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Transfer-Encoding: chunked\r\n\r\n8\r\n{"a":"12\r\n8\r\n34567"}\r\n',
        ),
      );
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body).error.code).toBe('PAYLOAD_TOO_LARGE');
      expect(streamed.headers.connection).toBe('close');
    } finally {
      await app.close();
    }
  });

  it('keeps serving after a client goes away in the middle of a body', async () => {
    const { app, url } = await started();
    try {
      const target = new URL(url);
      const socket = connect(Number(target.port), target.hostname);
      socket.write(
        'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"a":',
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
      socket.destroy();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect((await call(`${url}/where`)).status).toBe(200);
    } finally {
      await app.close();
    }
  });

  it('does not apply bodyLimit to raw-body routes, which have their own maxBytes', async () => {
    const { app, url } = await started({ bodyLimit: 10 });
    try {
      const response = await rawRequest(url, { method: 'POST', path: '/webhook', body: 'x'.repeat(100) });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ text: 'x'.repeat(100), length: 100 });
    } finally {
      await app.close();
    }
  });
});

describe('expressPlugin: client IP', () => {
  it('takes the client IP from the socket, never from X-Forwarded-For', async () => {
    const { app, url } = await started();
    try {
      const response = await call(`${url}/ip`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.json).toEqual({ ip: '127.0.0.1' });
    } finally {
      await app.close();
    }
  });

  it('uses X-Forwarded-For only when the application sets trust proxy', async () => {
    const application = applicationWith((own) => own.set('trust proxy', 'loopback'));
    const { app, url } = await started({ app: application });
    try {
      const response = await call(`${url}/ip`, { headers: { 'x-forwarded-for': '203.0.113.9' } });
      expect(response.json).toEqual({ ip: '203.0.113.9' });
    } finally {
      await app.close();
    }
  });
});

describe("expressPlugin: the application's own body parsers", () => {
  // Whitespace and key order a JSON parser would lose: the signature covers exactly these bytes.
  const signedPayload = '{ "b": 2,\n  "a": 1 }';

  it('with express.json({ verify: captureRawBody }), a raw-body route still gets the exact bytes', async () => {
    const application = applicationWith((own) => own.use(express.json({ verify: captureRawBody })));
    const { app, url } = await started({ app: application });
    try {
      const raw = await postJson(url, '/webhook', signedPayload);
      expect(raw.status).toBe(200);
      expect(JSON.parse(raw.body)).toEqual({ text: signedPayload, length: signedPayload.length });
      // An ordinary route takes what the application's parser produced.
      const parsed = await postJson(url, '/validated', signedPayload);
      expect(JSON.parse(parsed.body)).toEqual({ body: { b: 2, a: 1 } });
    } finally {
      await app.close();
    }
  });

  it('without captureRawBody, a raw-body route whose body was consumed answers 500 RAW_BODY_UNAVAILABLE', async () => {
    const reports: ErrorReport[] = [];
    const application = applicationWith((own) => own.use(express.json()));
    const { app, url } = await started({
      app: application,
      onError: (report: ErrorReport) => reports.push(report),
    });
    try {
      const response = await postJson(url, '/webhook', signedPayload);
      expect(response.status).toBe(500);
      // A 5xx keeps its code but never its message.
      expect(JSON.parse(response.body)).toEqual({
        error: { code: 'RAW_BODY_UNAVAILABLE', message: 'Internal server error.' },
      });
      expect(reports.map((report) => report.code)).toEqual(['RAW_BODY_UNAVAILABLE']);
      // A body the application's parser did not take is still there for the raw route.
      const text = await rawRequest(url, {
        method: 'POST',
        path: '/webhook',
        headers: { 'content-type': 'text/plain' },
        body: 'untouched',
      });
      expect(JSON.parse(text.body)).toEqual({ text: 'untouched', length: 9 });
    } finally {
      await app.close();
    }
  });

  it('hands the raw route neither the consumed stream nor bytes that were never captured', async () => {
    const seen: unknown[] = [];
    const observer: Plugin = {
      name: 'observer',
      setup(app) {
        app.metadata.add('http:enrichers', {
          name: 'observer',
          enrich: ({ request }) => {
            seen.push([request.bodyStream === undefined, request.capturedBody?.toString() ?? null]);
          },
        });
      },
    };
    const plain = applicationWith((own) => own.use(express.json()));
    const capturing = applicationWith((own) => own.use(express.json({ verify: captureRawBody })));
    for (const application of [plain, capturing]) {
      const { app, url } = await started({ app: application }, [observer]);
      try {
        await postJson(url, '/webhook', '{"a":1}');
      } finally {
        await app.close();
      }
    }
    expect(seen).toEqual([
      [true, null],
      [true, '{"a":1}'],
    ]);
  });

  it('uses the body an application-wide parser produced for ordinary routes, by svc rules', async () => {
    const application = applicationWith((own) => {
      own.use(express.json({ verify: captureRawBody }));
      own.use(express.urlencoded({ extended: false }));
      own.use(express.text());
      own.use(express.raw({ type: 'application/vnd.api+json' }));
    });
    const { app, url } = await started({ app: application });
    try {
      const json = await postJson(url, '/echo', '{"a":[1,2]}');
      expect(JSON.parse(json.body)).toEqual({ body: { a: [1, 2] }, kind: 'json' });
      const form = await rawRequest(url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'a=1&a=2',
      });
      expect(JSON.parse(form.body)).toEqual({ body: { a: ['1', '2'] }, kind: 'form' });
      const text = await rawRequest(url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'text/plain' },
        body: 'hello',
      });
      expect(JSON.parse(text.body)).toEqual({ body: 'hello', kind: 'text' });
      // Bytes an application's raw() parser kept are read by svc's own rules.
      const bytes = await rawRequest(url, {
        method: 'POST',
        path: '/echo',
        headers: { 'content-type': 'application/vnd.api+json' },
        body: '{"b":true}',
      });
      expect(JSON.parse(bytes.body)).toEqual({ body: { b: true }, kind: 'json' });
      // body-parser makes {} of an empty JSON body; for svc it stays no body.
      const empty = await postJson(url, '/echo', '');
      expect(JSON.parse(empty.body)).toEqual({ body: '(none)', kind: '(none)' });
      const emptyChunked = parseRawResponse(
        await rawSocket(
          url,
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n' +
            'Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n0\r\n\r\n',
        ),
      );
      expect(JSON.parse(emptyChunked.body)).toEqual({ body: '(none)', kind: '(none)' });
      // A JSON route still refuses what is not JSON.
      const notJson = await rawRequest(url, {
        method: 'POST',
        path: '/validated',
        headers: { 'content-type': 'text/plain' },
        body: '{"a":1}',
      });
      expect(notJson.status).toBe(415);
    } finally {
      await app.close();
    }
  });

  it("refuses prototype-poisoning keys in a body the application's parser produced", async () => {
    const application = applicationWith((own) => own.use(express.json()));
    const { app, url } = await started({ app: application });
    try {
      for (const payload of ['{"__proto__":{"isAdmin":true}}', '{"constructor":{"prototype":{"x":1}}}']) {
        const response = await postJson(url, '/echo', payload);
        expect(response.status).toBe(400);
        expect(JSON.parse(response.body).error.code).toBe('BAD_REQUEST');
      }
    } finally {
      await app.close();
    }
  });

  it("answers the application's own body-parser errors in the envelope, never echoing their message", async () => {
    const application = applicationWith((own) => own.use(express.json({ limit: 16 })));
    const { app, url } = await started({ app: application });
    try {
      const malformed = await postJson(url, '/echo', '{"secret-token', { 'x-request-id': 'bp-1' });
      expect(malformed.status).toBe(400);
      expect(JSON.parse(malformed.body)).toEqual({
        error: { code: 'BAD_REQUEST', message: 'Malformed request body.' },
      });
      expect(malformed.body).not.toContain('secret-token');
      expect(malformed.headers['x-request-id']).toBe('bp-1');
      const large = await postJson(url, '/echo', JSON.stringify({ a: 'x'.repeat(100) }));
      expect(large.status).toBe(413);
      expect(JSON.parse(large.body)).toEqual({
        error: { code: 'PAYLOAD_TOO_LARGE', message: 'Request body is too large.' },
      });
    } finally {
      await app.close();
    }
  });

  it("answers errors from the application's middleware: 4xx by fixed code, anything else 500, reported", async () => {
    const reports: ErrorReport[] = [];
    const application = applicationWith((own) =>
      own.use((req, _res, next) => {
        if (req.headers['x-fail'] === 'client')
          next(Object.assign(new Error('token abc expired'), { status: 401 }));
        else if (req.headers['x-fail'] === 'server') next(new Error('db password=hunter2'));
        else next();
      }),
    );
    const { app, url } = await started({
      app: application,
      onError: (report: ErrorReport) => reports.push(report),
    });
    try {
      const client = await call(`${url}/where`, { headers: { 'x-fail': 'client' } });
      expect(client.status).toBe(400);
      expect(client.json).toEqual({ error: { code: 'BAD_REQUEST', message: 'Malformed request body.' } });
      const server = await call(`${url}/where`, { headers: { 'x-fail': 'server' } });
      expect(server.status).toBe(500);
      expect(server.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
      expect(server.text).not.toContain('hunter2');
      expect(reports.map((report) => [report.code, report.status])).toEqual([['INTERNAL_ERROR', 500]]);
    } finally {
      await app.close();
    }
  });

  it("runs svc's request hooks on the application's parser and middleware errors", async () => {
    const application = applicationWith((own) => {
      own.use(express.json({ limit: 16 }));
      own.use((req, _res, next) => {
        if (req.headers['x-fail'] === 'client') next(Object.assign(new Error('expired'), { status: 401 }));
        else next();
      });
    });
    const security = securityPlugin({ rateLimit: { limit: 10, windowMs: 60_000 } });
    const { app, url } = await started({ app: application }, [security]);
    try {
      const answers = [
        await postJson(url, '/echo', '{"a":'),
        await postJson(url, '/echo', JSON.stringify({ a: 'x'.repeat(100) })),
        await rawRequest(url, { method: 'GET', path: '/where', headers: { 'x-fail': 'client' } }),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([400, 413, 400]);
      for (const [index, answer] of answers.entries()) {
        expect(answer.headers['x-content-type-options'], String(index)).toBe('nosniff');
        expect(answer.headers['x-ratelimit-remaining'], String(index)).toBe(String(9 - index));
      }
    } finally {
      await app.close();
    }
  });
});

describe('expressPlugin: routing on Express', () => {
  it('tries literal segments before parameters, whatever the registration order', async () => {
    const ordered = [
      route({ method: 'GET', url: '/notes/:id', handler: ({ params }) => ({ param: params.id }) }),
      // Unrelated templates in between must not hide the order of the two above.
      route({ method: 'GET', url: '/other/x', handler: () => 'other' }),
      route({ method: 'GET', url: '/notes/new', handler: () => ({ literal: true }) }),
      route({ method: 'GET', url: '/:kind/export', handler: ({ params }) => ({ kind: params.kind }) }),
    ];
    const app = createApp().register(expressPlugin({ routes: ordered, onError: false }));
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await call(`${url}/notes/new`)).json).toEqual({ literal: true });
      expect((await call(`${url}/notes/42`)).json).toEqual({ param: '42' });
      expect((await call(`${url}/notes/export`)).json).toEqual({ param: 'export' });
      expect((await call(`${url}/tasks/export`)).json).toEqual({ kind: 'tasks' });
    } finally {
      await app.close();
    }
  });

  it('matches characters Express gives a meaning to literally, and any parameter name', async () => {
    const special = [
      route({ method: 'GET', url: '/v1/(legacy)+/items!', handler: () => 'literal' }),
      route({ method: 'GET', url: '/files/:file.name', handler: ({ params }) => params }),
      route({ method: 'GET', url: '/assets/*', handler: ({ params }) => params }),
    ];
    const app = createApp().register(expressPlugin({ routes: special, onError: false }));
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      expect((await call(`${url}/v1/(legacy)+/items!`)).text).toBe('literal');
      expect((await call(`${url}/v1/legacy/items`)).status).toBe(404);
      expect((await call(`${url}/files/a%20b.txt`)).json).toEqual({ 'file.name': 'a b.txt' });
      expect((await call(`${url}/assets/css/site.css`)).json).toEqual({ '*': 'css/site.css' });
    } finally {
      await app.close();
    }
  });

  it('answers OPTIONS with svc 405 and Allow, not with an automatic Express answer', async () => {
    const { app, url } = await started();
    try {
      const response = await call(`${url}/where`, { method: 'OPTIONS' });
      expect(response.status).toBe(405);
      expect(response.headers.get('allow')).toBe('GET, HEAD');
      expect(response.json).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: 'Method not allowed.' },
      });
    } finally {
      await app.close();
    }
  });

  it('lets a HEAD route win over the HEAD answer of a GET route with other parameter names', async () => {
    const both = [
      route({ method: 'GET', url: '/items/:id', handler: ({ params }) => ({ id: params.id }) }),
      route({
        method: 'HEAD',
        url: '/items/:itemId',
        handler: ({ params, reply }) => {
          reply.header('x-head', params.itemId ?? '');
        },
      }),
    ];
    const app = createApp().register(expressPlugin({ routes: both, onError: false }));
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const head = await rawRequest(url, { method: 'HEAD', path: '/items/7' });
      expect([head.status, head.headers['x-head']]).toEqual([204, '7']);
      expect((await call(`${url}/items/7`)).json).toEqual({ id: '7' });
    } finally {
      await app.close();
    }
  });

  it('gives the neutral request an origin-form url for absolute-form targets', async () => {
    const { app, url } = await started();
    try {
      const text = await rawSocket(
        url,
        'GET http://example.test/where?q=1 HTTP/1.1\r\nHost: example.test\r\nConnection: close\r\n\r\n',
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({ url: '/where?q=1', path: '/where' });
    } finally {
      await app.close();
    }
  });

  it('answers a header value with CR/LF from a handler with 500, never splitting the response', async () => {
    const { app, url } = await started();
    try {
      for (const path of ['/inject', '/inject-sent']) {
        const text = await rawSocket(url, `GET ${path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
        expect(text).not.toMatch(/\r\nSet-Cookie: evil=1/i);
        const response = parseRawResponse(text);
        expect(response.status).toBe(500);
        expect(JSON.parse(response.body).error.code).toBe('INTERNAL_ERROR');
        expect(response.headers['x-bad']).toBeUndefined();
      }
    } finally {
      await app.close();
    }
  });
});
