// Responses leave through the compiled serializers on every adapter: only declared properties reach the
// client, ETags and idempotency replays are computed over what was sent, a response that does not match its
// schema is logged outside production, and a value that cannot be written is a neutral 500 naming the field.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  collectingLogger,
  createApp,
  idempotencyPlugin,
  route,
  strongEtag,
  type AdapterOptions,
  type CollectingLogger,
  type ErrorReport,
  type Plugin,
  type Route,
} from 'svckit';
import { expressPlugin } from 'svckit/express';
import { fastifyPlugin } from 'svckit/fastify';
import { honoPlugin } from 'svckit/hono';
import { buildShapes, type ShapesModules } from '../generator/serializer-shapes.js';
import type { TestProject } from '../generator/project.js';
import { call } from './harness.js';

const ADAPTERS: [string, (options: AdapterOptions) => Plugin][] = [
  ['fastify', fastifyPlugin],
  ['express', expressPlugin],
  ['hono', honoPlugin],
];

let project: TestProject;
let modules: ShapesModules;
beforeAll(async () => {
  ({ project, modules } = await buildShapes());
}, 60_000);
afterAll(() => project.remove());

/** What each route's handler returns next; set by the test before its request. */
const replies: Record<string, unknown> = {};
let handlerRuns = 0;

function shapeRoutes(): Route[] {
  const ids = modules.routes.routeDefinitions.map((definition) => definition.id as string);
  const handler = (id: string) => () => {
    handlerRuns++;
    return replies[id];
  };
  return modules.routes.routes(Object.fromEntries(ids.map((id) => [id, handler(id)])));
}

/** A handwritten route without response schemas: still JSON.stringify, everything the handler returns. */
const untyped = route({ method: 'GET', url: '/untyped', handler: () => replies.untyped });

interface Running {
  url: string;
  logger: CollectingLogger;
  reports: ErrorReport[];
  close(): Promise<void>;
}

