// Rate limits on every adapter (docs/http.md, "Rate limits"): the global bucket per client IP, per-route buckets by ip/user/tenant/user+tenant or
// a function, 429 with Retry-After, X-RateLimit-* headers on every answer, X-Forwarded-For never trusted.
import { describe, expect, it } from 'vitest';
import {
  healthPlugin,
  MemoryRateLimitStore,
  route,
  securityPlugin,
  type Plugin,
  type Route,
  type SecurityPluginOptions,
} from 'svckit';
import { adapters, call, parseRawResponse, rawRequest, rawSocket, withServer } from './harness.js';

const LIMITED = { error: { code: 'RATE_LIMITED', message: 'Too many requests.' } };

/** A stand-in for authentication: `x-user` and `x-tenant` become `context.user` and `context.tenant`. */
const fakeIdentity: Plugin = {
  name: 'fake-identity',
  setup(app) {
    app.metadata.add('http:enrichers', {
      name: 'identity-from-headers',
      enrich: ({ request, context }) => {
        const user = request.headers['x-user'];
        const tenant = request.headers['x-tenant'];
        if (typeof user === 'string') context.user = { id: user };
        if (typeof tenant === 'string') context.tenant = { id: tenant };
      },
    });
  },
};

function limitedRoute(url: string, rateLimit: unknown): Route {
  return route({ method: 'GET', url, meta: { rateLimit }, handler: () => ({ ok: true }) });
}

function rateHeaders(headers: Headers): { limit: string | null; remaining: string | null; reset: number } {
  return {
    limit: headers.get('x-ratelimit-limit'),
    remaining: headers.get('x-ratelimit-remaining'),
    reset: Number(headers.get('x-ratelimit-reset')),
  };
}

