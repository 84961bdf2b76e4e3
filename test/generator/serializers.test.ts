// serializers.js: what `svc build` compiles from response schemas. Each serializer writes only declared
// properties, byte for byte as JSON.stringify writes them; the module is deterministic and `--check` clean.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { build } from 'svckit/generator';
import { loadSpec } from 'svckit/spec';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitSerializers } from '../../generator/emit-serializers.js';
import type { CompiledValidator, ResponseSerializer } from '../../runtime/http/types.js';
import { buildShapes, type ShapesModules } from './serializer-shapes.js';
import type { TestProject } from './project.js';

let project: TestProject;
let modules: ShapesModules;

beforeAll(async () => {
  ({ project, modules } = await buildShapes());
}, 60_000);
afterAll(() => project.remove());

const serializer = (name: string) => modules.serializers[name] as ResponseSerializer;
const validator = (name: string) => modules.serializers[name] as CompiledValidator;

/** What JSON.stringify writes for `value` without the named properties. */
function jsonWithout(value: Record<string, unknown>, ...names: string[]): string {
  const copy = { ...value };
  for (const name of names) delete copy[name];
  return JSON.stringify(copy);
}

describe('serializers.js', () => {
  it('exports a serializer and a validator per route and JSON status; none for 204, declared in the .d.ts', () => {
    const names = Object.keys(modules.serializers).sort();
    expect(names).toContain('getNote_200');
    expect(names).toContain('createNote_201');
    expect(names).toContain('createNote_201_check');
    expect(names.some((name) => name.startsWith('deleteNote'))).toBe(false);
    const dts = project.read('serializers.d.ts');
    expect(dts).toContain("import type { CompiledValidator, ResponseSerializer } from 'svckit/core';");
    expect(dts).toContain('export declare const getNote_200: ResponseSerializer;');
    expect(dts).toContain('export declare const getNote_200_check: CompiledValidator;');
    const routes = project.read('routes.ts');
    expect(routes).toContain("import * as serializers from './serializers.js';");
    expect(routes).toContain('serializers: { 201: serializers.createNote_201 }');
    expect(routes).toContain('responseValidators: { 201: serializers.createNote_201_check }');
  });

  it('drops undeclared properties and writes the rest exactly as JSON.stringify does', () => {
    const note = { id: 'n1', title: 'Title', body: 'Body', rating: 4.5, pinned: false, internalNote: 'x' };
    expect(serializer('getNote_200')(note)).toBe(jsonWithout(note, 'internalNote'));
  });

  it('writes the schema order, omits missing and undefined properties', () => {
    const note = { title: 'T', body: undefined, id: 'n1' };
    expect(serializer('getNote_200')(note)).toBe('{"id":"n1","title":"T"}');
  });

  it('writes Dates, NaN, Infinity and -0 as JSON.stringify does', () => {
    const note = { id: 'n', title: 't', createdAt: new Date(Date.UTC(2026, 10, 25, 10)), rating: NaN };
    expect(serializer('getNote_200')(note)).toBe(JSON.stringify(note));
    for (const rating of [Infinity, -Infinity, -0, 1e21, 5e-7]) {
      expect(serializer('getNote_200')({ id: 'n', title: 't', rating })).toBe(
        JSON.stringify({ id: 'n', title: 't', rating }),
      );
    }
    expect(serializer('getNote_200')({ id: 'n', title: 't', createdAt: new Date(NaN) })).toBe(
      '{"id":"n","title":"t","createdAt":null}',
    );
  });

  it('escapes any string as JSON.stringify does (quotes, controls, lone surrogates, emoji)', () => {
    const write = serializer('getNote_200');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), (id, title) => {
        expect(write({ id, title })).toBe(JSON.stringify({ id, title }));
      }),
    );
    const title = 'a"b\\c\n\t\u0000\u001f\u2028 \ud800 \udc00 😀 é';
    expect(write({ id: 'x', title })).toBe(JSON.stringify({ id: 'x', title }));
  });

  it('is JSON.stringify of the declared properties for any valid note', () => {
    const write = serializer('getNote_200');
    const note = fc.record(
      {
        id: fc.string(),
        title: fc.string(),
        body: fc.string(),
        rating: fc.double(),
        pinned: fc.boolean(),
        secret: fc.anything(),
      },
      { requiredKeys: ['id', 'title'] },
    );
    fc.assert(
      fc.property(note, (value) => {
        expect(write(value)).toBe(jsonWithout(value, 'secret'));
      }),
    );
  });

  it('follows arrays of resources, nested objects and nullable types', () => {
    const page = {
      items: [{ id: '1', title: 'a', secret: 1 }, { id: '2', title: 'b' }, undefined],
      nextCursor: null,
      owner: { name: 'me', password: 'hunter2' },
      total: 3,
    };
    expect(serializer('listNotes_200')(page)).toBe(
      '{"items":[{"id":"1","title":"a"},{"id":"2","title":"b"},null],"nextCursor":null,"owner":{"name":"me"}}',
    );
    expect(serializer('listNotes_200')({ items: [], nextCursor: 'c2' })).toBe(
      '{"items":[],"nextCursor":"c2"}',
    );
  });

  it('keeps undeclared properties where the schema allows them, still closing nested closed objects', () => {
    const open = { name: 'n', owner: { name: 'o', password: 'p' }, extra: { deep: [1, new Date(0)] } };
    expect(serializer('getOpen_200')(open)).toBe(
      '{"name":"n","owner":{"name":"o"},"extra":{"deep":[1,"1970-01-01T00:00:00.000Z"]}}',
    );
    expect(serializer('getLabels_200')({ id: '1', 'x-team': 'core', internal: 'no' })).toBe(
      '{"id":"1","x-team":"core"}',
    );
    expect(serializer('getAnything_200')({ a: [1, { b: true }] })).toBe('{"a":[1,{"b":true}]}');
  });

  it('writes a union through the branch the value matches, without its undeclared properties', () => {
    const shape = serializer('getShape_200');
    expect(shape({ kind: 'circle', radius: 2, secret: 1 })).toBe('{"kind":"circle","radius":2}');
    expect(shape({ side: 3, kind: 'square' })).toBe('{"kind":"square","side":3}');
    expect(() => shape({ kind: 'hexagon', secret: 1 })).toThrow(/matches none of its schema branches/);
    const maybe = serializer('findNote_200');
    expect(maybe(null)).toBe('null');
    expect(maybe({ id: '1', title: 't', secret: 1 })).toBe('{"id":"1","title":"t"}');
  });

  it('handles recursion, allOf and schemas it can only validate', () => {
    const tree = { name: 'root', children: [{ name: 'leaf', children: [], x: 1 }], x: 2 };
    expect(serializer('getTree_200')(tree)).toBe(
      '{"name":"root","children":[{"name":"leaf","children":[]}]}',
    );
    expect(serializer('getStamped_200')({ id: '1', stamp: 's', other: 1 })).toBe('{"id":"1","stamp":"s"}');
    const conditional = serializer('getConditional_200');
    expect(conditional({ kind: 'full', detail: 'all of it' })).toBe('{"kind":"full","detail":"all of it"}');
    // A schema the plans cannot follow is written only when valid: an undeclared property is never let through.
    expect(() => conditional({ kind: 'full', detail: 'all of it', secret: 1 })).toThrow(/does not match/);
  });

  it('writes a Date in a date or time field as that part of its ISO form', () => {
    const at = new Date(Date.UTC(2026, 10, 25, 10, 11, 12, 345));
    expect(serializer('getDay_200')({ day: at, at })).toBe('{"day":"2026-11-25","at":"10:11:12.345Z"}');
    expect(serializer('getDay_200')({ day: new Date(NaN) })).toBe('{"day":null}');
    const far = { id: 'n', title: 't', createdAt: new Date(Date.UTC(12000, 0, 1)) };
    expect(serializer('getNote_200')(far)).toBe(JSON.stringify(far));
  });

  it('writes what toJSON() returns through the plan', () => {
    class Row {
      toJSON() {
        return { id: 'r', title: 'from toJSON', secret: 's' };
      }
    }
    expect(serializer('getNote_200')(new Row())).toBe('{"id":"r","title":"from toJSON"}');
  });

  it('writes a primitive of the wrong type as JSON, refuses an object or array where none is declared', () => {
    expect(serializer('getNote_200')('text')).toBe('"text"');
    expect(serializer('listNotes_200')({ items: 'oops', nextCursor: 3 })).toBe(
      '{"items":"oops","nextCursor":3}',
    );
    expect(() => serializer('getNote_200')({ id: { secret: 1 }, title: 't' })).toThrow(
      expect.objectContaining({ code: 'RESPONSE_SCHEMA_MISMATCH' }),
    );
    expect(() => serializer('getNote_200')([{ id: '1', title: 't' }])).toThrow(/array/);
  });

  it('pairs each serializer with the strict validator of the same response', () => {
    expect(validator('getNote_200_check')({ id: '1', title: 't' })).toBe(true);
    expect(validator('getNote_200_check')({ id: '1' })).toBe(false);
    expect(validator('getNote_200_check').errors).toMatchObject([{ keyword: 'required' }]);
  });
});

