// Request hooks of edge plugins on every adapter: onRequest runs first on every answer (routes, edge routes,
// the neutral 404/405) and may set headers, answer or refuse; onResponse sees every answer and cannot break it.
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  healthPlugin,
  route,
  stream,
  type ErrorReport,
  type Plugin,
  type OutgoingResponse,
  type RequestHook,
  type ResponseEvent,
} from 'svckit';
import { adapters, call, rawRequest, withServer } from './harness.js';

function hookPlugin(hook: RequestHook, order?: string[]): Plugin {
  return {
    name: 'hooks',
    setup(app) {
      app.metadata.add('http:request-hooks', hook);
      if (order !== undefined) {
        app.metadata.add('http:enrichers', {
          name: 'order',
          enrich: () => {
            order.push('enricher');
          },
        });
      }
    },
  };
}

/** A guard refusing requests that carry `x-deny`, with 401. */
function denyOnHeader(): Plugin {
  return {
    name: 'deny-on-header',
    setup(app) {
      app.metadata.add('http:guards', {
        name: 'deny-on-header',
        check: ({ request }) => {
          if (request.headers['x-deny'] !== undefined) throw new HttpError(401, 'AUTH_REQUIRED', 'No.');
        },
      });
    },
  };
}

async function* twoChunks() {
  yield 'a';
  await new Promise((resolve) => setTimeout(resolve, 20));
  yield 'b';
}

const routes = [
  route({ method: 'GET', url: '/ok', handler: () => ({ ok: true }) }),
  route({ method: 'POST', url: '/ok', handler: () => ({ posted: true }) }),
  route({
    method: 'GET',
    url: '/fails',
    handler: () => {
      throw new HttpError(409, 'CONFLICT_HERE', 'Conflict.');
    },
  }),
  route({ method: 'GET', url: '/stream', handler: () => stream(twoChunks()) }),
  route({ method: 'GET', url: '/items/:id', handler: ({ params }) => params }),
];

