// IR fixtures for generator tests: small builders plus the reference service's spec (notes) as IR.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { moduleSettingsOf } from '../../spec/loader/module-settings.js';
import type { ErrorIR, JsonSchema, ResourceIR, RouteIR, SourceLocation, SpecIR } from '../../shared/ir.js';

export const SPEC_FILE = '/project/svc.config.yaml';

let line = 1;
export function loc(file = SPEC_FILE): SourceLocation {
  return { file, line: line++, column: 3 };
}

export function resource(name: string, schema: JsonSchema): ResourceIR {
  return { name, schema, loc: loc() };
}

export function route(partial: Partial<RouteIR> & Pick<RouteIR, 'id' | 'method' | 'path'>): RouteIR {
  const pathParams = [...partial.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
  return { pathParams, responses: { '200': null }, errors: [], meta: {}, loc: loc(), ...partial };
}

export function appError(code: string, status: number, message: string, description?: string): ErrorIR {
  return { code, status, message, module: 'app', ...(description ? { description } : {}), loc: loc() };
}

export const CATALOG_FILE = fileURLToPath(new URL('../../spec/errors.yaml', import.meta.url));

/** svckit's built-in catalog (spec/errors.yaml) as ErrorIR, read directly so these tests need no loader. */
export function builtinCatalog(): ErrorIR[] {
  const document = parse(readFileSync(CATALOG_FILE, 'utf8')) as {
    errors: Record<string, Omit<ErrorIR, 'code'>>;
  };
  return Object.entries(document.errors).map(([code, entry]) => ({ code, ...entry }));
}

export function spec(partial: Partial<SpecIR> = {}): SpecIR {
  return {
    kind: 'app',
    file: SPEC_FILE,
    name: 'test-api',
    version: '1.0.0',
    resources: [],
    routes: [],
    errors: [],
    catalog: builtinCatalog(),
    metaKeys: [],
    config: {},
    ...partial,
    // The module model as the loader derives it from `config.modules`, unless the test gives its own.
    moduleSettings: partial.moduleSettings ?? moduleSettingsOf(partial.config?.modules),
  };
}

const ref = (name: string) => ({ $ref: `#/resources/${name}` });
const uuidParams = {
  type: 'object',
  properties: { id: { type: 'string', format: 'uuid' } },
  required: ['id'],
  additionalProperties: false,
};

/** The reference service's spec (svc.config.yaml of this repository), as the loader produces it. */
export function notesSpec(file = SPEC_FILE): SpecIR {
  return spec({
    file,
    name: 'notes-api',
    version: '0.1.0',
    title: 'Notes API',
    resources: [
      resource('Note', {
        type: 'object',
        description: 'A note.',
        properties: {
          id: { type: 'string', format: 'uuid', readOnly: true, description: 'Server-assigned identifier.' },
          title: { type: 'string', minLength: 1, maxLength: 200 },
          body: { type: 'string', maxLength: 10000 },
          createdAt: { type: 'string', format: 'date-time', readOnly: true },
        },
        required: ['id', 'title', 'createdAt'],
        additionalProperties: false,
      }),
      resource('NoteInput', {
        type: 'object',
        description: 'What a client sends to create a note.',
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200 },
          body: { type: 'string', maxLength: 10000 },
        },
        required: ['title'],
        additionalProperties: false,
      }),
      resource('NotePatch', {
        type: 'object',
        properties: {
          title: { type: 'string', minLength: 1, maxLength: 200 },
          body: { type: 'string', maxLength: 10000 },
        },
        minProperties: 1,
        additionalProperties: false,
      }),
      resource('NoteList', {
        type: 'object',
        properties: {
          items: { type: 'array', items: ref('Note') },
          nextCursor: { type: ['string', 'null'], description: 'Pass as `cursor` to read the next page.' },
        },
        required: ['items', 'nextCursor'],
        additionalProperties: false,
      }),
    ],
    routes: [
      route({
        id: 'listNotes',
        method: 'GET',
        path: '/notes',
        query: {
          type: 'object',
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            cursor: { type: 'string', minLength: 1, maxLength: 200 },
          },
          additionalProperties: false,
        },
        responses: { '200': ref('NoteList') },
        meta: { summary: 'List notes', tags: ['notes'], mcp: true },
      }),
      route({
        id: 'createNote',
        method: 'POST',
        path: '/notes',
        body: { kind: 'json', schema: ref('NoteInput'), required: true },
        responses: { '201': ref('Note') },
        meta: { summary: 'Create a note', tags: ['notes'], mcp: true },
      }),
      route({
        id: 'getNote',
        method: 'GET',
        path: '/notes/:id',
        params: uuidParams,
        responses: { '200': ref('Note') },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Read one note', tags: ['notes'], mcp: true, etag: true },
      }),
      route({
        id: 'updateNote',
        method: 'PATCH',
        path: '/notes/:id',
        params: uuidParams,
        body: { kind: 'json', schema: ref('NotePatch'), required: true },
        responses: { '200': ref('Note') },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Change a note', tags: ['notes'] },
      }),
      route({
        id: 'deleteNote',
        method: 'DELETE',
        path: '/notes/:id',
        params: uuidParams,
        responses: { '204': null },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Delete a note', tags: ['notes'] },
      }),
    ],
    errors: [appError('NOTE_NOT_FOUND', 404, 'Note not found.')],
    config: {
      server: {
        adapter: { $template: [{ env: 'SVC_ADAPTER', default: 'fastify' }], reread: true },
        port: { $template: [{ env: 'PORT', default: '3000' }], reread: true },
        host: { $template: [{ env: 'HOST', default: '127.0.0.1' }], reread: true },
        entry: 'src/server.ts',
      },
    },
  });
}