describe.each(adapters)('rate limits on $name', (adapter) => {
  const serve = (
    options: SecurityPluginOptions,
    routes: Route[],
    body: (url: string) => Promise<void>,
  ): Promise<void> => withServer(adapter, { routes, plugins: [securityPlugin(options), fakeIdentity] }, body);

  it('answers 429 RATE_LIMITED with Retry-After once the global limit is used up', async () => {
    let handled = 0;
    const notes = route({
      method: 'GET',
      url: '/notes',
      handler: () => {
        handled++;
        return { items: [] };
      },
    });
    await serve({ rateLimit: { limit: 2, windowMs: 60_000 } }, [notes], async (url) => {
      const first = await call(`${url}/notes`);
      expect(first.status).toBe(200);
      expect(rateHeaders(first.headers)).toMatchObject({ limit: '2', remaining: '1' });
      expect(first.headers.get('retry-after')).toBeNull();
      const second = await call(`${url}/notes`);
      expect(rateHeaders(second.headers)).toMatchObject({ limit: '2', remaining: '0' });
      const third = await call(`${url}/notes`);
      expect(third.status).toBe(429);
      expect(third.json).toEqual(LIMITED);
      const retryAfter = Number(third.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(59);
      expect(retryAfter).toBeLessThanOrEqual(60);
      const headers = rateHeaders(third.headers);
      expect(headers).toMatchObject({ limit: '2', remaining: '0' });
      expect(headers.reset).toBe(retryAfter);
      expect(handled).toBe(2);
    });
  });

  it('sends the headers on 404s and errors, and counts them', async () => {
    const boom = route({
      method: 'GET',
      url: '/boom',
      handler: () => {
        throw new Error('broken');
      },
    });
    await serve({ rateLimit: { limit: 3, windowMs: 60_000 } }, [boom], async (url) => {
      const missing = await call(`${url}/nowhere`);
      expect(missing.status).toBe(404);
      expect(rateHeaders(missing.headers)).toMatchObject({ limit: '3', remaining: '2' });
      const failed = await call(`${url}/boom`);
      expect(failed.status).toBe(500);
      expect(rateHeaders(failed.headers)).toMatchObject({ limit: '3', remaining: '1' });
      expect((await call(`${url}/boom`)).status).toBe(500);
      const refused = await call(`${url}/nowhere`);
      expect(refused.status).toBe(429);
      expect(refused.json).toEqual(LIMITED);
    });
  });

  it('never keys on X-Forwarded-For or other client headers: spoofing gets no fresh bucket', async () => {
    await serve(
      { rateLimit: { limit: 1, windowMs: 60_000 } },
      [limitedRoute('/a', undefined)],
      async (url) => {
        expect((await call(`${url}/a`)).status).toBe(200);
        const spoofs: Array<Record<string, string>> = [
          { 'x-forwarded-for': '203.0.113.7' },
          { forwarded: 'for=203.0.113.8' },
          { 'x-real-ip': '203.0.113.9' },
          { 'x-forwarded-for': '203.0.113.10', 'x-user': 'someone' },
        ];
        for (const headers of spoofs) {
          const spoofed = await call(`${url}/a`, { headers });
          expect(spoofed.status).toBe(429);
        }
      },
    );
  });

  it('counts a route bucket separately from the global one and shows the tighter of the two', async () => {
    const routes = [
      limitedRoute('/limited', { limit: 1, windowMs: 60_000 }),
      limitedRoute('/free', undefined),
    ];
    await serve({ rateLimit: { limit: 100, windowMs: 60_000 } }, routes, async (url) => {
      const first = await call(`${url}/limited`);
      expect(first.status).toBe(200);
      expect(rateHeaders(first.headers)).toMatchObject({ limit: '1', remaining: '0' });
      const second = await call(`${url}/limited`);
      expect(second.status).toBe(429);
      expect(second.json).toEqual(LIMITED);
      expect(rateHeaders(second.headers)).toMatchObject({ limit: '1', remaining: '0' });
      expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(59);
      // The route's refusals do not use up the global bucket for other routes, which still answer.
      const free = await call(`${url}/free`);
      expect(free.status).toBe(200);
      expect(rateHeaders(free.headers)).toMatchObject({ limit: '100', remaining: '97' });
    });
  });

  it('shows the global bucket on a limited route when it is closer to refusing', async () => {
    const routes = [limitedRoute('/limited', { limit: 10, windowMs: 60_000 })];
    await serve({ rateLimit: { limit: 2, windowMs: 60_000 } }, routes, async (url) => {
      const first = await call(`${url}/limited`);
      expect(rateHeaders(first.headers)).toMatchObject({ limit: '2', remaining: '1' });
      expect((await call(`${url}/limited`)).status).toBe(200);
      expect((await call(`${url}/limited`)).status).toBe(429);
    });
  });

  it('limits route buckets even without a global limit, with no headers on other routes', async () => {
    const routes = [
      limitedRoute('/limited', { limit: 1, windowMs: 60_000 }),
      limitedRoute('/free', undefined),
    ];
    await serve({}, routes, async (url) => {
      expect((await call(`${url}/limited`)).status).toBe(200);
      const refused = await call(`${url}/limited`);
      expect(refused.status).toBe(429);
      expect(refused.headers.get('retry-after')).not.toBeNull();
      const free = await call(`${url}/free`);
      expect(free.status).toBe(200);
      expect(free.headers.get('x-ratelimit-limit')).toBeNull();
    });
  });

  it('keys by user after the enrichers, falling back to the IP without one', async () => {
    await serve({}, [limitedRoute('/mine', { limit: 1, windowMs: 60_000, key: 'user' })], async (url) => {
      expect((await call(`${url}/mine`, { headers: { 'x-user': 'alice' } })).status).toBe(200);
      expect((await call(`${url}/mine`, { headers: { 'x-user': 'alice' } })).status).toBe(429);
      expect((await call(`${url}/mine`, { headers: { 'x-user': 'bob' } })).status).toBe(200);
      // Anonymous callers share the IP bucket, which alice and bob did not use.
      expect((await call(`${url}/mine`)).status).toBe(200);
      expect((await call(`${url}/mine`)).status).toBe(429);
      // A user whose id looks like an IP does not land in the IP bucket.
      expect((await call(`${url}/mine`, { headers: { 'x-user': '127.0.0.1' } })).status).toBe(200);
    });
  });

  it('keys by tenant and by user+tenant', async () => {
    const routes = [
      limitedRoute('/tenant', { limit: 1, windowMs: 60_000, key: 'tenant' }),
      limitedRoute('/both', { limit: 1, windowMs: 60_000, key: 'user+tenant' }),
    ];
    await serve({}, routes, async (url) => {
      const as = (user: string, tenant: string) => ({ headers: { 'x-user': user, 'x-tenant': tenant } });
      expect((await call(`${url}/tenant`, as('alice', 't1'))).status).toBe(200);
      expect((await call(`${url}/tenant`, as('bob', 't1'))).status).toBe(429);
      expect((await call(`${url}/tenant`, as('bob', 't2'))).status).toBe(200);
      expect((await call(`${url}/both`, as('alice', 't1'))).status).toBe(200);
      expect((await call(`${url}/both`, as('alice', 't1'))).status).toBe(429);
      expect((await call(`${url}/both`, as('alice', 't2'))).status).toBe(200);
      expect((await call(`${url}/both`, as('bob', 't1'))).status).toBe(200);
      // Without a tenant the bucket is the IP's.
      expect((await call(`${url}/both`, { headers: { 'x-user': 'carol' } })).status).toBe(200);
      expect((await call(`${url}/both`, { headers: { 'x-user': 'dave' } })).status).toBe(429);
    });
  });

  it('keys by a function of the request, falling back to the IP on an empty key', async () => {
    const byClient = ({ request }: { request: { headers: Record<string, unknown> } }) => {
      const client = request.headers['x-client'];
      return typeof client === 'string' ? client : '';
    };
    await serve({}, [limitedRoute('/fn', { limit: 1, windowMs: 60_000, key: byClient })], async (url) => {
      expect((await call(`${url}/fn`, { headers: { 'x-client': 'a' } })).status).toBe(200);
      expect((await call(`${url}/fn`, { headers: { 'x-client': 'a' } })).status).toBe(429);
      expect((await call(`${url}/fn`, { headers: { 'x-client': 'b' } })).status).toBe(200);
      expect((await call(`${url}/fn`)).status).toBe(200);
      expect((await call(`${url}/fn`)).status).toBe(429);
    });
  });

  it('ignores a malformed meta.rateLimit: only the global bucket applies', async () => {
    const malformed: unknown[] = [
      'lots',
      { limit: 0, windowMs: 60_000 },
      { limit: 1 },
      { limit: 1, windowMs: -5 },
      { limit: 1.5, windowMs: 60_000 },
      { limit: 1, windowMs: 60_000, key: 'session' },
      [1, 60_000],
      null,
    ];
    const routes = malformed.map((value, index) => limitedRoute(`/m${index}`, value));
    await serve({ rateLimit: { limit: 100, windowMs: 60_000 } }, routes, async (url) => {
      for (let index = 0; index < malformed.length; index++) {
        for (let attempt = 0; attempt < 2; attempt++) {
          const response = await call(`${url}/m${index}`);
          expect(response.status).toBe(200);
          expect(response.headers.get('x-ratelimit-limit')).toBe('100');
        }
      }
    });
  });

  it('starts a new window once the old one ended', async () => {
    // The store's clock is the test's: the window ends when the test says so, not after a real wait.
    let now = Date.now();
    const store = new MemoryRateLimitStore({ now: () => now });
    const options = { rateLimit: { limit: 1, windowMs: 300, store } };
    await serve(options, [limitedRoute('/a', undefined)], async (url) => {
      expect((await call(`${url}/a`)).status).toBe(200);
      now += 299;
      expect((await call(`${url}/a`)).status).toBe(429);
      now += 1;
      const fresh = await call(`${url}/a`);
      expect(fresh.status).toBe(200);
      expect(rateHeaders(fresh.headers)).toMatchObject({ limit: '1', remaining: '0' });
    });
  });

  it('does not count preflights, and a 429 carries the CORS headers with the rate-limit headers exposed', async () => {
    const origin = 'https://app.example.com';
    const options: SecurityPluginOptions = {
      cors: { origin: [origin] },
      rateLimit: { limit: 1, windowMs: 60_000 },
    };
    await serve(options, [limitedRoute('/a', undefined)], async (url) => {
      const preflight = { method: 'OPTIONS', headers: { origin, 'access-control-request-method': 'GET' } };
      expect((await call(`${url}/a`, preflight)).status).toBe(204);
      expect((await call(`${url}/a`, preflight)).status).toBe(204);
      expect((await call(`${url}/a`, { headers: { origin } })).status).toBe(200);
      const refused = await call(`${url}/a`, { headers: { origin } });
      expect(refused.status).toBe(429);
      expect(refused.headers.get('access-control-allow-origin')).toBe(origin);
      const exposed = refused.headers.get('access-control-expose-headers') ?? '';
      for (const name of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'retry-after']) {
        expect(exposed).toContain(name);
      }
    });
  });
});