describe('svc build of serializers', () => {
  it('emits the same module twice from the same spec', async () => {
    const ir = await loadSpec(project.specFile, { env: {} });
    const input = { ir, header: '// h', validationRuntimeImport: 'v', typesImport: 't' };
    expect(emitSerializers(input).js).toBe(emitSerializers(input).js);
    expect(emitSerializers(input).js).toBe(
      emitSerializers({ ...input, ir: await loadSpec(project.specFile, { env: {} }) }).js,
    );
  });

  it('leaves --check clean after a build, and reports a hand-edited serializers.js as stale', async () => {
    const check = await build({ specFile: project.specFile, env: {}, check: true });
    const serializers = check.files.filter((file) => file.path.includes('serializers.'));
    expect(serializers.map((file) => [file.path.split('/').pop(), file.status])).toEqual([
      ['serializers.js', 'unchanged'],
      ['serializers.d.ts', 'unchanged'],
    ]);
    expect(check.files.every((file) => file.status === 'unchanged')).toBe(true);
    const path = join(project.outDir, 'serializers.js');
    project.write('generated/serializers.js', `${readFileSync(path, 'utf8')}// edited\n`);
    const stale = await build({ specFile: project.specFile, env: {}, check: true });
    expect(stale.files.find((file) => file.path === path)?.status).toBe('stale');
  });
});
