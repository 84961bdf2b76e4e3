// A rich IR fixture shared by the OpenAPI, MCP-tools and client tests: auth routes, tags, arrays in query,
// a required query, an optional body, 204, a text response, several error statuses, a code with two
// statuses and resources referencing each other. Built by hand so these tests don't depend on the loader.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { moduleSettingsOf } from '../../../spec/loader/module-settings.js';
import type { ErrorIR, JsonSchemaObject, RouteIR, SpecIR } from '../../../shared/ir.js';

const loc = { file: '/app/svc.config.yaml', line: 1, column: 1 };

/** spec/errors.yaml as ErrorIR entries (what the loader puts in `ir.catalog`). */
export function builtInCatalog(): ErrorIR[] {
  const file = fileURLToPath(new URL('../../../spec/errors.yaml', import.meta.url));
  const document = parse(readFileSync(file, 'utf8')) as { errors: Record<string, Omit<ErrorIR, 'code'>> };
  return Object.entries(document.errors).map(([code, entry]) => ({ code, ...entry }));
}

const uuid = { type: 'string', format: 'uuid' };
const idParams: JsonSchemaObject = {
  type: 'object',
  properties: { id: { ...uuid, description: 'The note id.' } },
  required: ['id'],
  additionalProperties: false,
};

function route(partial: Partial<RouteIR> & Pick<RouteIR, 'id' | 'method' | 'path' | 'responses'>): RouteIR {
  const pathParams = [...partial.path.matchAll(/:([A-Za-z_][A-Za-z0-9_]*)/g)].map((match) => match[1] ?? '');
  return { pathParams, errors: [], meta: {}, loc, ...partial };
}

