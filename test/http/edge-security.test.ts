// securityPlugin on every adapter: secure headers on every answer (200, 404,
// 405, 500 envelope, SSE), CORS for listed origins only, preflights answered before routing, and options
// refused at creation.
import { describe, expect, it } from 'vitest';
import {
  createApp,
  route,
  securityPlugin,
  sse,
  type CorsOptions,
  type Plugin,
  type ReplySink,
  type RequestHook,
  type SecurityPluginOptions,
} from 'svckit';
import { adapters, call, parseRawResponse, rawRequest, rawSocket, withServer } from './harness.js';

const SECURE_HEADERS: Record<string, string> = {
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cross-origin-resource-policy': 'same-origin',
  'strict-transport-security': 'max-age=15552000; includeSubDomains',
};

/** Sent only with `headers: { documentHeaders: true }` or on a route with `meta.documentHeaders: true`. */
const DOCUMENT_HEADERS: Record<string, string> = {
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'origin-agent-cluster': '?1',
  'x-dns-prefetch-control': 'off',
  'x-permitted-cross-domain-policies': 'none',
};

const APP_ORIGIN = 'https://app.example.com';

/** The access-control-* headers of a response, so tests can assert there are none. */
function corsHeaders(headers: Headers): Record<string, string> {
  const found: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('access-control-')) found[name] = value;
  });
  return found;
}

