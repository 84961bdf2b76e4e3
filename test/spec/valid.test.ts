// A valid spec loads into the IR the generator consumes: normalised params, query and body, references
// kept as '#/resources/X', config templates, custom meta keys, the built-in catalog.
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadSpec, type RouteIR, type SpecIR } from 'svckit/spec';
import { HEAD, load, loadModule } from './helpers.js';

const NOTES = fileURLToPath(new URL('../fixtures/spec/notes.svc.yaml', import.meta.url));
const routeOf = (ir: SpecIR, id: string): RouteIR => ir.routes.find((r) => r.id === id)!;

describe('the reference service spec', () => {
  it('loads into the expected IR', async () => {
    const ir = await loadSpec(NOTES, { env: {} });
    expect(ir).toMatchObject({
      kind: 'app',
      file: NOTES,
      name: 'notes-api',
      version: '1.0.0',
      title: 'Notes API',
    });
    expect(ir.resources.map((r) => r.name)).toEqual(['Note', 'NoteInput', 'NotePatch', 'NoteList']);
    expect(ir.resources[0]!.loc).toEqual({ file: NOTES, line: 19, column: 3 });
    expect(ir.resources[0]!.schema).toMatchObject({
      properties: {
        id: { type: 'string', format: 'uuid', readOnly: true },
        title: { minLength: 1, maxLength: 200 },
      },
    });
    expect(ir.routes.map((r) => `${r.id} ${r.method} ${r.path}`)).toEqual([
      'listNotes GET /notes',
      'createNote POST /notes',
      'getNote GET /notes/:id',
      'updateNote PATCH /notes/:id',
      'deleteNote DELETE /notes/:id',
    ]);
  });

  it('normalises the query shorthand to an object schema with nothing required', async () => {
    const list = routeOf(await loadSpec(NOTES, { env: {} }), 'listNotes');
    expect(list.query).toEqual({
      type: 'object',
      properties: {
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        cursor: { type: 'string' },
      },
      additionalProperties: false,
    });
    expect(list.params).toBeUndefined();
    expect(list.body).toBeUndefined();
    expect(list.responses).toEqual({ 200: { $ref: '#/resources/NoteList' } });
    expect(list.meta).toEqual({ summary: 'List notes', tags: ['notes'], mcp: true });
  });

  it('normalises params, keeps references and reads the body wrapper', async () => {
    const ir = await loadSpec(NOTES, { env: {} });
    const get = routeOf(ir, 'getNote');
    expect(get.pathParams).toEqual(['id']);
    expect(get.params).toEqual({
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' } },
      required: ['id'],
      additionalProperties: false,
    });
    expect(get.responses).toEqual({ 200: { $ref: '#/resources/Note' } });
    expect(get.errors).toEqual(['NOTE_NOT_FOUND']);
    expect(get.loc).toEqual({ file: NOTES, line: 68, column: 3 });
    expect(routeOf(ir, 'createNote').body).toEqual({
      kind: 'json',
      schema: { $ref: '#/resources/NoteInput' },
      required: true,
    });
    expect(routeOf(ir, 'createNote').responses).toEqual({ 201: { $ref: '#/resources/Note' } });
    expect(routeOf(ir, 'updateNote').body).toEqual({
      kind: 'json',
      schema: { $ref: '#/resources/NotePatch' },
      required: true,
    });
    expect(routeOf(ir, 'deleteNote').responses).toEqual({ 204: null });
  });

  it('declares its error code and has the built-in catalog', async () => {
    const ir = await loadSpec(NOTES, { env: {} });
    expect(ir.errors).toEqual([
      {
        code: 'NOTE_NOT_FOUND',
        status: 404,
        message: 'Note not found.',
        module: 'app',
        loc: { file: NOTES, line: 92, column: 3 },
      },
    ]);
    expect(ir.catalog.find((e) => e.code === 'NOT_FOUND')).toMatchObject({ status: 404, module: 'http' });
    expect(ir.catalog.find((e) => e.code === 'AUTH_TOKEN_INVALID')).toMatchObject({
      status: 401,
      statuses: [400],
    });
    expect(ir.catalog.find((e) => e.code === 'HTTP_UNGUARDED_ROUTE_META')).toMatchObject({ status: 'boot' });
  });

  it('keeps config references as templates, with server defaults filled in', async () => {
    const ir = await loadSpec(NOTES, { env: { PORT: '4000' } });
    expect(ir.config).toEqual({
      server: {
        adapter: { $template: [{ env: 'SVC_ADAPTER', default: 'fastify' }] },
        port: { $template: [{ env: 'PORT', default: '3000' }], reread: true },
        host: { $template: [{ env: 'HOST', default: '127.0.0.1' }] },
        entry: 'src/server.ts',
      },
      stores: {
        database: { $template: [{ env: 'DATABASE_URL', default: 'pglite:.svc/data' }] },
        redis: { $template: [{ env: 'REDIS_URL', default: '' }] },
      },
      modules: { mcp: true },
    });
  });
});

