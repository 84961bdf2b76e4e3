// The published JSON Schema is the one source of a spec's shape: the loader's walker checks every keyword
// it uses (a keyword the walker skipped let `buckets: [-1, 0, 1]` load while editors refused it), and a
// `default` written in an embedded schema must satisfy that schema.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { Problems } from '../../spec/loader/problems.js';
import {
  CHECKED_KEYWORDS,
  DESCRIBING_KEYWORDS,
  StructureChecker,
  type SchemaObject,
} from '../../spec/loader/structure.js';
import { SUBSCHEMA_MAPS } from '../../spec/loader/subschema-keywords.js';
import { parseYaml } from '../../spec/loader/yaml-tree.js';
import { expectOnly, HEAD, load } from './helpers.js';

const SCHEMA_FILES = ['svc.schema.json', 'catalog.schema.json'];
/** Keywords whose value maps names to schemas, and keywords whose value is data, not a schema. */
const SCHEMA_MAPS = new Set([...SUBSCHEMA_MAPS, '$defs']);
const DATA = new Set(['enum', 'const', 'default', 'examples', 'required', 'type']);

function keywordsOf(schema: unknown, found = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) keywordsOf(item, found);
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return found;
  for (const [keyword, value] of Object.entries(schema)) {
    found.add(keyword);
    if (SCHEMA_MAPS.has(keyword))
      for (const inner of Object.values(value as object)) keywordsOf(inner, found);
    else if (!DATA.has(keyword)) keywordsOf(value, found);
  }
  return found;
}

describe('the published schema as the one source of structure', () => {
  it.each(SCHEMA_FILES)('%s uses no keyword the loader does not check or read', (name) => {
    const schema: unknown = JSON.parse(readFileSync(new URL(`../../spec/${name}`, import.meta.url), 'utf8'));
    const known = new Set([...CHECKED_KEYWORDS, ...DESCRIBING_KEYWORDS]);
    expect([...keywordsOf(schema)].filter((keyword) => !known.has(keyword))).toEqual([]);
  });

  it('refuses histogram buckets the published schema refuses (exclusiveMinimum)', async () => {
    await expectOnly(`${HEAD}modules:\n  edge:\n    metrics: { buckets: [-1, 0.5, 1] }\nroutes: {}\n`, {
      line: 6,
      column: 26,
      message: 'modules.edge.metrics.buckets.0: expected a number greater than 0 but got -1',
      hint: 'write a number greater than 0',
    });
    const loaded = await load(`${HEAD}modules:\n  edge:\n    metrics: { buckets: [0.1, 1] }\nroutes: {}\n`);
    expect(loaded.moduleSettings.edge?.metrics).toBe(true);
  });
});

describe('defaults', () => {
  const routeWith = (property: string) =>
    `${HEAD}routes:\n  create:\n    method: POST\n    path: /tasks\n    body:\n      type: object\n      properties:\n${property}\n    response: { 201: null }\n`;

  it('refuses a default outside its own enum, at the default', async () => {
    await expectOnly(routeWith('        state: { type: string, enum: [open, closed], default: done }'), {
      line: 11,
      column: 63,
      message:
        /routes\.create\.body\.properties\.state\.default: the default does not satisfy its own schema: expected one of "open", "closed"/,
      hint: 'change the default to a value the schema accepts, or remove it',
    });
  });

  it('refuses a query default of the wrong type and a resource default out of range', async () => {
    await expectOnly(
      `${HEAD}routes:\n  list:\n    method: GET\n    path: /tasks\n    query:\n      limit: { type: integer, minimum: 1, default: "20" }\n    response: { 200: null }\n`,
      {
        line: 9,
        column: 52,
        message: /query\.limit\.default: the default does not satisfy its own schema: expected an integer/,
      },
    );
    await expectOnly(
      `${HEAD}resources:\n  Task:\n    type: object\n    properties:\n      size: { type: integer, maximum: 10, default: 11 }\nroutes: {}\n`,
      { line: 8, column: 52, message: /resources\.Task\.properties\.size\.default: the default does not/ },
    );
  });

  it('keeps a default that fits', async () => {
    const ir = await load(routeWith('        state: { type: string, enum: [open, closed], default: open }'));
    expect(ir.routes[0]?.id).toBe('create');
  });
});

describe('the walker applies every keyword it claims to check', () => {
  // One value per keyword that breaks that keyword alone: removing the keyword from the schema lets it pass.
  // A keyword added to CHECKED_KEYWORDS needs a probe here, so the list cannot claim a check the walker lacks.
  const PROBES: Record<string, { schema: SchemaObject; value: string }> = {
    $ref: { schema: { $ref: '#/$defs/integer' }, value: 'text' },
    anyOf: { schema: { anyOf: [{ type: 'integer' }, { type: 'boolean' }] }, value: 'text' },
    const: { schema: { const: 1 }, value: '2' },
    enum: { schema: { enum: ['a', 'b'] }, value: 'c' },
    type: { schema: { type: 'integer' }, value: 'text' },
    minLength: { schema: { type: 'string', minLength: 2 }, value: 'a' },
    maxLength: { schema: { type: 'string', maxLength: 1 }, value: 'ab' },
    pattern: { schema: { type: 'string', pattern: '^a' }, value: 'b' },
    minimum: { schema: { type: 'number', minimum: 1 }, value: '0' },
    maximum: { schema: { type: 'number', maximum: 1 }, value: '2' },
    exclusiveMinimum: { schema: { type: 'number', exclusiveMinimum: 0 }, value: '0' },
    exclusiveMaximum: { schema: { type: 'number', exclusiveMaximum: 1 }, value: '1' },
    minItems: { schema: { type: 'array', minItems: 1 }, value: '[]' },
    uniqueItems: { schema: { type: 'array', uniqueItems: true }, value: '[1, 1]' },
    items: { schema: { type: 'array', items: { type: 'integer' } }, value: '[text]' },
    properties: { schema: { type: 'object', properties: { a: { type: 'integer' } } }, value: '{ a: text }' },
    required: { schema: { type: 'object', required: ['a'] }, value: '{ b: 1 }' },
    propertyNames: { schema: { type: 'object', propertyNames: { pattern: '^a' } }, value: '{ b: 1 }' },
    additionalProperties: { schema: { type: 'object', additionalProperties: false }, value: '{ b: 1 }' },
  };
  const DOC = 'probe.json';

  function findings(schema: SchemaObject, value: string): number {
    const problems = new Problems();
    const node = parseYaml('probe.yaml', `value: ${value}\n`, {}, problems);
    if (node?.kind !== 'map') throw new Error(`probe value did not parse: ${value}`);
    const docs = new Map([[DOC, { $defs: { integer: { type: 'integer' } } }]]);
    const checker = new StructureChecker(docs, new Set());
    return checker.checkWith(node.byKey.get('value')!.value, schema, DOC, ['value']).length;
  }

  it('has a probe for each checked keyword', () => {
    expect(Object.keys(PROBES).sort()).toEqual([...CHECKED_KEYWORDS].sort());
  });

  it.each(Object.entries(PROBES))(
    '%s: refuses the probe, which passes without the keyword',
    (keyword, probe) => {
      expect(findings(probe.schema, probe.value)).toBeGreaterThan(0);
      const { [keyword]: _removed, ...without } = probe.schema;
      expect(findings(without, probe.value)).toBe(0);
    },
  );
});
