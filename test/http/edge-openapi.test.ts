// openapiPlugin on every adapter: GET /openapi.json describes what the server serves (built at
// app:booted from the registered routes). Generated operations stay as generated; handwritten and
// module routes are described from their own schemas; the document is public, valid OpenAPI 3.1, with an ETag.
import { Readable } from 'node:stream';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import {
  Auth,
  authPlugin,
  collectingLogger,
  createApp,
  idempotencyPlugin,
  openapiPlugin,
  rawBody,
  route,
  securityPlugin,
  stream,
  upload,
  type Plugin,
  type Route,
} from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import type { ModuleSettingsIR } from '../../shared/ir.js';
import { impliedErrorCodes, routeErrorFacts } from '../../shared/openapi/error-codes.js';
import { SECRET } from './auth-harness.js';
import document from '../../generated/openapi.json' with { type: 'json' };
import { routes as notesRoutes } from '../../generated/routes.js';
import { adapters, call, denyAllPlugin, withServer } from './harness.js';
import { fakeAuth, withMcp } from './mcp-helpers.js';

type Json = Record<string, unknown>;
type Operation = Json & { operationId?: string; security?: unknown; responses: Record<string, Json> };
interface Served {
  openapi: string;
  info: Json;
  tags?: { name: string; description?: string }[];
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Json; securitySchemes?: Json };
}

const generatedPaths = document.paths as unknown as Served['paths'];

/** The generated routes of the reference service, bound to handlers that are never called here. */
function generatedRoutes(): Route[] {
  const none = () => ({});
  return notesRoutes({
    listNotes: none,
    createNote: none,
    getNote: none,
    updateNote: none,
    deleteNote: none,
  } as never);
}

const TASK_BODY = {
  type: 'object',
  properties: { title: { type: 'string', minLength: 1 }, done: { type: 'boolean' } },
  required: ['title'],
  additionalProperties: false,
};
const TASK = {
  type: 'object',
  properties: { id: { type: 'string' }, title: { type: 'string' }, done: { type: 'boolean' } },
  required: ['id', 'title', 'done'],
};

/** A handwritten route with params, query and body schemas, a response schema and `meta.auth`. */
function addTask(): Route {
  return route({
    method: 'POST',
    url: '/projects/:projectId/tasks',
    params: {
      type: 'object',
      properties: { projectId: { type: 'string', format: 'uuid', description: 'The project.' } },
      required: ['projectId'],
    },
    query: {
      type: 'object',
      properties: { notify: { type: 'boolean' }, labels: { type: 'array', items: { type: 'string' } } },
    },
    body: TASK_BODY,
    response: { 201: TASK },
    meta: { auth: true, summary: 'Add a task', tags: ['tasks'], description: 'Adds a task to a project.' },
    handler: () => ({ id: '1', title: 't', done: false }),
  });
}

/** The schema validator's verdict (it mutates its input, hence the copy). */
async function validate(served: unknown) {
  return new Validator().validate(structuredClone(served) as Json);
}

async function fetchDocument(url: string): Promise<Served> {
  const response = await call(`${url}/openapi.json`);
  expect(response.status).toBe(200);
  return response.json as Served;
}

const NOTE_OPERATIONS: [string, string][] = [
  ['/notes', 'get'],
  ['/notes', 'post'],
  ['/notes/{id}', 'get'],
  ['/notes/{id}', 'patch'],
  ['/notes/{id}', 'delete'],
];

