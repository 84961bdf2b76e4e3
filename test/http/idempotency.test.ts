// idempotencyPlugin on every adapter (docs/http.md, "idempotencyPlugin(...)"): one handler run per scope and key, replays before guards with
// `Idempotent-Replayed: true`, 409 while pending, 5xx frees the key, anonymous requests pass untouched.
import { describe, expect, it } from 'vitest';
import {
  HttpError,
  MemoryIdempotencyStore,
  idempotencyPlugin,
  route,
  stream,
  type IdempotencyPluginOptions,
  type IdempotencyRecord,
  type IdempotencyStore,
  type Plugin,
  type Route,
} from 'svckit';
import { Readable } from 'node:stream';
import { adapters, call, rawRequest, withServer } from './harness.js';

const CONFLICT = {
  error: {
    code: 'IDEMPOTENCY_CONFLICT',
    message: 'A request with this idempotency key is still in progress.',
  },
};
const AUTH = { authorization: 'Bearer alice' };

function post(url: string, headers: Record<string, string>, body: unknown = { title: 't' }) {
  return call(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

/** The memory store whose writes take `delayMs` to land, as on a store across a network. */
class SlowStore implements IdempotencyStore {
  private readonly inner = new MemoryIdempotencyStore();
  constructor(private readonly delayMs: number) {}
  get(key: string) {
    return this.inner.get(key);
  }
  setPending(key: string) {
    return this.inner.setPending(key);
  }
  complete(key: string, record: IdempotencyRecord) {
    return new Promise((resolve) => setTimeout(resolve, this.delayMs)).then(() =>
      this.inner.complete(key, record),
    );
  }
  release(key: string) {
    return new Promise((resolve) => setTimeout(resolve, this.delayMs)).then(() => this.inner.release(key));
  }
}

/** A store that records every key it is given, to show it never sees a raw key or a credential. */
class RecordingStore implements IdempotencyStore {
  readonly keys: string[] = [];
  readonly completedBodies: string[] = [];
  private readonly inner = new MemoryIdempotencyStore();
  get(key: string) {
    this.keys.push(key);
    return this.inner.get(key);
  }
  setPending(key: string) {
    this.keys.push(key);
    return this.inner.setPending(key);
  }
  complete(key: string, record: IdempotencyRecord) {
    this.keys.push(key);
    this.completedBodies.push(record.body);
    return this.inner.complete(key, record);
  }
  release(key: string) {
    this.keys.push(key);
    return this.inner.release(key);
  }
}

describe.each(adapters)('idempotencyPlugin on $name', (adapter) => {
  /** A counting POST /notes/:id route; `status` picks the answer's status. */
  function notesRoute(options: { delayMs?: number; status?: () => number } = {}): {
    route: Route;
    runs: () => number;
  } {
    let runs = 0;
    const notes = route({
      method: 'POST',
      url: '/notes/:id',
      handler: async ({ params, reply }) => {
        runs++;
        const run = runs;
        if (options.delayMs !== undefined)
          await new Promise((resolve) => setTimeout(resolve, options.delayMs));
        reply.status(options.status?.() ?? 201);
        return { id: (params as { id: string }).id, run };
      },
    });
    return { route: notes, runs: () => runs };
  }

  const serve = (
    routes: Route[],
    body: (url: string) => Promise<void>,
    options: IdempotencyPluginOptions = {},
    extra: Plugin[] = [],
  ) => withServer(adapter, { routes, plugins: [idempotencyPlugin(options), ...extra] }, body);

  it('runs the handler once for 50 identical keyed POSTs sent at once', async () => {
    const notes = notesRoute({ delayMs: 50 });
    await serve([notes.route], async (url) => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, () => post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'burst' })),
      );
      expect(notes.runs()).toBe(1);
      const first = answers.filter(
        (answer) => answer.status === 201 && answer.headers.get('idempotent-replayed') === null,
      );
      expect(first).toHaveLength(1);
      for (const answer of answers) {
        if (answer.status === 409) expect(answer.json).toEqual(CONFLICT);
        else {
          expect(answer.status).toBe(201);
          expect(answer.json).toEqual({ id: '1', run: 1 });
        }
      }
      expect(answers.filter((answer) => answer.status === 409).length).toBeGreaterThan(0);
    });
  });

  it('replays a completed answer with Idempotent-Replayed: true, status, body and content type', async () => {
    const notes = notesRoute();
    await serve([notes.route], async (url) => {
      const first = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'k1' });
      expect(first.status).toBe(201);
      expect(first.headers.get('idempotent-replayed')).toBeNull();
      const again = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'k1' });
      expect(again.status).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(again.text).toBe(first.text);
      expect(notes.runs()).toBe(1);
      // A request without the key, or with another key, is a new request.
      expect((await post(`${url}/notes/1`, AUTH)).json).toEqual({ id: '1', run: 2 });
      expect((await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'k2' })).json).toEqual({
        id: '1',
        run: 3,
      });
      // Another concrete path under the same template is another resource.
      expect((await post(`${url}/notes/2`, { ...AUTH, 'idempotency-key': 'k1' })).json).toEqual({
        id: '2',
        run: 4,
      });
    });
  });

  it('scopes keys per credential, tenant and host', async () => {
    const notes = notesRoute();
    await serve([notes.route], async (url) => {
      const key = { 'idempotency-key': 'shared' };
      await post(`${url}/notes/1`, { ...AUTH, ...key });
      const bob = await post(`${url}/notes/1`, { authorization: 'Bearer bob', ...key });
      expect(bob.headers.get('idempotent-replayed')).toBeNull();
      expect(bob.json).toEqual({ id: '1', run: 2 });
      const cookie = await post(`${url}/notes/1`, { cookie: 'sid=alice', ...key });
      expect(cookie.json).toEqual({ id: '1', run: 3 });
      const tenant = await post(`${url}/notes/1`, { ...AUTH, 'x-tenant-id': 'acme', ...key });
      expect(tenant.json).toEqual({ id: '1', run: 4 });
      const host = await rawRequest(url, {
        method: 'POST',
        path: '/notes/1',
        headers: { ...AUTH, ...key, host: 'other.example', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(JSON.parse(host.body)).toEqual({ id: '1', run: 5 });
      expect(host.headers['idempotent-replayed']).toBeUndefined();
      expect(notes.runs()).toBe(5);
    });
  });

  it('neither caches nor replays anonymous requests unless allowAnonymous', async () => {
    const closed = notesRoute();
    await serve([closed.route], async (url) => {
      await post(`${url}/notes/1`, { 'idempotency-key': 'anon' });
      const again = await post(`${url}/notes/1`, { 'idempotency-key': 'anon' });
      expect(again.headers.get('idempotent-replayed')).toBeNull();
      expect(closed.runs()).toBe(2);
    });
    const open = notesRoute();
    await serve(
      [open.route],
      async (url) => {
        await post(`${url}/notes/1`, { 'idempotency-key': 'anon' });
        const again = await post(`${url}/notes/1`, { 'idempotency-key': 'anon' });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(open.runs()).toBe(1);
      },
      { allowAnonymous: true },
    );
  });

  it('releases the key on a 5xx so a retry runs the handler again, and stores a 4xx', async () => {
    let status = 503;
    const notes = notesRoute({ status: () => status });
    await serve([notes.route], async (url) => {
      expect((await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'retry' })).status).toBe(503);
      status = 201;
      const retry = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'retry' });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      expect(notes.runs()).toBe(2);
      status = 422;
      await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'client-error' });
      const replayed = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'client-error' });
      expect(replayed.status).toBe(422);
      expect(replayed.headers.get('idempotent-replayed')).toBe('true');
      expect(notes.runs()).toBe(3);
    });
  });

  it('releases the key when the handler throws', async () => {
    let fail = true;
    const boom = route({
      method: 'POST',
      url: '/boom',
      handler: () => {
        if (fail) throw new Error('internal');
        return { ok: true };
      },
    });
    await serve([boom], async (url) => {
      expect((await post(`${url}/boom`, { ...AUTH, 'idempotency-key': 'b' })).status).toBe(500);
      fail = false;
      const retry = await post(`${url}/boom`, { ...AUTH, 'idempotency-key': 'b' });
      expect(retry.status).toBe(200);
      expect(retry.json).toEqual({ ok: true });
    });
  });

  it('stores neither streamed nor byte answers: a retry runs the handler again', async () => {
    let runs = 0;
    const routes = [
      route({
        method: 'POST',
        url: '/export',
        handler: () => {
          runs++;
          return stream(Readable.from([Buffer.from('chunk')]));
        },
      }),
      route({
        method: 'POST',
        url: '/bytes',
        handler: ({ reply }) => {
          runs++;
          reply.header('content-type', 'application/octet-stream');
          reply.send(Buffer.from([0xff, 0x00]));
        },
      }),
    ];
    await serve(routes, async (url) => {
      for (const path of ['/export', '/bytes']) {
        for (let attempt = 0; attempt < 2; attempt++) {
          const answer = await call(`${url}${path}`, {
            method: 'POST',
            headers: { ...AUTH, 'idempotency-key': 's' },
          });
          expect(answer.status).toBe(200);
          expect(answer.headers.get('idempotent-replayed')).toBeNull();
        }
      }
      expect(runs).toBe(4);
    });
  });

  it('answers 400 IDEMPOTENCY_KEY_INVALID for an empty key or one longer than 255 characters', async () => {
    const notes = notesRoute();
    await serve([notes.route], async (url) => {
      const long = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'k'.repeat(256) });
      expect(long.status).toBe(400);
      expect(long.json).toEqual({
        error: { code: 'IDEMPOTENCY_KEY_INVALID', message: 'Idempotency key is invalid.' },
      });
      const empty = await rawRequest(url, {
        method: 'POST',
        path: '/notes/1',
        headers: { ...AUTH, 'idempotency-key': '', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(empty.status).toBe(400);
      expect(notes.runs()).toBe(0);
      expect((await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'k'.repeat(255) })).status).toBe(
        201,
      );
    });
  });

  it('honours only the configured methods and header', async () => {
    let runs = 0;
    const handler = () => ({ run: ++runs });
    const routes = [
      route({ method: 'POST', url: '/items', handler }),
      route({ method: 'PUT', url: '/items', handler }),
    ];
    await serve(
      routes,
      async (url) => {
        const put = (headers: Record<string, string>) =>
          call(`${url}/items`, { method: 'PUT', headers: { ...AUTH, ...headers } });
        await put({ 'x-request-key': 'p' });
        expect((await put({ 'x-request-key': 'p' })).headers.get('idempotent-replayed')).toBe('true');
        // The default header name is not the configured one; POST is not among the methods.
        await put({ 'idempotency-key': 'p' });
        await call(`${url}/items`, { method: 'POST', headers: { ...AUTH, 'x-request-key': 'q' } });
        const post2 = await call(`${url}/items`, {
          method: 'POST',
          headers: { ...AUTH, 'x-request-key': 'q' },
        });
        expect(post2.headers.get('idempotent-replayed')).toBeNull();
        expect(runs).toBe(4);
      },
      { methods: ['PUT'], header: 'X-Request-Key' },
    );
  });

  it('meta.idempotency: required refuses a request without a key, and opts any method in', async () => {
    let runs = 0;
    const handler = () => ({ run: ++runs });
    const routes = [
      route({ method: 'PATCH', url: '/required', meta: { idempotency: 'required' }, handler }),
      route({ method: 'PUT', url: '/optional', meta: { idempotency: 'optional' }, handler }),
    ];
    await serve(routes, async (url) => {
      const send = (path: string, method: string, headers: Record<string, string>) =>
        call(`${url}${path}`, { method, headers: { ...AUTH, ...headers } });
      const missing = await send('/required', 'PATCH', {});
      expect(missing.status).toBe(400);
      expect(missing.json).toEqual({
        error: { code: 'IDEMPOTENCY_KEY_REQUIRED', message: 'This route needs an idempotency key.' },
      });
      expect(runs).toBe(0);
      await send('/required', 'PATCH', { 'idempotency-key': 'k' });
      const replay = await send('/required', 'PATCH', { 'idempotency-key': 'k' });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.json).toEqual({ run: 1 });
      // Optional: no key runs the handler; a key is honoured although PUT is not among the methods.
      expect((await send('/optional', 'PUT', {})).status).toBe(200);
      await send('/optional', 'PUT', { 'idempotency-key': 'o' });
      expect((await send('/optional', 'PUT', { 'idempotency-key': 'o' })).json).toEqual({ run: 3 });
      expect(runs).toBe(3);
      // The route opted in for every caller: an anonymous keyed retry is replayed too, in its own scope.
      const anonymous = (key: string) =>
        call(`${url}/required`, { method: 'PATCH', headers: { 'idempotency-key': key } });
      expect((await anonymous('k')).json).toEqual({ run: 4 });
      expect((await anonymous('k')).json).toEqual({ run: 4 });
      expect(runs).toBe(4);
    });
  });

  it('refuses to boot a route with meta.idempotency when no idempotencyPlugin keeps the promise', async () => {
    const routes = [
      route({ method: 'POST', url: '/a', meta: { idempotency: 'required' }, handler: () => 'a' }),
    ];
    await expect(withServer(adapter, { routes }, async () => undefined)).rejects.toMatchObject({
      code: 'HTTP_UNGUARDED_ROUTE_META',
    });
    const optedOff = [route({ method: 'POST', url: '/a', meta: { idempotency: false }, handler: () => 'a' })];
    await withServer(adapter, { routes: optedOff }, async (url) => {
      expect((await call(`${url}/a`, { method: 'POST' })).status).toBe(200);
    });
    const bad = [
      route({ method: 'POST', url: '/a', meta: { idempotency: 'always' as never }, handler: () => 'a' }),
    ];
    await expect(serve(bad, async () => undefined)).rejects.toThrow(/meta\.idempotency must be/);
  });

  it('replays before the guards run', async () => {
    let guardCalls = 0;
    const countingGuard: Plugin = {
      name: 'counting-guard',
      setup(app) {
        app.metadata.add('http:guards', {
          name: 'counting',
          check: () => {
            guardCalls++;
          },
        });
      },
    };
    const notes = notesRoute();
    await serve(
      [notes.route],
      async (url) => {
        await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'g' });
        expect(guardCalls).toBe(1);
        const again = await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'g' });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(guardCalls).toBe(1);
      },
      {},
      [countingGuard],
    );
  });

  it('hands the store only SHA-256 hex digests, never the key or a credential', async () => {
    const store = new RecordingStore();
    const notes = notesRoute();
    await serve(
      [notes.route],
      async (url) => {
        await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'visible-key' });
        await post(`${url}/notes/1`, { ...AUTH, 'idempotency-key': 'visible-key' });
      },
      { store },
    );
    expect(store.keys.length).toBeGreaterThan(0);
    for (const key of store.keys) expect(key).toMatch(/^[0-9a-f]{64}$/);
  });

  it('keeps only the handler answer: a guard rejection or a validation 400 frees the key for the retry', async () => {
    let refuse: HttpError | undefined;
    const gate: Plugin = {
      name: 'gate',
      setup(app) {
        app.metadata.add('http:guards', {
          name: 'gate',
          check: () => {
            if (refuse !== undefined) throw refuse;
          },
        });
      },
    };
    let runs = 0;
    const items = route({
      method: 'POST',
      url: '/items',
      body: {
        type: 'object',
        properties: { title: { type: 'string', minLength: 1 } },
        required: ['title'],
      },
      handler: ({ reply }) => {
        reply.status(201);
        return { run: ++runs };
      },
    });
    await serve(
      [items],
      async (url) => {
        const send = (key: string, body: unknown = { title: 't' }) =>
          post(`${url}/items`, { ...AUTH, 'idempotency-key': key }, body);
        for (const [status, code] of [
          [401, 'AUTH_REQUIRED'],
          [429, 'RATE_LIMITED'],
        ] as const) {
          refuse = new HttpError(status, code, 'refused');
          expect((await send(code)).status).toBe(status);
          refuse = undefined;
          const retry = await send(code);
          expect(retry.status).toBe(201);
          expect(retry.headers.get('idempotent-replayed')).toBeNull();
        }
        expect((await send('invalid', { title: '' })).status).toBe(400);
        const corrected = await send('invalid', { title: '' });
        expect(corrected.status).toBe(400);
        expect(corrected.headers.get('idempotent-replayed')).toBeNull();
        expect(runs).toBe(2);
      },
      {},
      [gate],
    );
  });

  it('answers 422 IDEMPOTENCY_KEY_REUSED for the same key with another body or query, and replays an equal body', async () => {
    const notes = notesRoute();
    await serve([notes.route], async (url) => {
      const key = { ...AUTH, 'idempotency-key': 'once' };
      expect((await post(`${url}/notes/1`, key, { title: 'a' })).status).toBe(201);
      const reused = await post(`${url}/notes/1`, key, { title: 'b' });
      expect(reused.status).toBe(422);
      expect(reused.json).toEqual({
        error: {
          code: 'IDEMPOTENCY_KEY_REUSED',
          message: 'This idempotency key was already used for a different request.',
        },
      });
      expect((await post(`${url}/notes/1?draft=1`, key, { title: 'a' })).status).toBe(422);
      // The same JSON value spelt with other whitespace is the same request.
      const spaced = await call(`${url}/notes/1`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...key },
        body: '{ "title" : "a" }',
      });
      expect(spaced.status).toBe(201);
      expect(spaced.headers.get('idempotent-replayed')).toBe('true');
      expect(notes.runs()).toBe(1);
    });
  });

  it('never keeps an answer marked Cache-Control: no-store, nor a meta.idempotency: false route', async () => {
    const store = new RecordingStore();
    let runs = 0;
    const routes = [
      route({
        method: 'POST',
        url: '/token',
        handler: ({ reply }) => {
          reply.header('cache-control', 'no-store');
          return { token: `secret-${++runs}` };
        },
      }),
      route({
        method: 'POST',
        url: '/signin',
        meta: { idempotency: false },
        handler: async () => {
          await new Promise((resolve) => setTimeout(resolve, 20));
          return { token: `secret-${++runs}` };
        },
      }),
    ];
    await serve(
      routes,
      async (url) => {
        const headers = { ...AUTH, 'idempotency-key': 'k' };
        const first = await post(`${url}/token`, headers);
        const second = await post(`${url}/token`, headers);
        expect(first.json).toEqual({ token: 'secret-1' });
        expect(second.json).toEqual({ token: 'secret-2' });
        expect(second.headers.get('idempotent-replayed')).toBeNull();
        const keysSeen = store.keys.length;
        // Opted out: concurrent keyed requests both run, and the store is never asked.
        const both = await Promise.all([post(`${url}/signin`, headers), post(`${url}/signin`, headers)]);
        expect(both.map((answer) => answer.status)).toEqual([200, 200]);
        expect(store.keys.length).toBe(keysSeen);
        expect(runs).toBe(4);
      },
      { store },
    );
    expect(store.completedBodies.some((body) => body.includes('secret'))).toBe(false);
  });

  it('completes the record before the answer leaves: an immediate retry is replayed, never 409', async () => {
    const store = new SlowStore(20);
    const notes = notesRoute();
    await serve(
      [notes.route],
      async (url) => {
        for (let attempt = 0; attempt < 10; attempt++) {
          const headers = { ...AUTH, 'idempotency-key': `fast-${attempt}` };
          expect((await post(`${url}/notes/1`, headers)).status).toBe(201);
          const retry = await post(`${url}/notes/1`, headers);
          expect(retry.status).toBe(201);
          expect(retry.headers.get('idempotent-replayed')).toBe('true');
        }
        expect(notes.runs()).toBe(10);
      },
      { store },
    );
  });

  it('scopes by the default credential headers: x-session-id and x-api-key as well as authorization and cookie', async () => {
    const notes = notesRoute();
    await serve([notes.route], async (url) => {
      const key = { 'idempotency-key': 'cred' };
      const credentials: Record<string, string>[] = [{ 'x-session-id': 's1' }, { 'x-api-key': 'mk_live_a' }];
      for (const credential of credentials) {
        const first = await post(`${url}/notes/1`, { ...credential, ...key });
        const again = await post(`${url}/notes/1`, { ...credential, ...key });
        expect(again.headers.get('idempotent-replayed')).toBe('true');
        expect(again.json).toEqual(first.json);
      }
      // Another value of the same header is another caller.
      const other = await post(`${url}/notes/1`, { 'x-session-id': 's2', ...key });
      expect(other.headers.get('idempotent-replayed')).toBeNull();
      expect(notes.runs()).toBe(3);
    });
  });
});