describe('securityPlugin rateLimit options', () => {
  it('refuses a bad limit, window, store or unknown key', () => {
    expect(() => securityPlugin({ rateLimit: { limit: 0, windowMs: 1000 } })).toThrow(/rateLimit.limit/);
    expect(() => securityPlugin({ rateLimit: { limit: 5, windowMs: 0.5 } })).toThrow(/rateLimit.windowMs/);
    expect(() => securityPlugin({ rateLimit: { limit: 5 } as never })).toThrow(/rateLimit.windowMs/);
    expect(() => securityPlugin({ rateLimit: { limit: 5, windowMs: 1000, store: {} as never } })).toThrow(
      /rateLimit.store/,
    );
    expect(() => securityPlugin({ rateLimit: { limit: 5, windowMs: 1000, key: 'user' } as never })).toThrow(
      /securityPlugin\(\): rateLimit: unknown option "key"/,
    );
  });

  it('counts into a given store', async () => {
    const seen: string[] = [];
    const store = {
      hit: (key: string, windowMs: number, limit: number) => {
        seen.push(`${key} ${windowMs} ${limit}`);
        return Promise.resolve({ count: limit + 1, resetAt: Date.now() + 2500 });
      },
    };
    const [adapter] = adapters;
    if (adapter === undefined) throw new Error('no adapter');
    await withServer(
      adapter,
      {
        routes: [limitedRoute('/a', undefined)],
        plugins: [securityPlugin({ rateLimit: { limit: 3, windowMs: 9000, store } })],
      },
      async (url) => {
        const refused = await call(`${url}/a`);
        expect(refused.status).toBe(429);
        expect(refused.headers.get('retry-after')).toBe('3');
        expect(seen).toEqual(['["global","ip","127.0.0.1"] 9000 3']);
      },
    );
  });
});