describe('normalisation rules', () => {
  it('takes a full query schema as written', async () => {
    const query = {
      type: 'object',
      properties: { q: { type: 'string' }, tag: { type: 'array', items: { type: 'string' } } },
      required: ['q'],
    };
    const ir = await load(
      `${HEAD}routes:\n  search:\n    method: GET\n    path: /search\n    query: ${JSON.stringify(query)}\n`,
    );
    expect(ir.routes[0]!.query).toEqual(query);
  });

  it('reads an optional body, an inline body and a $ref body', async () => {
    const ir = await load(
      `${HEAD}resources:\n  Input: { type: object }\nroutes:\n  a: { method: POST, path: /a, body: { json: { type: object }, required: false } }\n  b: { method: PUT, path: /b, body: { type: object, properties: { x: { type: integer } } } }\n  c: { method: PATCH, path: /c, body: { $ref: '#/resources/Input' } }\n  d: { method: POST, path: /d, body: { json: Input } }\n`,
    );
    expect(ir.routes.map((r) => r.body)).toEqual([
      { kind: 'json', schema: { type: 'object' }, required: false },
      { kind: 'json', schema: { type: 'object', properties: { x: { type: 'integer' } } }, required: true },
      { kind: 'json', schema: { $ref: '#/resources/Input' }, required: true },
      { kind: 'json', schema: { $ref: '#/resources/Input' }, required: true },
    ]);
  });

  it('answers 200 with a body of any shape when no 2xx status is listed', async () => {
    const ir = await load(
      `${HEAD}routes:\n  a: { method: GET, path: /a }\n  b: { method: GET, path: /b, response: { 404: null } }\n`,
    );
    expect(ir.routes[0]!.responses).toEqual({ 200: true });
    expect(ir.routes[1]!.responses).toEqual({ 200: true, 404: null });
  });

  it('keeps params in path order and route order as declared', async () => {
    const ir = await load(
      `${HEAD}routes:\n  z: { method: GET, path: '/a/:b/c/:a', params: { a: { type: integer }, b: { type: string } } }\n  a: { method: GET, path: / }\n`,
    );
    expect(ir.routes.map((r) => r.id)).toEqual(['z', 'a']);
    expect(ir.routes[0]!.pathParams).toEqual(['b', 'a']);
    expect(Object.keys((ir.routes[0]!.params!.properties as object) ?? {})).toEqual(['b', 'a']);
    expect(ir.routes[0]!.params!.required).toEqual(['b', 'a']);
  });

  it('declares custom meta keys and passes their values through', async () => {
    const ir = await load(
      `${HEAD}modules:\n  auth: true\nroutes:\n  a: { method: GET, path: /a, meta: { audit: verbose, auth: true } }\nmetaKeys:\n  audit: { schema: { enum: [quiet, verbose] }, guarded: true, description: Audit level. }\n  plain: {}\n`,
    );
    expect(ir.metaKeys).toEqual([
      { name: 'audit', schema: { enum: ['quiet', 'verbose'] }, guarded: true, description: 'Audit level.' },
      { name: 'plain', schema: true, guarded: false },
    ]);
    expect(ir.routes[0]!.meta).toEqual({ audit: 'verbose', auth: true });
  });

  it('keeps a __proto__ key as data, never as a prototype', async () => {
    const ir = await load(
      `${HEAD}routes: {}\nresources:\n  Odd: { type: object, properties: { __proto__: { type: string } } }\n`,
    );
    const properties = (ir.resources[0]!.schema as { properties: object }).properties;
    expect(Object.keys(properties)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(properties)).toBe(Object.prototype);
  });
});

describe('module specs', () => {
  it('loads a module spec with its own errors', async () => {
    const ir = await loadModule(
      `svc: 1\nmodule: notes-extra\nversion: "1.0.0"\nroutes:\n  ping: { method: GET, path: /ping, errors: [PING_FAILED, NOT_FOUND] }\nerrors:\n  PING_FAILED: { status: 503, message: Ping failed., module: notes-extra }\n  PING_BOOT: { status: boot, message: Cannot ping., module: notes-extra }\n`,
    );
    expect(ir).toMatchObject({ kind: 'module', name: 'notes-extra', version: '1.0.0', config: {} });
    expect(ir.errors.map((e) => [e.code, e.status, e.module])).toEqual([
      ['PING_FAILED', 503, 'notes-extra'],
      ['PING_BOOT', 'boot', 'notes-extra'],
    ]);
    expect(ir.routes[0]!.errors).toEqual(['PING_FAILED', 'NOT_FOUND']);
  });
});