describe.each(adapters)('openapiPlugin on $name', (adapter) => {
  it('keeps generated operations, describes a handwritten route and the MCP endpoint, validates as 3.1', async () => {
    await withMcp(
      adapter,
      {
        routes: [...generatedRoutes(), addTask()],
        plugins: [fakeAuth(), openapiPlugin({ document })],
        // createNote's idempotency key is claimed by idempotencyPlugin, which this server leaves out.
        options: { allowUnguardedMeta: ['idempotency'] },
      },
      async (url) => {
        const served = await fetchDocument(url);
        expect(served.openapi).toBe('3.1.0');
        expect(served.info).toEqual(document.info);
        for (const [path, method] of NOTE_OPERATIONS)
          expect(served.paths[path]?.[method]).toEqual(generatedPaths[path]?.[method]);
        // The generated document's components stay as they are: schemas and the four sign-in schemes.
        expect(served.components).toEqual(document.components);
        // Module routes this server does not register are not described.
        expect(served.paths['/auth/login']).toBeUndefined();
        // Edge routes (this document) are not API operations.
        expect(served.paths['/openapi.json']).toBeUndefined();

        const task = served.paths['/projects/{projectId}/tasks']?.post;
        expect(task).toMatchObject({
          operationId: 'post_projects_by_projectId_tasks',
          summary: 'Add a task',
          description: 'Adds a task to a project.',
          tags: ['tasks'],
          // meta.auth: any sign-in scheme the generated document declares, API keys included.
          security: [{ bearerAuth: [] }, { sessionCookie: [] }, { sessionHeader: [] }, { apiKeyHeader: [] }],
          parameters: [
            {
              name: 'projectId',
              in: 'path',
              required: true,
              description: 'The project.',
              schema: { type: 'string', format: 'uuid', description: 'The project.' },
            },
            { name: 'notify', in: 'query', required: false, schema: { type: 'boolean' } },
            {
              name: 'labels',
              in: 'query',
              required: false,
              style: 'form',
              explode: true,
              schema: { type: 'array', items: { type: 'string' } },
            },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: TASK_BODY } } },
        });
        expect(task?.responses['201']).toEqual({
          description: 'Created',
          content: { 'application/json': { schema: TASK } },
        });
        expect(Object.keys(task?.responses ?? {})).toEqual(['201', '400', '401', '413', '415', '500']);
        expect(JSON.stringify(task?.responses['401'])).toContain('AUTH_REQUIRED');
        expect(JSON.stringify(task?.responses['400'])).toContain('ValidationErrorEnvelope');

        const mcp = served.paths['/mcp'];
        expect(mcp?.post).toMatchObject({
          operationId: 'mcpMessage',
          summary: 'Agent-tool endpoint (MCP over HTTP)',
          tags: ['mcp'],
          security: [],
        });
        expect(mcp?.delete?.operationId).toBe('mcpEndSession');
        expect(served.tags?.map((tag) => tag.name)).toEqual(['mcp', 'notes', 'tasks']);

        const verdict = await validate(served);
        expect(verdict.errors ?? []).toEqual([]);
        expect(verdict.valid).toBe(true);
      },
    );
  });

  it('without a document describes the registered routes, with info from the options', async () => {
    await withMcp(
      adapter,
      {
        routes: [addTask()],
        plugins: [fakeAuth(), openapiPlugin({ info: { title: 'Tasks API', version: '2.1.0' } })],
      },
      async (url) => {
        const served = await fetchDocument(url);
        expect(served.openapi).toBe('3.1.0');
        expect(served.info).toEqual({ title: 'Tasks API', version: '2.1.0' });
        expect(Object.keys(served.paths)).toEqual(['/projects/{projectId}/tasks', '/mcp']);
        expect(served.paths['/projects/{projectId}/tasks']?.post?.security).toEqual([{ bearerAuth: [] }]);
        expect(served.paths['/mcp']?.post?.summary).toBe('Agent-tool endpoint (MCP over HTTP)');
        expect(served.components.securitySchemes).toEqual({
          bearerAuth: expect.objectContaining({ type: 'http', scheme: 'bearer' }),
        });
        expect(Object.keys(served.components.schemas)).toEqual(['ErrorEnvelope', 'ValidationErrorEnvelope']);
        const verdict = await validate(served);
        expect(verdict.errors ?? []).toEqual([]);
        expect(verdict.valid).toBe(true);
      },
    );
  });

  it('is public, applies info and tags, and answers 304 to its ETag', async () => {
    const plugin = openapiPlugin({ document, info: { title: 'Notes (staging)' }, tags: [{ name: 'notes' }] });
    await withServer(
      adapter,
      {
        routes: generatedRoutes(),
        plugins: [denyAllPlugin(), plugin],
        options: { allowUnguardedMeta: true },
      },
      async (url) => {
        const response = await call(`${url}/openapi.json`);
        expect(response.status).toBe(200);
        expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const served = response.json as Served;
        expect(served.info).toEqual({ ...document.info, title: 'Notes (staging)' });
        expect(served.tags).toEqual([{ name: 'notes' }]);
        // The input document is left as it was.
        expect(document.info.title).not.toBe('Notes (staging)');
        const etag = response.headers.get('etag');
        expect(etag).toMatch(/^"/);
        const again = await call(`${url}/openapi.json`, { headers: { 'if-none-match': etag ?? '' } });
        expect(again.status).toBe(304);
        // The same bytes every time.
        expect((await call(`${url}/openapi.json`)).text).toBe(response.text);
      },
    );
  });

  it('serves at another path when asked', async () => {
    await withServer(
      adapter,
      { routes: [], plugins: [openapiPlugin({ document, path: '/docs/api.json' })] },
      async (url) => {
        expect((await call(`${url}/docs/api.json`)).status).toBe(200);
        expect((await call(`${url}/openapi.json`)).status).toBe(404);
      },
    );
  });
});

