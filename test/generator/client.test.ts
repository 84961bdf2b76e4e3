import { readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import * as prettier from 'prettier';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { emitClient } from '../../generator/emit-client.js';
import { createClient, type Client } from './client-fixture/client.js';
import { compileStrict } from './ts-compile.js';
import { HEADER, notesIr } from './client-fixture/spec.js';

const fixtureDir = fileURLToPath(new URL('./client-fixture/', import.meta.url));
const goldenPath = `${fixtureDir}client.ts`;

async function formattedClient(source: string): Promise<string> {
  const config = await prettier.resolveConfig(goldenPath);
  return prettier.format(source, { ...config, filepath: goldenPath });
}

describe('emitClient: source', () => {
  // client-fixture/client.ts is the emitter's output for client-fixture/spec.ts; the type-level and
  // runtime tests below run against it. Regenerate with SVC_UPDATE_FIXTURES=1 after changing the emitter.
  it('matches the committed fixture client', async () => {
    const fresh = await formattedClient(emitClient(notesIr(), { header: HEADER }));
    if (process.env.SVC_UPDATE_FIXTURES === '1') writeFileSync(goldenPath, fresh);
    expect(fresh).toBe(readFileSync(goldenPath, 'utf8'));
  });

  it('builds paths from the parts the shared template rule parsed, never parsing a template itself', () => {
    const source = emitClient(notesIr(), { header: HEADER });
    expect(source).toContain('parts: ["notes",{"param":"id"}]');
    expect(source).not.toMatch(/path\.replace\(|split\('\/'\)/);
  });

  it('imports nothing but types from ./types.js and starts with the header', () => {
    const source = emitClient(notesIr(), { header: HEADER });
    expect(source.startsWith(`${HEADER}\n`)).toBe(true);
    const imports = source.match(/^import .*$/gm) ?? [];
    expect(imports).toEqual(["import type * as T from './types.js';"]);
    expect(source).not.toMatch(/\brequire\(|import\(/);
  });

  it('emits a compilable client without routes (and without the types import)', () => {
    const source = emitClient(notesIr({ routes: [] }), { header: HEADER });
    expect(source).not.toContain('./types.js');
    expect(compileStrict(fixtureDir, { 'client.ts': source }, 'node')).toEqual([]);
  });

  it('refuses a route id that cannot name a method', () => {
    const ir = notesIr();
    ir.routes[0]!.id = 'list-notes';
    expect(() => emitClient(ir, { header: HEADER })).toThrow(/list-notes/);
  });
});

describe('emitClient: types', () => {
  const fixture = (name: string) => readFileSync(`${fixtureDir}${name}`, 'utf8');
  const files = () => ({
    'client.ts': fixture('client.ts'),
    'types.ts': fixture('types.ts'),
    'type-checks.ts': fixture('type-checks.ts'),
  });

  // Zero diagnostics also proves every `@ts-expect-error` in type-checks.ts met a real error.
  it('compiles with the type-level checks under strict options with Node types', () => {
    expect(compileStrict(fixtureDir, files(), 'node')).toEqual([]);
  });

  it('compiles with the type-level checks in a browser (DOM lib) project', () => {
    expect(compileStrict(fixtureDir, files(), 'dom')).toEqual([]);
  });

  it('refuses wrong narrowing: a code the route does not declare is a compile error', () => {
    const misuse = `import { createClient } from './client.js';
export async function f() {
  const r = await createClient({ baseUrl: 'x' }).getNote({ params: { id: 'x' } });
  if (!r.ok && r.error.code === 'NOTE_STORE_FULL') return r.error;
  return undefined;
}\n`;
    const diagnostics = compileStrict(fixtureDir, { ...files(), 'misuse.ts': misuse }, 'node');
    expect(diagnostics).toEqual([expect.stringMatching(/^misuse\.ts:4 TS2367: .*no overlap/)]);
  });
});

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const note = {
  id: '5b0f3c56-52a4-4b8e-9a31-9ed2c1a1f6a3',
  title: 'T',
  author: { id: '5b0f3c56-52a4-4b8e-9a31-9ed2c1a1f6a3', name: 'Ann' },
  createdAt: '2026-01-01T00:00:00.000Z',
};

function json(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' }).end(JSON.stringify(value));
}

const envelope = (code: string, message: string, extra: object = {}) => ({
  error: { code, message, ...extra },
});

/** Idempotency keys (or paths) already answered with the failure a test asked for, so the retry succeeds. */
const failedOnce = new Set<string>();

/** `x-fail-first: <status>` answers that status to the first attempt of each key or path. */
function failFirst(req: Recorded, res: ServerResponse, key: string): boolean {
  const status = Number(req.headers['x-fail-first']);
  if (!Number.isInteger(status) || failedOnce.has(key)) return false;
  failedOnce.add(key);
  if (status === 409) json(res, 409, envelope('IDEMPOTENCY_CONFLICT', 'Still in progress.'));
  else res.writeHead(status, { 'content-type': 'text/plain' }).end('try later');
  return true;
}

/** A stand-in API: answers by path so each test can ask for one kind of answer. */
function answer(req: Recorded, res: ServerResponse): void {
  const path = new URL(req.url, 'http://x').pathname.replace(/^\/v1/, '');
  if (failFirst(req, res, String(req.headers['idempotency-key'] ?? `${req.method} ${req.url}`))) return;
  if (req.method === 'GET' && path === '/notes') return json(res, 200, { items: [note], nextCursor: null });
  if (req.method === 'POST' && path === '/notes') return json(res, 201, { ...note, ...JSON.parse(req.body) });
  if (req.method === 'GET' && path === '/ping')
    return void res.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
  if (req.method === 'DELETE' && path.startsWith('/notes/')) return void res.writeHead(204).end();
  if (req.method === 'POST' && path === '/verify-email') {
    const { token } = JSON.parse(req.body) as { token: string };
    return json(res, token === 'spent' ? 400 : 401, envelope('AUTH_TOKEN_INVALID', 'Token is invalid.'));
  }
  if (req.method === 'GET' && path.startsWith('/notes/')) {
    const id = decodeURIComponent(path.slice('/notes/'.length));
    switch (id) {
      case 'missing':
        return json(res, 404, envelope('NOTE_NOT_FOUND', 'Note not found.', { details: { id } }));
      case 'invalid':
        return json(
          res,
          400,
          envelope('HTTP_VALIDATION', 'Request validation failed.', {
            part: 'params',
            issues: [{ path: 'id', message: 'must match format "uuid"' }],
          }),
        );
      case 'crash':
        return json(res, 500, envelope('INTERNAL_ERROR', 'Internal server error.'));
      case 'renamed':
        return json(res, 404, envelope('NOTE_GONE', 'Gone.'));
      case 'proxy':
        return void res.writeHead(502, { 'content-type': 'text/html' }).end('<h1>Bad Gateway</h1>');
      case 'broken':
        return void res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":');
      case 'text-ok':
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end('not a note');
      default:
        return json(res, 200, { ...note, id });
    }
  }
  json(res, 404, envelope('NOT_FOUND', 'Route not found.'));
}

describe('emitClient: runtime against a loopback server', () => {
  let server: Server;
  let baseUrl: string;
  const requests: Recorded[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const recorded = {
          method: req.method ?? '',
          url: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
        };
        requests.push(recorded);
        answer(recorded, res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });
  beforeEach(() => {
    requests.length = 0;
  });

  const client = (): Client => createClient({ baseUrl });
  const last = (): Recorded => {
    const request = requests.at(-1);
    if (!request) throw new Error('no request reached the server');
    return request;
  };

  it('answers a declared success with typed data, status and headers', async () => {
    const result = await client().getNote({ params: { id: note.id } });
    expect(result).toMatchObject({ ok: true, status: 200, data: note });
    expect(result.headers.get('content-type')).toContain('application/json');
    expect(last()).toMatchObject({ method: 'GET', url: `/notes/${note.id}` });
    expect(last().headers.accept).toBe('application/json');
  });

  it('answers a declared error code with its envelope, details included', async () => {
    const result = await client().getNote({ params: { id: 'missing' } });
    expect(result).toMatchObject({
      ok: false,
      status: 404,
      error: { code: 'NOTE_NOT_FOUND', message: 'Note not found.', details: { id: 'missing' } },
    });
    expect(result).not.toHaveProperty('unexpected');
  });

  it('answers a validation error with part and issues', async () => {
    const result = await client().getNote({ params: { id: 'invalid' } });
    expect(result).toMatchObject({
      ok: false,
      status: 400,
      error: {
        code: 'HTTP_VALIDATION',
        part: 'params',
        issues: [{ path: 'id', message: 'must match format "uuid"' }],
      },
    });
  });

  it('answers the implied INTERNAL_ERROR as declared', async () => {
    expect(await client().getNote({ params: { id: 'crash' } })).toMatchObject({
      ok: false,
      status: 500,
      error: { code: 'INTERNAL_ERROR' },
    });
  });

  it('answers 204 with undefined data', async () => {
    const result = await client().deleteNote({ params: { id: note.id } });
    expect(result).toMatchObject({ ok: true, status: 204, data: undefined });
    expect(last().method).toBe('DELETE');
  });

  it('reads a text response for a string schema', async () => {
    expect(await client().ping()).toMatchObject({ ok: true, status: 200, data: 'pong' });
  });

  it('accepts a code under each status it may carry', async () => {
    const spent = await client().verifyEmail({ body: { token: 'spent' } });
    expect(spent).toMatchObject({ ok: false, status: 400, error: { code: 'AUTH_TOKEN_INVALID' } });
    const bad = await client().verifyEmail({ body: { token: 'bad' } });
    expect(bad).toMatchObject({ ok: false, status: 401, error: { code: 'AUTH_TOKEN_INVALID' } });
  });

  describe('never lies about an undeclared answer', () => {
    it('an undeclared 502 with an HTML body', async () => {
      const result = await client().getNote({ params: { id: 'proxy' } });
      expect(result).toMatchObject({
        ok: false,
        status: 502,
        unexpected: true,
        error: { code: 'UNEXPECTED_RESPONSE', message: expect.stringContaining('502') },
        body: '<h1>Bad Gateway</h1>',
      });
    });

    it('a declared status with a code the route does not declare', async () => {
      const result = await client().getNote({ params: { id: 'renamed' } });
      expect(result).toMatchObject({ status: 404, unexpected: true, body: { error: { code: 'NOTE_GONE' } } });
    });

    it('a code the API knows, but not for this route', async () => {
      const result = await createClient({ baseUrl: `${baseUrl}/v2` }).ping();
      expect(result).toMatchObject({ status: 404, unexpected: true, error: { code: 'UNEXPECTED_RESPONSE' } });
    });

    it('a success status with malformed JSON', async () => {
      const result = await client().getNote({ params: { id: 'broken' } });
      expect(result).toMatchObject({ ok: false, status: 200, unexpected: true, body: '{"id":' });
    });

    it('a success status with text where JSON is declared', async () => {
      const result = await client().getNote({ params: { id: 'text-ok' } });
      expect(result).toMatchObject({ ok: false, status: 200, unexpected: true, body: 'not a note' });
    });
  });

  describe('request building', () => {
    it('encodes path parameters', async () => {
      await client().getNote({ params: { id: 'a b/c?d#e%' } });
      expect(last().url).toBe('/notes/a%20b%2Fc%3Fd%23e%25');
    });

    it('refuses path parameters that would address another route, before sending anything', async () => {
      for (const id of ['', '.', '..']) {
        await expect(client().getNote({ params: { id } })).rejects.toThrow(TypeError);
      }
      await expect(client().getNote({ params: {} as { id: string } })).rejects.toThrow(/'id'/);
      expect(requests).toEqual([]);
    });

    it('serialises query values: arrays repeat, undefined is skipped, null is empty, scalars are text', async () => {
      await client().listNotes({
        query: { limit: 5, tag: ['a', 'b c'], pinned: false, cursor: undefined },
      });
      expect(last().url).toBe('/notes?limit=5&tag=a&tag=b+c&pinned=false');
      await client().listNotes({ query: {} });
      expect(last().url).toBe('/notes');
      // The runtime reads an empty value as null where the schema allows null.
      await client().listNotes({ query: { cursor: null } as unknown as { cursor: string } });
      expect(last().url).toBe('/notes?cursor=');
    });

    it('sends JSON bodies with content-type application/json', async () => {
      const result = await client().createNote({ body: { title: 'Hello', tags: ['x'] } });
      expect(result).toMatchObject({ ok: true, status: 201, data: { title: 'Hello', tags: ['x'] } });
      expect(last().headers['content-type']).toBe('application/json');
      expect(JSON.parse(last().body)).toEqual({ title: 'Hello', tags: ['x'] });
    });

    it('sends no body (and no content-type) when an optional body is left out', async () => {
      await client().replaceNote({ params: { id: note.id } });
      expect(last()).toMatchObject({ method: 'PUT', body: '' });
      expect(last().headers['content-type']).toBeUndefined();
    });

    it('joins the base URL path prefix, with or without a trailing slash', async () => {
      await createClient({ baseUrl: `${baseUrl}/v1/` }).ping();
      expect(last().url).toBe('/v1/ping');
    });

    it('sends default headers (a function is called per request) and lets per-call headers win', async () => {
      let calls = 0;
      const api = createClient({
        baseUrl,
        headers: async () => ({ authorization: `Bearer t${++calls}`, 'x-tenant-id': 'default' }),
      });
      await api.ping();
      await api.ping({ headers: { 'x-tenant-id': 'override' } });
      expect(requests.map((r) => [r.headers.authorization, r.headers['x-tenant-id']])).toEqual([
        ['Bearer t1', 'default'],
        ['Bearer t2', 'override'],
      ]);
    });

    it('uses the given fetch', async () => {
      const seen: string[] = [];
      const api = createClient({
        baseUrl,
        fetch: (input, init) => {
          seen.push(`${init?.method} ${String(input)}`);
          return fetch(input, init);
        },
      });
      await api.ping();
      expect(seen).toEqual([`GET ${baseUrl}/ping`]);
    });
  });

  describe('idempotency keys and retries', () => {
    const fast = (extra: Parameters<typeof createClient>[0] = { baseUrl }) =>
      createClient({ retry: { delayMs: 1 }, ...extra });
    const keyOf = (request: Recorded | undefined) => request?.headers['idempotency-key'];
    beforeEach(() => failedOnce.clear());

    it('sends a fresh UUID key with every call of a keyed route, and keeps a key the caller set', async () => {
      const api = fast();
      await api.createNote({ body: { title: 'a' } });
      await api.createNote({ body: { title: 'b' } });
      expect(keyOf(requests[0])).toMatch(
        /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
      );
      expect(keyOf(requests[1])).not.toBe(keyOf(requests[0]));
      await api.createNote({ body: { title: 'c' }, headers: { 'Idempotency-Key': 'mine' } });
      expect(keyOf(last())).toBe('mine');
      await api.getNote({ params: { id: note.id } });
      expect(keyOf(last())).toBeUndefined();
    });

    it('retries a keyed call answered 409 IDEMPOTENCY_CONFLICT or 503, with the same key', async () => {
      for (const status of ['409', '503']) {
        requests.length = 0;
        const result = await fast().createNote({ body: { title: 'a' }, headers: { 'x-fail-first': status } });
        expect(result.status).toBe(201);
        expect(requests).toHaveLength(2);
        expect(keyOf(requests[1])).toBe(keyOf(requests[0]));
      }
    });

    it('retries a keyed call after a network failure, with the same key', async () => {
      const sent: Array<string | null> = [];
      let failures = 1;
      const api = fast({
        baseUrl,
        fetch: (input, init) => {
          sent.push(new Headers(init?.headers).get('idempotency-key'));
          if (failures-- > 0) return Promise.reject(new TypeError('fetch failed'));
          return fetch(input, init);
        },
      });
      expect((await api.createNote({ body: { title: 'a' } })).status).toBe(201);
      expect(sent).toHaveLength(2);
      expect(sent[1]).toBe(sent[0]);
    });

    it('retries GET, never a POST without a key, and stops after the attempts', async () => {
      expect((await fast().listNotes({ headers: { 'x-fail-first': '502' } })).status).toBe(200);
      expect(requests).toHaveLength(2);
      requests.length = 0;
      const refused = await fast().verifyEmail({ body: { token: 't' }, headers: { 'x-fail-first': '503' } });
      expect(refused.status).toBe(503);
      expect(requests).toHaveLength(1);
      requests.length = 0;
      const proxy = await fast({ baseUrl, retry: { attempts: 2, delayMs: 1 } }).getNote({
        params: { id: 'proxy' },
      });
      expect(proxy.status).toBe(502);
      expect(requests).toHaveLength(2);
    });

    it('sends once with retry: false, and refuses a bad retry option', async () => {
      const result = await createClient({ baseUrl, retry: false }).listNotes({
        headers: { 'x-fail-first': '503' },
      });
      expect(result.status).toBe(503);
      expect(requests).toHaveLength(1);
      expect(() => createClient({ baseUrl, retry: { attempts: 0 } })).toThrow(TypeError);
      expect(() => createClient({ baseUrl, retry: { delayMs: -1 } })).toThrow(TypeError);
    });

    it('stops waiting for a retry as soon as the caller aborts', async () => {
      const controller = new AbortController();
      const api = createClient({ baseUrl, retry: { delayMs: 60_000 } });
      const call = api.listNotes({ headers: { 'x-fail-first': '503' }, signal: controller.signal });
      setTimeout(() => controller.abort(new Error('caller gave up')), 20);
      await expect(call).rejects.toThrow('caller gave up');
      expect(requests).toHaveLength(1);
    });
  });

  describe('failures reject', () => {
    it('an aborted signal rejects', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(client().ping({ signal: controller.signal })).rejects.toThrow(/abort/i);
    });

    it('a network failure rejects', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const port = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));
      await expect(createClient({ baseUrl: `http://127.0.0.1:${port}` }).ping()).rejects.toThrow();
    });
  });
});