describe('rate limits without a client IP (hono with a resolver that finds none)', () => {
  it('puts every client with an unknown IP in one shared bucket, whatever headers they send', async () => {
    const hono = adapters.find((candidate) => candidate.name === 'hono');
    if (hono === undefined) throw new Error('no hono adapter');
    await withServer(
      hono,
      {
        routes: [limitedRoute('/a', undefined), limitedRoute('/r', { limit: 1, windowMs: 60_000 })],
        plugins: [securityPlugin({ rateLimit: { limit: 2, windowMs: 60_000 } })],
        options: { getClientIp: () => undefined },
      },
      async (url) => {
        expect((await call(`${url}/r`)).status).toBe(200);
        expect((await call(`${url}/r`, { headers: { 'x-forwarded-for': '198.51.100.1' } })).status).toBe(429);
        const refused = await call(`${url}/a`, { headers: { 'x-forwarded-for': '198.51.100.2' } });
        expect(refused.status).toBe(429);
      },
    );
  });
});

describe.each(adapters)('rate limits and edge routes on $name', (adapter) => {
  it('never counts or limits edge routes such as the health probes', async () => {
    const plugins = [securityPlugin({ rateLimit: { limit: 2, windowMs: 60_000 } }), healthPlugin()];
    await withServer(adapter, { routes: [], plugins }, async (url) => {
      for (let index = 0; index < 5; index++) {
        const live = await call(`${url}/livez`);
        expect(live.status).toBe(200);
        expect(live.headers.get('x-ratelimit-limit')).toBeNull();
      }
      // The probes did not use up the global bucket.
      const other = await call(`${url}/missing`);
      expect(other.headers.get('x-ratelimit-remaining')).toBe('1');
    });
  });
});

describe.each(adapters)('rate limits on the errors the framework raises, on $name', (adapter) => {
  it('answers 429 instead of a 400, 413 or 431 once the bucket is spent, those errors counting too', async () => {
    const notes = route({ method: 'POST', url: '/notes', body: { type: 'object' }, handler: () => ({}) });
    const plugins = [securityPlugin({ rateLimit: { limit: 2, windowMs: 60_000 } })];
    await withServer(adapter, { routes: [notes], plugins }, async (url) => {
      const post = (body: string) =>
        rawRequest(url, {
          method: 'POST',
          path: '/notes',
          headers: { 'content-type': 'application/json' },
          body,
        });
      // A 431 and a malformed body spend the bucket like any other answer.
      const first = parseRawResponse(
        await rawSocket(url, `GET /notes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
      );
      expect([first.status, first.headers['x-ratelimit-remaining']]).toEqual([431, '1']);
      const second = await post('{"a":');
      expect([second.status, second.headers['x-ratelimit-remaining']]).toEqual([400, '0']);
      const refused = [
        await post('{"a":'),
        await post('{"__proto__":{}}'),
        await post(JSON.stringify({ a: 'x'.repeat(1_048_576) })),
        parseRawResponse(
          await rawSocket(url, `GET /notes HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`),
        ),
        parseRawResponse(await rawSocket(url, 'NOT A REQUEST\r\n\r\n')),
      ];
      for (const [index, answer] of refused.entries()) {
        expect([index, answer.status], answer.body).toEqual([index, 429]);
        expect(JSON.parse(answer.body)).toEqual(LIMITED);
        expect(Number(answer.headers['retry-after'])).toBeGreaterThan(0);
        expect(answer.headers['x-ratelimit-remaining']).toBe('0');
      }
    });
  });
});