/** Boots a Fastify app with `plugins` and `routes` (no listener) and returns what /openapi.json serves. */
async function bootedDocument(routes: Route[], plugins: Plugin[]): Promise<Served> {
  const app = createApp({ name: 'booted', version: '1.0.0' });
  for (const plugin of plugins) app.register(plugin);
  // createNote's idempotency key is claimed by idempotencyPlugin, which these apps leave out.
  app.register(fastifyPlugin({ routes, onError: false, allowUnguardedMeta: ['idempotency'] }));
  await app.boot();
  try {
    const served = app.metadata.list('http:routes').find((entry) => entry.url === '/openapi.json');
    const body = await (served?.handler as unknown as (input: unknown) => unknown)({
      reply: { header: () => undefined },
    });
    return JSON.parse(String(body)) as Served;
  } finally {
    await app.close();
  }
}

describe('openapiPlugin: described routes', () => {
  it("describes upload and raw bodies and streamed responses by the generator's rule", async () => {
    const served = await bootedDocument(
      [
        route({
          method: 'POST',
          url: '/avatars',
          body: upload({ maxBytes: 2 * 1024 * 1024, maxFiles: 1, allowedTypes: ['image/png'] }),
          response: { 201: { type: 'object', properties: { id: { type: 'string' } } } },
          handler: () => ({ id: 'a' }),
        }),
        route({
          method: 'POST',
          url: '/hooks/payments',
          body: rawBody({ maxBytes: 64 * 1024 }),
          successStatus: 204,
          handler: () => undefined,
        }),
        route({
          method: 'GET',
          url: '/reports/:id',
          response: { 200: { stream: 'application/pdf' } },
          handler: () => stream(Readable.from(['%PDF']), { contentType: 'application/pdf' }),
        }),
      ],
      [openapiPlugin()],
    );
    const avatars = served.paths['/avatars']?.post;
    const multipart = (avatars?.requestBody as Json).content as Record<string, Json>;
    expect(multipart['multipart/form-data']?.encoding).toEqual({ files: { contentType: 'image/png' } });
    expect((avatars?.requestBody as Json).description).toContain('whole body: at most 2 MiB');
    expect(Object.keys(avatars?.responses ?? {})).toEqual(['201', '400', '413', '415', '500']);

    const hook = served.paths['/hooks/payments']?.post;
    expect(hook?.requestBody).toEqual({
      description: 'The request bytes exactly as received, at most 64 KiB.',
      required: false,
      content: {
        '*/*': { schema: { type: 'string', format: 'binary', contentMediaType: 'application/octet-stream' } },
      },
    });
    expect(hook?.responses['204']).toEqual({ description: 'No Content' });
    expect(JSON.stringify(hook?.responses['500'])).toContain('RAW_BODY_UNAVAILABLE');

    const report = served.paths['/reports/{id}']?.get;
    expect(report?.responses['200']?.content).toEqual({
      'application/pdf': {
        schema: { type: 'string', format: 'binary', contentMediaType: 'application/pdf' },
      },
    });
    expect(report?.parameters).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
    ]);
    expect((await validate(served)).valid).toBe(true);
  });

  it("documents a described route's idempotency key under the header the idempotency plugin reads", async () => {
    const keyed = route({
      method: 'POST',
      url: '/payments',
      meta: { idempotency: 'required' },
      handler: () => ({}),
    });
    const served = await bootedDocument(
      [keyed],
      [idempotencyPlugin({ header: 'X-Request-Key' }), openapiPlugin({})],
    );
    const operation = served.paths['/payments']?.post;
    expect(operation?.parameters).toEqual([
      expect.objectContaining({ name: 'X-Request-Key', in: 'header', required: true }),
    ]);
    // The codes a keyed route may answer, the reused-key 422 among them.
    expect(Object.keys(operation?.responses ?? {})).toEqual(expect.arrayContaining(['400', '409', '422']));
    expect(JSON.stringify(operation?.responses['422'])).toContain('IDEMPOTENCY_KEY_REUSED');
  });

  it('keeps operationIds unique and has no error-severity Redocly problem', async () => {
    const served = await bootedDocument(
      [
        ...generatedRoutes(),
        // Same operationId as a generated operation, at another path.
        route({
          method: 'GET',
          url: '/archive/notes',
          meta: { operationId: 'listNotes' },
          handler: () => [],
        }),
        route({ method: 'GET', url: '/archive/stats', handler: () => ({}) }),
      ],
      [fakeAuth(), openapiPlugin({ document })],
    );
    expect(served.paths['/notes']?.get?.operationId).toBe('listNotes');
    expect(served.paths['/archive/notes']?.get?.operationId).toBe('listNotes_2');
    expect(served.paths['/archive/stats']?.get?.operationId).toBe('get_archive_stats');
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(served),
      absoluteRef: '/openapi.json',
      config,
    });
    expect(
      problems.filter((problem) => problem.severity === 'error').map((problem) => problem.message),
    ).toEqual([]);
  });

  it('keeps the generated operation of a generated route mounted at another path (matched by id)', async () => {
    const moved = generatedRoutes().map((entry) =>
      entry.id === 'getNote' ? { ...entry, url: '/v2/notes/:id' } : entry,
    );
    const served = await bootedDocument(moved, [fakeAuth(), openapiPlugin({ document })]);
    expect(served.paths['/v2/notes/{id}']?.get).toEqual(generatedPaths['/notes/{id}']?.get);
    expect(served.paths['/notes/{id}']?.get).toBeUndefined();
    expect(Object.keys(served.paths['/notes/{id}'] ?? {})).toEqual(['patch', 'delete']);
  });
});