function varyOf(headers: Headers): string[] {
  return (headers.get('vary') ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
}

/** A request hook registered before securityPlugin, so its Vary is there when CORS appends. */
function presetVary(value: string): Plugin {
  const hook: RequestHook = {
    name: 'preset-vary',
    onRequest: ({ reply }) => {
      reply.header('vary', value);
    },
  };
  return { name: 'preset-vary', setup: (app) => app.metadata.add('http:request-hooks', hook) };
}

function preflight(origin: string, extra: Record<string, string> = {}): RequestInit {
  return {
    method: 'OPTIONS',
    headers: { origin, 'access-control-request-method': 'PUT', ...extra },
  };
}

describe.each(adapters)('securityPlugin on $name', (adapter) => {
  const calls = { notes: 0, options: 0 };
  const routes = [
    route({
      method: 'GET',
      url: '/notes',
      handler: () => {
        calls.notes++;
        return { items: [] };
      },
    }),
    route({
      method: 'OPTIONS',
      url: '/with-options',
      handler: () => {
        calls.options++;
        return 'options route';
      },
    }),
    route({
      method: 'GET',
      url: '/boom',
      handler: () => {
        throw new Error('database password hunter2 rejected');
      },
    }),
    route({
      method: 'GET',
      url: '/events',
      handler: () =>
        sse((events) => {
          events.send({ data: 'one' });
          events.close();
        }),
    }),
    route({
      method: 'GET',
      url: '/vary-star',
      handler: () => 'ok',
    }),
  ];
  const serve = (
    options: SecurityPluginOptions,
    body: (url: string) => Promise<void>,
    before: Plugin[] = [],
  ) => withServer(adapter, { routes, plugins: [...before, securityPlugin(options)] }, body);

  it('puts every secure header on a 200, a 404, a 405, a 500 envelope and an SSE stream', async () => {
    await serve({}, async (url) => {
      const answers = [
        await call(`${url}/notes`),
        await call(`${url}/missing`),
        await call(`${url}/notes`, { method: 'DELETE' }),
        await call(`${url}/boom`),
        await call(`${url}/events`),
      ];
      expect(answers.map((answer) => answer.status)).toEqual([200, 404, 405, 500, 200]);
      for (const answer of answers) {
        for (const [name, value] of Object.entries(SECURE_HEADERS)) {
          expect(answer.headers.get(name), `${name} on ${answer.status}`).toBe(value);
        }
        for (const name of Object.keys(DOCUMENT_HEADERS)) expect(answer.headers.get(name)).toBeNull();
        expect(answer.headers.get('x-request-id')).toBeTruthy();
      }
      expect((answers[3]?.json as { error: { code: string } }).error.code).toBe('INTERNAL_ERROR');
      expect(answers[3]?.text).not.toContain('hunter2');
      expect(answers[4]?.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      expect(answers[4]?.text).toContain('data: one');
    });
  });

  it('sends no secure header with headers: false', async () => {
    await serve({ headers: false }, async (url) => {
      for (const path of ['/notes', '/missing']) {
        const answer = await call(`${url}${path}`);
        for (const name of Object.keys(SECURE_HEADERS)) expect(answer.headers.get(name)).toBeNull();
      }
    });
  });

  it('replaces the CSP and drops HSTS on request, keeping the other headers', async () => {
    const contentSecurityPolicy = "default-src 'self'; img-src https://cdn.example.com";
    await serve({ headers: { contentSecurityPolicy, hsts: false } }, async (url) => {
      const answer = await call(`${url}/notes`);
      expect(answer.headers.get('content-security-policy')).toBe(contentSecurityPolicy);
      expect(answer.headers.get('strict-transport-security')).toBeNull();
      expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
      expect(answer.headers.get('cross-origin-resource-policy')).toBe('same-origin');
    });
    await serve({ headers: { documentHeaders: true } }, async (url) => {
      const answer = await call(`${url}/notes`);
      for (const [name, value] of Object.entries({ ...SECURE_HEADERS, ...DOCUMENT_HEADERS })) {
        expect(answer.headers.get(name), name).toBe(value);
      }
    });
    await serve({ headers: { contentSecurityPolicy: false, hsts: 'max-age=63072000' } }, async (url) => {
      const answer = await call(`${url}/notes`);
      expect(answer.headers.get('content-security-policy')).toBeNull();
      expect(answer.headers.get('strict-transport-security')).toBe('max-age=63072000');
    });
  });

  it('gives a page route (meta.documentHeaders) the document headers and lets its handler replace one', async () => {
    const page = route({
      method: 'GET',
      url: '/docs',
      meta: { documentHeaders: true },
      handler: ({ reply }) => {
        reply.header('content-security-policy', "default-src 'self'");
        reply.header('content-type', 'text/html; charset=utf-8');
        return '<!doctype html><title>docs</title>';
      },
    });
    const api = route({ method: 'GET', url: '/api', handler: () => ({ ok: true }) });
    const optedOut = route({
      method: 'GET',
      url: '/plain',
      meta: { documentHeaders: false },
      handler: () => ({ ok: true }),
    });
    await withServer(adapter, { routes: [page, api, optedOut], plugins: [securityPlugin()] }, async (url) => {
      const answer = await call(`${url}/docs`);
      expect(answer.headers.get('content-security-policy')).toBe("default-src 'self'");
      for (const [name, value] of Object.entries({ ...SECURE_HEADERS, ...DOCUMENT_HEADERS })) {
        if (name !== 'content-security-policy') expect(answer.headers.get(name), name).toBe(value);
      }
      for (const path of ['/api', '/plain', '/missing']) {
        const json = await call(`${url}${path}`);
        expect(json.headers.get('x-content-type-options')).toBe('nosniff');
        for (const name of Object.keys(DOCUMENT_HEADERS)) expect(json.headers.get(name), name).toBeNull();
      }
    });
    // headers: false sends nothing, whatever the route asks for.
    await withServer(
      adapter,
      { routes: [page], plugins: [securityPlugin({ headers: false })] },
      async (url) => {
        const answer = await call(`${url}/docs`);
        for (const name of [...Object.keys(SECURE_HEADERS), ...Object.keys(DOCUMENT_HEADERS)]) {
          if (name !== 'content-security-policy') expect(answer.headers.get(name), name).toBeNull();
        }
      },
    );
  });

  it('gives a listed origin its CORS headers and Vary: origin, without credentials by default', async () => {
    await serve({ cors: { origin: [APP_ORIGIN, 'http://localhost:5173'] } }, async (url) => {
      for (const origin of [APP_ORIGIN, 'http://localhost:5173']) {
        const answer = await call(`${url}/notes`, { headers: { origin } });
        expect(answer.status).toBe(200);
        expect(corsHeaders(answer.headers)).toEqual({
          'access-control-allow-origin': origin,
          'access-control-expose-headers':
            'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after',
        });
        expect(varyOf(answer.headers)).toContain('origin');
      }
      // An error answer carries them as well, so the calling script can read the envelope.
      const missing = await call(`${url}/missing`, { headers: { origin: APP_ORIGIN } });
      expect(missing.status).toBe(404);
      expect(missing.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      const failed = await call(`${url}/boom`, { headers: { origin: APP_ORIGIN } });
      expect(failed.status).toBe(500);
      expect(failed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    });
  });

  it('answers an unlisted origin without any CORS header, still running the request', async () => {
    await serve({ cors: { origin: [APP_ORIGIN], credentials: true } }, async (url) => {
      const before = calls.notes;
      const answer = await call(`${url}/notes`, { headers: { origin: 'https://evil.example.net' } });
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual({ items: [] });
      expect(calls.notes).toBe(before + 1);
      expect(corsHeaders(answer.headers)).toEqual({});
      // Caches still key on Origin, so this answer is never replayed to the listed origin.
      expect(varyOf(answer.headers)).toContain('origin');
      const noOrigin = await call(`${url}/notes`);
      expect(corsHeaders(noOrigin.headers)).toEqual({});
      expect(varyOf(noOrigin.headers)).toContain('origin');
    });
  });

  it('never matches a look-alike origin: path, other port, other scheme, suffix, prefix, case, null', async () => {
    await serve({ cors: { origin: [APP_ORIGIN], credentials: true } }, async (url) => {
      const lookAlikes = [
        `${APP_ORIGIN}/`,
        `${APP_ORIGIN}/evil`,
        `${APP_ORIGIN}:8443`,
        'http://app.example.com',
        'https://app.example.com.evil.net',
        'https://evilapp.example.com',
        'https://sub.app.example.com',
        'HTTPS://APP.EXAMPLE.COM',
        `${APP_ORIGIN}, https://evil.example.net`,
        `${APP_ORIGIN}%0d%0aset-cookie:x=1`,
        'null',
      ];
      for (const origin of lookAlikes) {
        const answer = await call(`${url}/notes`, { headers: { origin } });
        expect(answer.status, origin).toBe(200);
        expect(corsHeaders(answer.headers), origin).toEqual({});
        const checked = await call(`${url}/notes`, preflight(origin));
        expect(checked.status, origin).toBe(204);
        expect(corsHeaders(checked.headers), origin).toEqual({});
      }
    });
  });

  it('echoes the origin and allows credentials when credentials is on', async () => {
    const cors = { origin: [APP_ORIGIN], credentials: true, exposeHeaders: ['ETag', 'x-total-count'] };
    await serve({ cors }, async (url) => {
      const answer = await call(`${url}/notes`, { headers: { origin: APP_ORIGIN } });
      expect(corsHeaders(answer.headers)).toEqual({
        'access-control-allow-origin': APP_ORIGIN,
        'access-control-allow-credentials': 'true',
        'access-control-expose-headers':
          'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after, etag, x-total-count',
      });
      const checked = await call(`${url}/notes`, preflight(APP_ORIGIN));
      expect(checked.headers.get('access-control-allow-credentials')).toBe('true');
      expect(checked.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
    });
  });

  it("answers * to any origin with origin: ['*'], never with credentials", async () => {
    await serve({ cors: { origin: ['*'] } }, async (url) => {
      const answer = await call(`${url}/notes`, { headers: { origin: 'https://anyone.example.org' } });
      expect(corsHeaders(answer.headers)).toEqual({
        'access-control-allow-origin': '*',
        'access-control-expose-headers':
          'x-request-id, x-ratelimit-limit, x-ratelimit-remaining, x-ratelimit-reset, retry-after',
      });
      // The answer does not depend on Origin, so it does not vary on it.
      expect(varyOf(answer.headers)).not.toContain('origin');
      const checked = await call(`${url}/notes`, preflight('https://anyone.example.org'));
      expect(checked.status).toBe(204);
      expect(checked.headers.get('access-control-allow-origin')).toBe('*');
      expect(checked.headers.get('access-control-allow-credentials')).toBeNull();
    });
  });

  it('answers a preflight 204 at once on a path without an OPTIONS route, and on an unknown path', async () => {
    await serve({ cors: { origin: [APP_ORIGIN] } }, async (url) => {
      const before = calls.notes;
      for (const path of ['/notes', '/nowhere']) {
        const answer = await call(
          `${url}${path}`,
          preflight(APP_ORIGIN, { 'access-control-request-headers': 'Content-Type,X-Api-Key' }),
        );
        expect(answer.status, path).toBe(204);
        expect(answer.text).toBe('');
        expect(corsHeaders(answer.headers)).toEqual({
          'access-control-allow-origin': APP_ORIGIN,
          'access-control-allow-methods': 'GET, HEAD, PUT, PATCH, POST, DELETE',
          'access-control-allow-headers': 'content-type, x-api-key',
          'access-control-max-age': '600',
        });
        expect(varyOf(answer.headers)).toEqual([
          'origin',
          'access-control-request-method',
          'access-control-request-headers',
        ]);
        expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
        expect(answer.headers.get('x-request-id')).toBeTruthy();
      }
      expect(calls.notes).toBe(before);
    });
  });

  it('answers a preflight itself on a path that has an OPTIONS route', async () => {
    await serve({ cors: { origin: [APP_ORIGIN] } }, async (url) => {
      const before = calls.options;
      const answer = await call(`${url}/with-options`, preflight(APP_ORIGIN));
      expect(answer.status).toBe(204);
      expect(answer.headers.get('access-control-allow-methods')).toBe('GET, HEAD, PUT, PATCH, POST, DELETE');
      // Nothing asked for request headers, so none are allowed.
      expect(answer.headers.get('access-control-allow-headers')).toBeNull();
      expect(calls.options).toBe(before);
    });
  });

  it('answers a preflight from an unlisted origin 204 without allow headers', async () => {
    await serve({ cors: { origin: [APP_ORIGIN] } }, async (url) => {
      const answer = await call(
        `${url}/notes`,
        preflight('https://evil.example.net', { 'access-control-request-headers': 'authorization' }),
      );
      expect(answer.status).toBe(204);
      expect(corsHeaders(answer.headers)).toEqual({});
      expect(varyOf(answer.headers)).toContain('origin');
    });
  });

  it('leaves a plain OPTIONS (no Access-Control-Request-Method) to the route or the 405', async () => {
    await serve({ cors: { origin: [APP_ORIGIN] } }, async (url) => {
      const before = calls.options;
      const routed = await call(`${url}/with-options`, {
        method: 'OPTIONS',
        headers: { origin: APP_ORIGIN },
      });
      expect(routed.status).toBe(200);
      expect(routed.text).toBe('options route');
      expect(calls.options).toBe(before + 1);
      expect(routed.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      expect(routed.headers.get('access-control-allow-methods')).toBeNull();
      const refused = await call(`${url}/notes`, { method: 'OPTIONS', headers: { origin: APP_ORIGIN } });
      expect(refused.status).toBe(405);
      expect(refused.headers.get('access-control-allow-methods')).toBeNull();
      // Without Origin it is no preflight either, whatever else it carries.
      const originless = await call(`${url}/notes`, {
        method: 'OPTIONS',
        headers: { 'access-control-request-method': 'PUT' },
      });
      expect(originless.status).toBe(405);
    });
  });

  it('uses the configured methods, headers and max age, and refuses malformed requested headers', async () => {
    const cors: CorsOptions = {
      origin: [APP_ORIGIN],
      methods: ['GET', 'POST'],
      headers: ['Content-Type'],
      maxAge: 60,
    };
    await serve({ cors }, async (url) => {
      const answer = await call(
        `${url}/notes`,
        preflight(APP_ORIGIN, { 'access-control-request-headers': 'x-anything' }),
      );
      expect(answer.headers.get('access-control-allow-methods')).toBe('GET, POST');
      expect(answer.headers.get('access-control-allow-headers')).toBe('content-type');
      expect(answer.headers.get('access-control-max-age')).toBe('60');
    });
    await serve({ cors: { origin: [APP_ORIGIN] } }, async (url) => {
      for (const requested of ['x-a, bad header', 'x-a;x-b', 'x-a:1', '"x-a"', ',']) {
        const answer = await call(
          `${url}/notes`,
          preflight(APP_ORIGIN, { 'access-control-request-headers': requested }),
        );
        expect(answer.status, requested).toBe(204);
        expect(answer.headers.get('access-control-allow-origin'), requested).toBe(APP_ORIGIN);
        expect(answer.headers.get('access-control-allow-headers'), requested).toBeNull();
      }
    });
  });

  it('appends to a Vary set before it and leaves Vary: * alone', async () => {
    const cors = { origin: [APP_ORIGIN] };
    await serve(
      { cors },
      async (url) => {
        const answer = await call(`${url}/notes`, { headers: { origin: APP_ORIGIN } });
        expect(varyOf(answer.headers)).toEqual(['accept-encoding', 'origin']);
        const checked = await call(`${url}/notes`, preflight(APP_ORIGIN));
        expect(varyOf(checked.headers)).toEqual([
          'accept-encoding',
          'origin',
          'access-control-request-method',
          'access-control-request-headers',
        ]);
      },
      [presetVary('Accept-Encoding')],
    );
    await serve(
      { cors },
      async (url) => {
        const answer = await call(`${url}/notes`, { headers: { origin: APP_ORIGIN } });
        expect(answer.headers.get('vary')).toBe('*');
        expect(answer.headers.get('access-control-allow-origin')).toBe(APP_ORIGIN);
      },
      [presetVary('*')],
    );
  });
});

/** Runs the plugin's request hook on a recording reply, without a server. */
async function hookAnswer(
  options: SecurityPluginOptions,
  request: { method?: string; headers?: Record<string, string> },
): Promise<{ headers: Record<string, string>; finished: number | undefined }> {
  const app = createApp();
  app.register(securityPlugin(options));
  await app.boot();
  const hooks = app.metadata.list('http:request-hooks');
  const headers: Record<string, string> = {};
  let finished: number | undefined;
  const reply = {
    get sent() {
      return finished !== undefined;
    },
    header(name: string, value: string) {
      headers[name] = value;
      return reply;
    },
    getHeader: (name: string) => headers[name],
    finish(status: number) {
      finished = status;
    },
  } as unknown as ReplySink;
  for (const hook of hooks) {
    await hook.onRequest?.({
      request: { method: request.method ?? 'GET', headers: request.headers ?? {} } as never,
      reply,
      route: undefined,
    });
  }
  return { headers, finished };
}

describe('securityPlugin options', () => {
  it('publishes one request hook and the per-route rate-limit guard, also with headers off', async () => {
    const on = createApp().register(securityPlugin());
    await on.boot();
    expect(on.metadata.list('http:request-hooks').map((hook) => hook.name)).toEqual(['svc:security']);
    // meta.rateLimit on a route is enforced whenever the plugin is registered, never silently dropped.
    const off = createApp().register(securityPlugin({ headers: false }));
    await off.boot();
    expect(off.metadata.list('http:guards').map((guard) => guard.name)).toEqual(['svc:rate-limit']);
    expect(securityPlugin().name).toBe('svc:security');
  });

  it('normalises configured origins: lower case, default port dropped', async () => {
    const cors = { origin: ['HTTPS://App.Example.COM:443', 'http://LOCALHOST:80', 'http://[::1]:8080'] };
    for (const origin of ['https://app.example.com', 'http://localhost', 'http://[::1]:8080']) {
      const { headers } = await hookAnswer({ cors }, { headers: { origin } });
      expect(headers['access-control-allow-origin'], origin).toBe(origin);
    }
    const { headers } = await hookAnswer({ cors }, { headers: { origin: 'https://app.example.com:443' } });
    expect(headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses unknown keys, naming them', () => {
    expect(() => securityPlugin({ rateLimit: { limit: 10, windowMs: 1000, key: 'ip' } } as never)).toThrow(
      /^securityPlugin\(\): rateLimit: unknown option "key"/,
    );
    expect(() => securityPlugin({ header: true, corss: {} } as never)).toThrow(
      /^securityPlugin\(\): unknown option "header" \(did you mean "headers"\?\); it takes headers, cors, rateLimit\./,
    );
    expect(() => securityPlugin({ headers: { csp: "default-src 'self'" } as never })).toThrow(
      /^securityPlugin\(\): headers: unknown option "csp"/,
    );
    expect(() => securityPlugin({ cors: { origin: [APP_ORIGIN], origins: [] } as never })).toThrow(
      /^securityPlugin\(\): cors: unknown option "origins" \(did you mean "origin"\?\)/,
    );
    expect(() => securityPlugin('strict' as never)).toThrow(TypeError);
  });

  it('refuses bad header options', () => {
    const bad: unknown[] = [
      { contentSecurityPolicy: "default-src 'none'\r\nset-cookie: a=1" },
      { contentSecurityPolicy: '' },
      { contentSecurityPolicy: true },
      { hsts: 'includeSubDomains' },
      { hsts: 'max-age=abc' },
      { hsts: 15552000 },
      { documentHeaders: 'yes' },
    ];
    for (const headers of bad) {
      expect(() => securityPlugin({ headers: headers as never }), JSON.stringify(headers)).toThrow(TypeError);
    }
    expect(() => securityPlugin({ headers: 'on' as never })).toThrow(TypeError);
  });

  it('refuses origins that are not scheme://host[:port], naming the entry', () => {
    const bad = [
      'https://app.example.com/',
      'https://app.example.com/api',
      'https://app.example.com?x=1',
      'https://app.example.com#top',
      'https://user@app.example.com',
      'app.example.com',
      '//app.example.com',
      'https://app.example.com:99999',
      'https://app.example.com:',
      ' https://app.example.com',
      'https://app..example.com',
      'https://*.example.com',
      'null',
      '',
    ];
    for (const entry of bad) {
      expect(() => securityPlugin({ cors: { origin: [entry] } }), entry).toThrow(TypeError);
      expect(() => securityPlugin({ cors: { origin: [APP_ORIGIN, entry] } }), entry).toThrow(
        JSON.stringify(entry),
      );
    }
    expect(() => securityPlugin({ cors: { origin: ['null'] } })).toThrow(/sandboxed/);
    expect(() => securityPlugin({ cors: { origin: [] } })).toThrow(/non-empty/);
    expect(() => securityPlugin({ cors: { origin: APP_ORIGIN as never } })).toThrow(TypeError);
    expect(() => securityPlugin({ cors: { origin: [42 as never] } })).toThrow(TypeError);
    expect(() => securityPlugin({ cors: {} as never })).toThrow(TypeError);
  });

  it("refuses '*' with credentials and '*' beside other origins", () => {
    expect(() => securityPlugin({ cors: { origin: ['*'], credentials: true } })).toThrow(
      /cannot be combined with credentials/,
    );
    expect(() => securityPlugin({ cors: { origin: ['*', APP_ORIGIN] } })).toThrow(/only entry/);
    expect(() => securityPlugin({ cors: { origin: ['*'], credentials: false } })).not.toThrow();
  });

  it('refuses bad credentials, methods, headers, exposeHeaders and maxAge', () => {
    const origin = [APP_ORIGIN];
    const bad: unknown[] = [
      { credentials: 'yes' },
      { methods: ['get'] },
      { methods: ['TRACE'] },
      { methods: [] },
      { headers: ['x-a b'] },
      { headers: 'content-type' },
      { exposeHeaders: ['x-a\r\nx-b'] },
      { maxAge: -1 },
      { maxAge: 1.5 },
      { maxAge: '10m' },
    ];
    for (const extra of bad) {
      expect(() => securityPlugin({ cors: { origin, ...(extra as object) } }), JSON.stringify(extra)).toThrow(
        TypeError,
      );
    }
  });

  it('allows no request header beyond the safelisted ones with headers: []', async () => {
    const { headers, finished } = await hookAnswer(
      { cors: { origin: [APP_ORIGIN], headers: [] } },
      {
        method: 'OPTIONS',
        headers: {
          origin: APP_ORIGIN,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'x-api-key',
        },
      },
    );
    expect(finished).toBe(204);
    expect(headers['access-control-allow-origin']).toBe(APP_ORIGIN);
    expect(headers['access-control-allow-headers']).toBeUndefined();
  });
});

describe.each(adapters)('securityPlugin on the errors the framework raises, on $name', (adapter) => {
  const routes = [
    route({ method: 'POST', url: '/notes', body: { type: 'object' }, handler: ({ body }) => body }),
    route({ method: 'GET', url: '/notes/:id', handler: ({ params }) => params }),
  ];
  const plugins = () => [securityPlugin({ rateLimit: { limit: 100, windowMs: 60_000 } })];
  const postJson = (url: string, body: string) =>
    rawRequest(url, {
      method: 'POST',
      path: '/notes',
      headers: { 'content-type': 'application/json' },
      body,
    });

  /** The secure headers, and rate-limit headers showing the global bucket after `count` hits. */
  function expectEdgeHeaders(
    headers: Record<string, string | string[] | undefined>,
    count: number,
    what: string,
  ): void {
    for (const [name, value] of Object.entries(SECURE_HEADERS))
      expect(headers[name], `${name} on ${what}`).toBe(value);
    expect(headers['x-ratelimit-limit'], what).toBe('100');
    expect(headers['x-ratelimit-remaining'], what).toBe(String(100 - count));
    expect(Number(headers['x-ratelimit-reset']), what).toBeGreaterThan(0);
    expect(headers['x-request-id'], what).toMatch(/^[0-9a-f-]{36}$/);
  }

  const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

  it('puts them on a malformed JSON 400, a __proto__ body 400 and a 413, counted in the global bucket', async () => {
    await withServer(adapter, { routes, plugins: plugins() }, async (url) => {
      const malformed = await postJson(url, '{"a":');
      expect([malformed.status, errorOf(malformed.body)]).toEqual([400, 'BAD_REQUEST']);
      expectEdgeHeaders(malformed.headers, 1, 'malformed JSON');
      const poisoned = await postJson(url, '{"__proto__":{"isAdmin":true}}');
      expect([poisoned.status, errorOf(poisoned.body)]).toEqual([400, 'BAD_REQUEST']);
      expectEdgeHeaders(poisoned.headers, 2, '__proto__ body');
      const large = await postJson(url, JSON.stringify({ a: 'x'.repeat(1_048_576) }));
      expect([large.status, errorOf(large.body)]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
      expect(large.headers.connection).toBe('close');
      expectEdgeHeaders(large.headers, 3, '413');
    });
  });

  it("puts them on node's own 431, 400 for garbage and 400 for a malformed path (raw socket)", async () => {
    await withServer(adapter, { routes, plugins: plugins() }, async (url) => {
      const tooLarge = parseRawResponse(
        await rawSocket(url, `GET /notes/1 HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      expect([tooLarge.status, errorOf(tooLarge.body)]).toEqual([431, 'HEADERS_TOO_LARGE']);
      expect(tooLarge.headers.connection).toBe('close');
      expectEdgeHeaders(tooLarge.headers, 1, '431');
      const garbage = parseRawResponse(await rawSocket(url, 'NOT A REQUEST\r\n\r\n'));
      expect([garbage.status, errorOf(garbage.body)]).toEqual([400, 'BAD_REQUEST']);
      expectEdgeHeaders(garbage.headers, 2, 'garbage');
      const badPath = parseRawResponse(
        await rawSocket(url, 'GET /notes/%E0%A4%A HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'),
      );
      expect([badPath.status, errorOf(badPath.body)]).toEqual([400, 'BAD_REQUEST']);
      expectEdgeHeaders(badPath.headers, 3, 'malformed path');
      // Each client error got its own fresh request id.
      expect(new Set([tooLarge, garbage, badPath].map((answer) => answer.headers['x-request-id'])).size).toBe(
        3,
      );
    });
  });
});