export function notesIr(overrides: Partial<SpecIR> = {}): SpecIR {
  const config: SpecIR['config'] = {
    modules: {
      edge: { openapi: { tags: [{ name: 'notes', description: 'Reading and writing notes.' }] } },
    },
  };
  return {
    kind: 'app',
    file: loc.file,
    name: 'notes-api',
    version: '1.2.3',
    title: 'Notes API',
    description: 'Notes for the fixture.',
    resources: [
      {
        name: 'Author',
        loc,
        schema: {
          type: 'object',
          properties: { id: { ...uuid, readOnly: true }, name: { type: 'string', minLength: 1 } },
          required: ['id', 'name'],
          additionalProperties: false,
        },
      },
      {
        name: 'Note',
        loc,
        schema: {
          type: 'object',
          description: 'A note.',
          properties: {
            id: { ...uuid, readOnly: true },
            title: { type: 'string', minLength: 1, maxLength: 200 },
            body: { type: 'string', maxLength: 10000 },
            tags: { type: 'array', items: { type: 'string' } },
            author: { $ref: '#/resources/Author' },
            createdAt: { type: 'string', format: 'date-time', readOnly: true },
          },
          required: ['id', 'title', 'author', 'createdAt'],
          additionalProperties: false,
        },
      },
      {
        name: 'NoteInput',
        loc,
        schema: {
          type: 'object',
          properties: {
            title: { type: 'string', minLength: 1, maxLength: 200 },
            body: { type: 'string', maxLength: 10000 },
            tags: { type: 'array', items: { type: 'string' } },
          },
          required: ['title'],
          additionalProperties: false,
        },
      },
      {
        name: 'NotePatch',
        loc,
        schema: {
          type: 'object',
          properties: { title: { type: 'string', minLength: 1 }, body: { type: 'string' } },
          minProperties: 1,
          additionalProperties: false,
        },
      },
      {
        name: 'NoteList',
        loc,
        schema: {
          type: 'object',
          properties: {
            items: { type: 'array', items: { $ref: '#/resources/Note' } },
            nextCursor: { type: ['string', 'null'] },
          },
          required: ['items', 'nextCursor'],
          additionalProperties: false,
        },
      },
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
            cursor: { type: 'string', description: 'From `nextCursor`.' },
            tag: { type: 'array', items: { type: 'string' } },
            pinned: { type: 'boolean' },
          },
          additionalProperties: false,
        },
        responses: { '200': { $ref: '#/resources/NoteList' } },
        errors: ['NOTE_CURSOR_INVALID'],
        meta: { summary: 'List notes', tags: ['notes'], mcp: true },
      }),
      route({
        id: 'searchNotes',
        method: 'GET',
        path: '/notes/search',
        query: {
          type: 'object',
          properties: { q: { type: 'string', minLength: 1 } },
          required: ['q'],
          additionalProperties: false,
        },
        responses: { '200': { $ref: '#/resources/NoteList' } },
        meta: {
          summary: 'Search notes',
          tags: ['search', 'notes'],
          rateLimit: { limit: 10, windowMs: 60000 },
          mcp: { name: 'find_notes', description: 'Full-text search over note titles and bodies.' },
        },
      }),
      route({
        id: 'createNote',
        method: 'POST',
        path: '/notes',
        body: { kind: 'json', schema: { $ref: '#/resources/NoteInput' }, required: true },
        responses: { '201': { $ref: '#/resources/Note' } },
        errors: ['NOTE_STORE_FULL'],
        meta: {
          summary: 'Create a note',
          tags: ['notes'],
          auth: true,
          scopes: ['notes:write'],
          mcp: true,
          idempotency: 'required',
        },
      }),
      route({
        id: 'getNote',
        method: 'GET',
        path: '/notes/:id',
        params: idParams,
        responses: { '200': { $ref: '#/resources/Note' } },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Read one note', tags: ['notes'], auth: true, etag: true, mcp: true },
      }),
      route({
        id: 'updateNote',
        method: 'PATCH',
        path: '/notes/:id',
        params: idParams,
        body: { kind: 'json', schema: { $ref: '#/resources/NotePatch' }, required: true },
        responses: { '200': { $ref: '#/resources/Note' } },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Change a note', tags: ['notes'], auth: true, mcp: true },
      }),
      route({
        id: 'replaceNote',
        method: 'PUT',
        path: '/notes/:id',
        params: idParams,
        body: {
          kind: 'json',
          required: false,
          schema: {
            type: 'object',
            properties: { title: { type: 'string' }, pinned: { type: 'boolean' } },
            required: ['title'],
          },
        },
        responses: { '200': { $ref: '#/resources/Note' } },
        errors: ['NOTE_NOT_FOUND'],
        meta: {
          summary: 'Replace a note',
          description: 'Old way to change a note; use updateNote.',
          deprecated: true,
          mcp: true,
        },
      }),
      route({
        id: 'deleteNote',
        method: 'DELETE',
        path: '/notes/:id',
        params: idParams,
        responses: { '204': null },
        errors: ['NOTE_NOT_FOUND'],
        meta: { summary: 'Delete a note', tags: ['notes'], auth: true, mcp: true },
      }),
      route({
        id: 'verifyEmail',
        method: 'POST',
        path: '/verify-email',
        body: {
          kind: 'json',
          required: true,
          schema: {
            type: 'object',
            properties: { token: { type: 'string', minLength: 1 } },
            required: ['token'],
            additionalProperties: false,
          },
        },
        responses: { '204': null },
        errors: ['AUTH_TOKEN_INVALID'],
        meta: { tags: ['account'] },
      }),
      route({
        id: 'ping',
        method: 'GET',
        path: '/ping',
        responses: { '200': { type: 'string' } },
      }),
    ],
    errors: [
      { code: 'NOTE_NOT_FOUND', status: 404, message: 'Note not found.', module: 'app' },
      { code: 'NOTE_CURSOR_INVALID', status: 400, message: 'The cursor is not valid.', module: 'app' },
      { code: 'NOTE_STORE_FULL', status: 507, message: 'The note store is full.', module: 'app' },
    ],
    catalog: builtInCatalog(),
    metaKeys: [],
    config,
    ...overrides,
    // The module model as the loader derives it from `config.modules`, unless the test gives its own.
    moduleSettings: overrides.moduleSettings ?? moduleSettingsOf((overrides.config ?? config).modules),
  };
}

export const HEADER = '// Generated by svc build from svc.config.yaml. Do not edit.';