describe('openapiPlugin options', () => {
  it('refuses something that is not an OpenAPI document, and a path with parameters', () => {
    expect(() => openapiPlugin({ document: null as never })).toThrow(TypeError);
    expect(() => openapiPlugin({ document: { paths: {} } })).toThrow(/openapi/);
    expect(() => openapiPlugin({ document, path: '/docs/:v' })).toThrow(/path/);
  });

  it('refuses unknown option keys, naming them', () => {
    expect(() => openapiPlugin({ document, titel: 'Notes' } as never)).toThrow(
      /openapiPlugin\(\): unknown option "titel"/,
    );
    expect(() => openapiPlugin({ info: { name: 'Notes' } } as never)).toThrow(/unknown option "name"/);
    expect(() => openapiPlugin({ tags: ['notes'] } as never)).toThrow(/tags/);
  });

  it('lists the document among the URLs printed at start', async () => {
    const app = createApp().register(openapiPlugin({ document }));
    await app.boot();
    expect(app.metadata.list('app:urls')).toContainEqual({ label: 'OpenAPI', path: '/openapi.json' });
  });
});

/** The error codes an operation lists, from the `error.code` each error response narrows to. */
function listedCodes(operation: Operation | undefined): string[] {
  const codes: string[] = [];
  for (const [status, response] of Object.entries(operation?.responses ?? {})) {
    if (Number(status) < 400) continue;
    for (const match of String(response.description).matchAll(/^- `([A-Z0-9_]+)`/gm))
      codes.push(match[1] ?? '');
  }
  return [...new Set(codes)].sort();
}