async function start(plugin: (options: AdapterOptions) => Plugin, nodeEnv: string): Promise<Running> {
  const logger = collectingLogger();
  const reports: ErrorReport[] = [];
  const app = createApp({ name: 'serialization', logger });
  app.register(idempotencyPlugin({ allowAnonymous: true }));
  app.register(plugin({ routes: [...shapeRoutes(), untyped], onError: (report) => reports.push(report) }));
  const previous = process.env.NODE_ENV;
  // Whether responses are checked is decided when the routes are compiled, at boot.
  process.env.NODE_ENV = nodeEnv;
  try {
    const { url } = await app.listen({ port: 0, host: '127.0.0.1' });
    return { url, logger, reports, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  } finally {
    if (previous === undefined) delete process.env.NODE_ENV;
    else process.env.NODE_ENV = previous;
  }
}

const NOTE = { id: 'n1', title: 'Groceries', body: 'milk', createdAt: new Date(Date.UTC(2026, 0, 2)) };

for (const [name, plugin] of ADAPTERS) {
  describe(`${name}: responses through compiled serializers`, () => {
    let server: Running;
    beforeAll(async () => {
      server = await start(plugin, 'test');
    });
    afterAll(() => server.close());

    it('leaves out a property the response schema does not declare', async () => {
      replies.getNote = { ...NOTE, internalNote: 'do not show' };
      const response = await call(`${server.url}/notes/one`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(response.text).toBe(JSON.stringify(NOTE));
      expect(response.json).not.toHaveProperty('internalNote');
    });

    it('computes the ETag over the body as sent', async () => {
      replies.getNote = { ...NOTE, internalNote: 'changes every time' };
      const response = await call(`${server.url}/notes/one`);
      expect(response.headers.get('etag')).toBe(strongEtag(JSON.stringify(NOTE)));
      replies.getNote = { ...NOTE, internalNote: 'changed' };
      const again = await call(`${server.url}/notes/one`, {
        headers: { 'if-none-match': response.headers.get('etag') ?? '' },
      });
      expect(again.status).toBe(304);
    });

    it('follows arrays of resources, nested objects, nullable fields and unions', async () => {
      replies.listNotes = {
        items: [
          { ...NOTE, secret: 1 },
          { id: 'n2', title: 'Second', rating: 3 },
        ],
        nextCursor: null,
        owner: { name: 'me', passwordHash: 'x' },
        debug: true,
      };
      const page = await call(`${server.url}/notes`);
      expect(page.json).toEqual({
        items: [JSON.parse(JSON.stringify(NOTE)), { id: 'n2', title: 'Second', rating: 3 }],
        nextCursor: null,
        owner: { name: 'me' },
      });
      replies.getShape = { kind: 'square', side: 2, secret: 's' };
      expect((await call(`${server.url}/shape`)).text).toBe('{"kind":"square","side":2}');
      replies.findNote = null;
      expect((await call(`${server.url}/notes/maybe`)).text).toBe('null');
      replies.getOpen = { name: 'open', owner: { name: 'o', token: 't' }, kept: [1] };
      expect((await call(`${server.url}/open`)).json).toEqual({
        name: 'open',
        owner: { name: 'o' },
        kept: [1],
      });
      expect(server.logger.at('warn')).toEqual([]);
    });

    it('stores and replays under an idempotency key what was sent', async () => {
      replies.createNote = { ...NOTE, internalNote: 'first' };
      const runs = handlerRuns;
      const send = () =>
        call(`${server.url}/notes`, {
          method: 'POST',
          headers: { 'idempotency-key': `key-${name}` },
        });
      const first = await send();
      replies.createNote = { ...NOTE, internalNote: 'second' };
      const replay = await send();
      expect(first.status).toBe(201);
      expect(first.text).toBe(JSON.stringify(NOTE));
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.text).toBe(first.text);
      expect(handlerRuns - runs).toBe(1);
    });

    it('logs a response that does not match its schema, naming the route and each field', async () => {
      replies.listNotes = { items: [{ id: 'n1', title: 42 }, { id: 'n2' }], nextCursor: 'c' };
      const before = server.logger.entries.length;
      const response = await call(`${server.url}/notes`);
      // The response still leaves, serialized: a wrong primitive carries nothing undeclared.
      expect(response.text).toBe('{"items":[{"id":"n1","title":42},{"id":"n2"}],"nextCursor":"c"}');
      const warnings = server.logger.entries.slice(before).filter((entry) => entry.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(warnings[0]?.msg).toContain('listNotes');
      expect(warnings[0]?.fields).toMatchObject({
        route: 'listNotes',
        status: 200,
        fields: ['/items/0/title', '/items/1/title'],
      });
    });

    it('answers the neutral 500 for an object where none is declared, reporting route and field', async () => {
      replies.getNote = { id: { internal: 'row 7' }, title: 't' };
      const response = await call(`${server.url}/notes/one`);
      expect(response.status).toBe(500);
      expect(response.json).toEqual({ error: { code: 'INTERNAL_ERROR', message: 'Internal server error.' } });
      expect(response.text).not.toContain('row 7');
      const report = server.reports.at(-1);
      expect(report).toMatchObject({ code: 'INTERNAL_ERROR', status: 500 });
      expect(report?.internalDetails).toMatchObject({
        route: 'getNote',
        status: 200,
        fields: [{ path: '/id' }],
      });
      expect((report?.error as Error).message).toMatch(/getNote.*\/id must be string/);
    });

    it('leaves routes without a response schema, text and status-less answers unchanged', async () => {
      replies.untyped = { a: 1, internal: 2 };
      expect((await call(`${server.url}/untyped`)).text).toBe('{"a":1,"internal":2}');
      replies.getNote = 'plain text';
      const text = await call(`${server.url}/notes/one`);
      expect(text.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(text.text).toBe('plain text');
    });
  });
}

describe('in production', () => {
  it('runs no response check, and still writes only declared properties', async () => {
    const server = await start(fastifyPlugin, 'production');
    try {
      replies.listNotes = { items: [{ id: 'n1', title: 42, secret: 1 }], nextCursor: null };
      const response = await call(`${server.url}/notes`);
      expect(response.text).toBe('{"items":[{"id":"n1","title":42}],"nextCursor":null}');
      expect(server.logger.at('warn')).toEqual([]);
    } finally {
      await server.close();
    }
  });
});