describe.each(adapters)('request hooks on $name', (adapter) => {
  it('sets headers on every answer: routes, errors, 404, 405, edge routes and streams', async () => {
    const hook: RequestHook = {
      name: 'stamp',
      onRequest: ({ reply }) => {
        reply.header('x-stamp', 'on');
      },
    };
    await withServer(adapter, { routes, plugins: [hookPlugin(hook), healthPlugin()] }, async (url) => {
      for (const [method, path, status] of [
        ['GET', '/ok', 200],
        ['GET', '/fails', 409],
        ['GET', '/missing', 404],
        ['DELETE', '/ok', 405],
        ['GET', '/livez', 200],
        ['GET', '/stream', 200],
      ] as const) {
        const response = await rawRequest(url, { method, path });
        expect(response.status, `${method} ${path}`).toBe(status);
        expect(response.headers['x-stamp'], `${method} ${path}`).toBe('on');
        expect(response.headers['x-request-id'], `${method} ${path}`).toBeTruthy();
      }
    });
  });

  it('runs before enrichers, and a hook that answers stops the request, routed or not', async () => {
    const order: string[] = [];
    const hook: RequestHook = {
      name: 'preflight',
      onRequest: async ({ request, reply, route: matched }) => {
        order.push(`hook:${matched?.url ?? 'none'}`);
        await Promise.resolve();
        if (request.headers['x-answer'] === 'yes') reply.finish(204, undefined, undefined);
      },
    };
    await withServer(adapter, { routes, plugins: [hookPlugin(hook, order)] }, async (url) => {
      expect((await call(`${url}/ok`)).status).toBe(200);
      expect(order).toEqual(['hook:/ok', 'enricher']);
      order.length = 0;
      const answered = await call(`${url}/ok`, { method: 'POST', headers: { 'x-answer': 'yes' } });
      expect(answered.status).toBe(204);
      expect(answered.text).toBe('');
      expect(order).toEqual(['hook:/ok']);
      order.length = 0;
      const unrouted = await rawRequest(url, {
        method: 'OPTIONS',
        path: '/ok',
        headers: { 'x-answer': 'yes' },
      });
      expect(unrouted.status).toBe(204);
      expect(order).toEqual(['hook:none']);
    });
  });

  it('runs hooks in order and stops at the one that answered, sync or async', async () => {
    const ran: string[] = [];
    const answerOn = (name: string, mode: string): RequestHook => ({
      name,
      onRequest: ({ request, reply }) => {
        ran.push(name);
        if (request.headers['x-answer'] !== mode) return;
        if (mode === 'sync') {
          reply.finish(204, undefined, undefined);
          return;
        }
        return Promise.resolve().then(() => reply.finish(202, undefined, undefined));
      },
    });
    const plugins = [
      hookPlugin(answerOn('first', 'sync')),
      hookPlugin(answerOn('second', 'async')),
      hookPlugin(answerOn('third', 'never')),
    ];
    await withServer(adapter, { routes, plugins }, async (url) => {
      for (const [answer, status, expected] of [
        ['none', 200, ['first', 'second', 'third']],
        ['sync', 204, ['first']],
        ['async', 202, ['first', 'second']],
      ] as const) {
        ran.length = 0;
        for (const path of ['/ok', '/missing']) {
          const response = await call(`${url}${path}`, { headers: { 'x-answer': answer } });
          expect(response.status, `${answer} ${path}`).toBe(
            path === '/missing' && answer === 'none' ? 404 : status,
          );
        }
        expect(ran, answer).toEqual([...expected, ...expected]);
      }
    });
  });

  it('answers a hook that throws with the envelope, and nothing else runs', async () => {
    let handled = 0;
    const hook: RequestHook = {
      name: 'limit',
      onRequest: () => {
        throw new HttpError(429, 'RATE_LIMITED', 'Too many requests.');
      },
    };
    const counted = [route({ method: 'GET', url: '/count', handler: () => ++handled })];
    await withServer(adapter, { routes: counted, plugins: [hookPlugin(hook)] }, async (url) => {
      const response = await call(`${url}/count`);
      expect(response.status).toBe(429);
      expect(response.json).toEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests.' } });
      expect((await call(`${url}/nowhere`)).status).toBe(429);
      expect(handled).toBe(0);
    });
  });

  it('tells onResponse hooks the status, route template and duration of every answer', async () => {
    const events: ResponseEvent[] = [];
    const hook: RequestHook = { name: 'observe', onResponse: (event) => events.push(event) };
    await withServer(adapter, { routes, plugins: [hookPlugin(hook)] }, async (url) => {
      await call(`${url}/items/42`);
      await call(`${url}/fails`);
      await call(`${url}/missing`);
      await call(`${url}/stream`);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events.map((event) => [event.status, event.route?.url ?? null, event.request.path])).toEqual([
        [200, '/items/:id', '/items/42'],
        [409, '/fails', '/fails'],
        [404, null, '/missing'],
        [200, '/stream', '/stream'],
      ]);
      for (const event of events) expect(event.durationMs).toBeGreaterThanOrEqual(0);
      // The body goes with the event exactly as sent (what an idempotency replay stores); a stream has none.
      expect(events.map((event) => [String(event.body), event.contentType, event.streamed])).toEqual([
        ['{"id":"42"}', 'application/json; charset=utf-8', false],
        [
          '{"error":{"code":"CONFLICT_HERE","message":"Conflict."}}',
          'application/json; charset=utf-8',
          false,
        ],
        [
          '{"error":{"code":"NOT_FOUND","message":"Route not found."}}',
          'application/json; charset=utf-8',
          false,
        ],
        ['undefined', 'application/octet-stream', true],
      ]);
      // A stream is observed when it ends, after its second chunk.
      expect(events[3]?.durationMs).toBeGreaterThanOrEqual(15);
    });
  });

  it('reports a failing onResponse hook as AFTER_HOOK_FAILED and never changes the answer', async () => {
    const reports: ErrorReport[] = [];
    const hook: RequestHook = {
      name: 'broken-metrics',
      onResponse: () => {
        throw new Error('registry exploded');
      },
    };
    await withServer(
      adapter,
      {
        routes,
        plugins: [hookPlugin(hook)],
        options: { onError: (report: ErrorReport) => reports.push(report) },
      },
      async (url) => {
        const response = await call(`${url}/ok`);
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ ok: true });
        expect(reports).toHaveLength(1);
        expect(reports[0]).toMatchObject({ code: 'AFTER_HOOK_FAILED', status: 500, route: '/ok' });
      },
    );
  });

  it('beforeResponse sees the final answer before it is written, and the write waits for its promise', async () => {
    const seen: Array<Pick<OutgoingResponse, 'status' | 'fromHandler' | 'streamed'> & { route?: string }> =
      [];
    let released = false;
    let posted: unknown[] = [];
    const hook: RequestHook = {
      name: 'recorder',
      onRequest: ({ request }) => {
        if (request.headers['x-refuse'] !== undefined) throw new HttpError(429, 'RATE_LIMITED', 'Slow down.');
      },
      beforeResponse: (response) => {
        seen.push({
          status: response.status,
          fromHandler: response.fromHandler,
          streamed: response.streamed,
          route: response.route?.url,
        });
        if (response.route?.url !== '/ok' || response.request.method !== 'POST') return;
        posted = [response.body, response.contentType, response.getHeader('x-request-id')];
        return new Promise<void>((resolve) =>
          setTimeout(() => {
            released = true;
            resolve();
          }, 40),
        );
      },
    };
    await withServer(adapter, { routes, plugins: [hookPlugin(hook), denyOnHeader()] }, async (url) => {
      const answer = await call(`${url}/ok`, { method: 'POST' });
      // The answer could only be read once the hook's promise settled.
      expect(released).toBe(true);
      expect(answer.json).toEqual({ posted: true });
      expect(posted).toEqual([
        '{"posted":true}',
        'application/json; charset=utf-8',
        answer.headers.get('x-request-id'),
      ]);
      await call(`${url}/fails`);
      await call(`${url}/stream`);
      await call(`${url}/ok`, { headers: { 'x-deny': '1' } });
      await call(`${url}/ok`, { headers: { 'x-refuse': '1' } });
      await call(`${url}/nowhere`);
    });
    expect(seen).toEqual([
      { status: 200, fromHandler: true, streamed: false, route: '/ok' },
      // What the handler threw is its answer; a guard's or a hook's refusal and the neutral 404 are not.
      { status: 409, fromHandler: true, streamed: false, route: '/fails' },
      { status: 200, fromHandler: true, streamed: true, route: '/stream' },
      { status: 401, fromHandler: false, streamed: false, route: '/ok' },
      { status: 429, fromHandler: false, streamed: false, route: '/ok' },
      { status: 404, fromHandler: false, streamed: false, route: undefined },
    ]);
  });

  it('reports a failing beforeResponse hook as AFTER_HOOK_FAILED and still sends the answer', async () => {
    const reports: ErrorReport[] = [];
    const hook: RequestHook = {
      name: 'broken-recorder',
      beforeResponse: (response) =>
        response.request.method === 'POST' ? Promise.reject(new Error('store down')) : undefined,
    };
    await withServer(
      adapter,
      {
        routes,
        plugins: [hookPlugin(hook)],
        options: { onError: (report: ErrorReport) => reports.push(report) },
      },
      async (url) => {
        const response = await call(`${url}/ok`, { method: 'POST' });
        expect(response.status).toBe(200);
        expect(response.json).toEqual({ posted: true });
        expect(reports).toHaveLength(1);
        expect(reports[0]).toMatchObject({ code: 'AFTER_HOOK_FAILED', status: 500, route: '/ok' });
      },
    );
  });
});