describe('openapiPlugin: codes of the registered modules and declared errors', () => {
  const catalog = { PAYMENT_DECLINED: { status: 402, message: 'The card was declined.', module: 'app' } };
  const payments = route({
    method: 'POST',
    url: '/payments',
    errors: ['PAYMENT_DECLINED', 'NO_SUCH_CODE'],
    handler: () => ({}),
  });
  const balance = route({ method: 'GET', url: '/balance', handler: () => ({}) });

  it('lists the global rate limit, auth, idempotency and declared codes as the generator would', async () => {
    const logger = collectingLogger();
    const app = createApp({ name: 'payments', logger });
    app.register(securityPlugin({ rateLimit: { limit: 100, windowMs: 60_000 } }));
    app.register(authPlugin({ auth: new Auth({ secret: SECRET, nodeEnv: 'test' }), routes: false }));
    app.register(idempotencyPlugin());
    app.register(openapiPlugin({ catalog }));
    app.register(fastifyPlugin({ routes: [payments, balance], onError: false }));
    const address = await app.listen({ port: 0, host: '127.0.0.1' });
    try {
      const served = await fetchDocument(address.url);
      const post = served.paths['/payments']?.post;
      const get = served.paths['/balance']?.get;
      expect(listedCodes(post)).toEqual(
        expect.arrayContaining([
          'RATE_LIMITED',
          'AUTH_TOKEN_EXPIRED',
          'AUTH_CSRF_REJECTED',
          'PAYMENT_DECLINED',
        ]),
      );
      // The declared code under its catalog status; RATE_LIMITED under 429 with Retry-After.
      expect(String(post?.responses['402']?.description)).toContain(
        '`PAYMENT_DECLINED`: The card was declined.',
      );
      expect(post?.responses['429']?.headers).toHaveProperty('Retry-After');
      // POST takes idempotency keys (the plugin's default methods); GET is safe: no CSRF check, no key.
      expect(post?.parameters).toEqual([
        expect.objectContaining({ name: 'idempotency-key', in: 'header', required: false }),
      ]);
      expect(listedCodes(get)).not.toContain('AUTH_CSRF_REJECTED');
      expect(get?.parameters).toBeUndefined();

      // The same codes the generator's rule gives a spec route under the same `modules:`.
      const modules: ModuleSettingsIR = {
        auth: { sessionCookie: 'svc_session', requireMfa: false },
        edge: { security: true, globalRateLimit: true, health: false, metrics: false, tracing: false },
        idempotency: { header: 'idempotency-key', methods: ['POST'] },
      };
      for (const [described, operation] of [
        [payments, post],
        [balance, get],
      ] as const) {
        const expected = [
          ...(described.errors ?? []),
          ...impliedErrorCodes(routeErrorFacts(described, modules)),
        ];
        expect(listedCodes(operation)).toEqual(
          [...new Set(expected)].filter((code) => code !== 'NO_SUCH_CODE').sort(),
        );
      }
      // A declared code no catalog knows has no status to be listed under: left out, and said so.
      expect(logger.at('warn')).toContainEqual(
        expect.objectContaining({ fields: { method: 'POST', route: '/payments', code: 'NO_SUCH_CODE' } }),
      );
      expect((await validate(served)).valid).toBe(true);
    } finally {
      await app.close();
    }
  });

  it('without those plugins lists none of their codes', async () => {
    const declaring = route({
      method: 'POST',
      url: '/payments',
      errors: ['PAYMENT_DECLINED'],
      handler: () => ({}),
    });
    const served = await bootedDocument([declaring], [openapiPlugin({ catalog })]);
    const codes = listedCodes(served.paths['/payments']?.post);
    expect(codes).toContain('PAYMENT_DECLINED');
    for (const code of ['RATE_LIMITED', 'AUTH_TOKEN_EXPIRED', 'AUTH_CSRF_REJECTED', 'IDEMPOTENCY_CONFLICT'])
      expect(codes).not.toContain(code);
  });

  it('refuses a catalog that is not one', () => {
    expect(() => openapiPlugin({ catalog: { X: { status: 'teapot' } } as never })).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', option: 'catalog' }),
    );
  });
});
