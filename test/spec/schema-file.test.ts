// The published JSON Schemas (spec/svc.schema.json, spec/catalog.schema.json) are valid 2020-12 and agree
// with the loader on the reference spec and the built-in catalog.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createAjv } from '../../shared/validation/ajv.js';

const read = (path: string) => readFileSync(fileURLToPath(new URL(path, import.meta.url)), 'utf8');
const svcSchema = JSON.parse(read('../../spec/svc.schema.json')) as object;
const catalogSchema = JSON.parse(read('../../spec/catalog.schema.json')) as object;

function validators() {
  // Strict like svc's own validators; union types are allowed because the 2020-12 meta-schema itself uses them.
  // No defaults: an editor never writes them, and one written while trying an anyOf branch (jsonBody's
  // `required`) would make the next branch (upload, raw) fail on a key the document never had.
  const ajv = createAjv({ allowUnionTypes: true, useDefaults: false });
  ajv.addSchema(svcSchema, 'svc.schema.json');
  ajv.addSchema(catalogSchema, 'catalog.schema.json');
  return { ajv, svc: ajv.getSchema('svc.schema.json')!, catalog: ajv.getSchema('catalog.schema.json')! };
}

describe('svc.schema.json', () => {
  it('is a valid JSON Schema 2020-12 document that compiles in strict mode', () => {
    const { ajv } = validators();
    expect(ajv.validateSchema(svcSchema), JSON.stringify(ajv.errors)).toBe(true);
    expect(ajv.validateSchema(catalogSchema), JSON.stringify(ajv.errors)).toBe(true);
    expect((svcSchema as { $schema: string }).$schema).toBe('https://json-schema.org/draft/2020-12/schema');
  });

  it('accepts the reference spec as written, ${VAR} references included', () => {
    const { svc } = validators();
    const document = parse(read('../fixtures/spec/notes.svc.yaml'));
    expect(svc(document), JSON.stringify(svc.errors)).toBe(true);
  });

  it('refuses what the loader refuses: unknown keys, bad methods, operationId', () => {
    const { svc } = validators();
    const base = { svc: 1, name: 'a', version: '1', routes: { a: { method: 'GET', path: '/a' } } };
    expect(svc(base)).toBe(true);
    expect(svc({ ...base, nmae: 'x' })).toBe(false);
    expect(svc({ ...base, routes: { a: { method: 'GETS', path: '/a' } } })).toBe(false);
    expect(svc({ ...base, routes: { a: { method: 'GET', path: '/a', meta: { operationId: 'x' } } } })).toBe(
      false,
    );
    expect(svc({ ...base, server: { port: 'eighty' } })).toBe(false);
    expect(svc({ ...base, server: { port: '${PORT:-80}' } })).toBe(true);
  });
});

describe('svc.schema.json: upload and raw bodies, streamed responses', () => {
  const withRoute = (route: object) => ({ svc: 1, name: 'a', version: '1', routes: { a: route } });

  it('accepts the files fixture (upload, raw, streams)', () => {
    const { svc } = validators();
    const document = parse(read('../fixtures/spec/files.svc.yaml'));
    expect(svc(document), JSON.stringify(svc.errors)).toBe(true);
  });

  it('accepts the wrappers and sizes as editors see them, and refuses what the loader refuses', () => {
    const { svc } = validators();
    const post = (body: unknown) => withRoute({ method: 'POST', path: '/a', body });
    expect(svc(post({ upload: { maxBytes: '25MiB', maxFiles: 5, allowedTypes: ['image/*'] } }))).toBe(true);
    expect(svc(post({ upload: { maxBytes: 1024, maxFiles: 0 } }))).toBe(true);
    expect(svc(post({ raw: {} }))).toBe(true);
    expect(svc(post({ raw: { maxBytes: '64 KiB', contentTypes: ['application/json'] } }))).toBe(true);
    expect(svc(post({ upload: { maxBytes: '25 megabytes', maxFiles: 5 } }))).toBe(false);
    expect(svc(post({ upload: { maxBytes: 0, maxFiles: 5 } }))).toBe(false);
    expect(svc(post({ upload: { maxBytes: '1MiB' } }))).toBe(false);
    expect(svc(post({ upload: { maxBytes: '1MiB', maxFiles: 1, maxFile: 1 } }))).toBe(false);
    expect(svc(post({ upload: { maxBytes: '1MiB', maxFiles: 1, allowedTypes: ['png'] } }))).toBe(false);
    expect(svc(post({ raw: { maxBytes: 10 }, required: false }))).toBe(false);
    expect(svc(post({ raw: null }))).toBe(false);
    const get = (response: unknown) => withRoute({ method: 'GET', path: '/a', response });
    expect(svc(get({ 200: { stream: 'application/pdf' } }))).toBe(true);
    expect(svc(get({ 200: { stream: 'text/event-stream' }, 404: null }))).toBe(true);
  });
});

describe('catalog.schema.json', () => {
  it('accepts the built-in catalog and refuses an entry without module', () => {
    const { catalog } = validators();
    const document = parse(read('../../spec/errors.yaml')) as { errors: Record<string, object> };
    expect(catalog(document), JSON.stringify(catalog.errors)).toBe(true);
    expect(catalog({ ...document, errors: { X: { status: 400, message: 'x' } } })).toBe(false);
  });
});
