// Long interfaces (openapi.d.ts `paths` and `operations`, routes.ts `Handlers`, client.ts `Client`) and constant
// literals (routes.ts `routeDefinitions`, client.ts `routeTable`, errors.ts `catalog`) are reused member by
// member by the format cache: after an edit the file is still formatted byte for byte as prettier formats it
// whole, while prettier is asked only for the members that changed.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as prettier from 'prettier';
import { parsers } from 'prettier/plugins/babel';
import type { Options } from 'prettier';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { FormatCache } from '../../generator/format-cache.js';
import { cutDeclarations, joinDeclarations } from '../../generator/declaration-split.js';
import type { ParsedProgram } from '../../generator/statement-chunks.js';

const OPTIONS: Options = { parser: 'babel-ts', singleQuote: true, printWidth: 110, trailingComma: 'all' };
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function project(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), 'svc-declaration-split-'));
  dirs.push(dir);
  return { dir, file: join(dir, 'generated', 'openapi.d.ts') };
}

async function formatThroughCache(dir: string, file: string, source: string) {
  const cache = await FormatCache.open(dir);
  await cache.read([file]);
  const asked: string[] = [];
  const formatted = await cache.format(file, source, { ...OPTIONS, filepath: file }, (text) => {
    asked.push(text);
    return prettier.format(text, { ...OPTIONS, filepath: file });
  });
  await cache.save();
  return { formatted, asked };
}

/**
 * Declarations drawn by `declaration`, then rounds of member edits (insert, remove, replace): each round's file
 * goes through one project's format cache, and must come out as prettier formats it whole.
 */
async function checkEditSequences<T extends { members: Array<[number, number]> }>(
  declaration: fc.Arbitrary<T>,
  member: fc.Arbitrary<[number, number]>,
  renderAll: (declarations: readonly T[]) => string,
  numRuns: number,
): Promise<void> {
  const edit = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.nat(), member);
  await fc.assert(
    fc.asyncProperty(
      fc.array(declaration, { minLength: 1, maxLength: 3 }),
      fc.array(fc.array(edit, { maxLength: 4 }), { maxLength: 3 }),
      async (base, rounds) => {
        const { dir, file } = project();
        let declarations = base;
        for (const edits of [[], ...rounds]) {
          declarations = declarations.map((one) => ({ ...one, members: [...one.members] }));
          for (const [kind, at, replacement] of edits) {
            const list = declarations[at % declarations.length]!.members;
            const index = at % (list.length + 1);
            if (kind === 0 || list.length === 0) list.splice(index, 0, replacement);
            else list.splice(index % list.length, 1, ...(kind === 2 ? [replacement] : []));
          }
          const text = renderAll(declarations);
          const { formatted } = await formatThroughCache(dir, file, text);
          expect(formatted).toBe(await prettier.format(text, OPTIONS));
        }
        rmSync(dir, { recursive: true, force: true });
      },
    ),
    { numRuns },
  );
}

/** A member of each shape generated interfaces hold, and some they do not. */
const MEMBERS = [
  (i: number) =>
    `    "/things${i}/{id}": {\n        parameters: { query?: never; path: { id: string } };\n        get: operations["getThing${i}"];\n    };`,
  (i: number) =>
    `    /** Read thing ${i} */\n    getThing${i}: { parameters: { path: { id: string } }; responses: { 200: { content: { "application/json": components["schemas"]["Thing${i}"] } } } };`,
  (i: number) =>
    `  listThings${i}(input: ListInput, options?: { signal?: AbortSignal; headers?: Record<string, string> }): Promise<Page<Thing${i}>>;`,
  (i: number) =>
    `  readonly status${i}?: 'active' | 'archived' | 'deleted' | 'pending' | 'rejected' | 'approved' | 'waiting' | 'done' | 'failed';`,
  (i: number) => `  field${i}: string,`,
  (i: number) => `  bare${i}: number`,
  (i: number) => `  // own line ${i}\n  commented${i}: boolean;`,
  (i: number) => `  trailing${i}: string; // same line ${i}`,
  (i: number) => `\n  afterBlank${i}: { a: number };`,
  (i: number) => `  [key${i}: string]: unknown;`,
  (i: number) => `  (call${i}: number): void;`,
  (i: number) => `  nested${i}: {\n    deeper: Array<{ x: ${i}; y: 'text' }>;\n  };`,
];

/** Interfaces of members, now and then another statement, a heritage clause or a second declaration. */
function render(
  interfaces: ReadonlyArray<{ name: number; header: number; members: Array<[number, number]> }>,
) {
  const headers = [
    (n: number) => `export interface Api${n} {`,
    (n: number) => `interface Api${n} {`,
    (n: number) => `export interface Api${n} extends Base {`,
    (n: number) => `export interface  Api${n}{`,
  ];
  const parts = ['// Generated by svc build from svc.config.yaml. Do not edit.', ''];
  for (const { name, header, members } of interfaces) {
    parts.push(headers[header]!(name), ...members.map(([shape, i]) => MEMBERS[shape]!(i)), '}');
    if (name % 3 === 0) parts.push(`export type Alias${name} = Record<string, never>;`);
  }
  return `${parts.join('\n')}\n`;
}

const member = fc.tuple(
  fc.oneof(
    { arbitrary: fc.constantFrom(0, 1, 2, 3), weight: 6 },
    { arbitrary: fc.integer({ min: 0, max: MEMBERS.length - 1 }), weight: 2 },
  ),
  fc.integer({ min: 0, max: 99 }),
);
const anInterface = fc.record({
  name: fc.integer({ min: 0, max: 3 }),
  header: fc.oneof(
    { arbitrary: fc.constant(0), weight: 4 },
    { arbitrary: fc.integer({ min: 0, max: 3 }), weight: 1 },
  ),
  members: fc.array(member, { minLength: 0, maxLength: 30 }),
});

const parseTs = (text: string) =>
  parsers['babel-ts'].parse(text, { parser: 'babel-ts' } as never) as ParsedProgram;

describe('interfaces cut for the format cache', () => {
  it('joins the formatted cut text into the bytes prettier prints for the whole source', async () => {
    let cut = 0;
    let joins = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(anInterface, { minLength: 1, maxLength: 4 }), async (interfaces) => {
        const text = render(interfaces);
        const whole = await prettier.format(text, OPTIONS);
        const split = cutDeclarations(text, parseTs(text));
        if (split === undefined) return;
        cut++;
        const joined = joinDeclarations(await prettier.format(split.text, OPTIONS), split);
        // Undefined only when the source itself holds a seam (two declarations of one interface in a row).
        if (joined === undefined) return;
        joins++;
        expect(joined).toBe(whole);
      }),
      { numRuns: 150 },
    );
    expect(cut).toBeGreaterThan(30);
    // Most cuts join: a join that always gave up would pass the property above.
    expect(joins).toBeGreaterThan(cut / 2);
  });

  it('formats edited interfaces as prettier formats them whole, asking prettier only for new members', async () => {
    const { dir, file } = project();
    const members = Array.from({ length: 60 }, (_, i): [number, number] => [i % 4, i]);
    const first = render([{ name: 1, header: 0, members }]);
    expect((await formatThroughCache(dir, file, first)).formatted).toBe(
      await prettier.format(first, OPTIONS),
    );

    const edited = render([
      { name: 1, header: 0, members: [...members.slice(0, 30), [1, 500], ...members.slice(30)] },
    ]);
    const warm = await formatThroughCache(dir, file, edited);
    expect(warm.formatted).toBe(await prettier.format(edited, OPTIONS));
    expect(warm.asked.join('').length).toBeLessThan(edited.length / 10);
  });

  it('gives the bytes of prettier through any sequence of member edits', async () => {
    await checkEditSequences(anInterface, member, render, 40);
  });
});

/** Elements of the arrays generated (routes.ts `routeDefinitions`), and some shapes they never have. */
const ELEMENTS = [
  (i: number) =>
    `{ id: 'listThings${i}', method: 'GET', url: '/things-${i}', query: { validate: validators.listThings${i}_query, coerce: { limit: 'integer' } }, successStatus: 200, errors: ['THING_${i}_CURSOR_INVALID'], meta: { summary: 'List things ${i}', auth: true, mcp: true } }`,
  (i: number) => `{ id: 'get${i}', method: 'GET', url: '/t/:id', errors: [] }`,
  (i: number) => `{ id: 'short${i}' }`,
  (i: number) => `{\n    id: 'expanded${i}', n: ${i} }`,
  (i: number) =>
    `// about ${i}\n  { id: 'commented${i}', method: 'DELETE', url: '/c/${i}', errors: ['GONE'], successStatus: 204 }`,
  (i: number) =>
    `\n  { id: 'afterBlank${i}', method: 'PUT', url: '/b/${i}', errors: ['A', 'B'], successStatus: 200 }`,
  (i: number) => `{ id: 'trailing${i}', method: 'GET', url: '/x' }, // same line ${i}`,
  (i: number) => `{ ...base${i}, id: 'spread${i}' }`,
];

/** Properties of the objects generated (errors.ts `catalog`, client.ts `routeTable`), and some they never have. */
const PROPERTIES = [
  (i: number) => `CODE_${i}_NOT_FOUND: { status: 404, message: 'Thing ${i} not found.', module: 'app' }`,
  (i: number) =>
    `route${i}: { method: 'GET', path: '/things/${i}/:id', parts: ['things', { param: 'id' }], responses: { '200': 'json' }, errors: { '400': ['HTTP_VALIDATION'], '404': ['THING_${i}_NOT_FOUND'] } }`,
  (i: number) => `short${i}: ${i}`,
  (i: number) => `'quoted-${i}': true`,
  (i: number) => `'plain${i}': 'needs no quotes'`,
  (i: number) => `${i}: 'a number key'`,
  (i: number) => `// about ${i}\n  commented${i}: { a: ${i}, b: 'text' }`,
  (i: number) => `[computed${i}]: 1`,
  (i: number) => `method${i}() { return ${i}; }`,
];

/** Constants of members; the first shapes are the generated ones and come most often. */
function renderLiterals(
  literals: ReadonlyArray<{ name: number; header: number; tail: number; members: Array<[number, number]> }>,
) {
  const headers = [
    (n: number) => `export const list${n}: readonly RouteDefinition[] = [`,
    (n: number) => `const table${n}: Record<string, RouteInfo> = {`,
    (n: number) => `export const catalog${n} = {`,
    (n: number) => `export const  spaced${n} = [`,
    (n: number) => `let mutable${n} = {`,
  ];
  const parts = ['// Generated by svc build from svc.config.yaml. Do not edit.', ''];
  for (const { name, header, tail, members } of literals) {
    const head = headers[header]!(name);
    const array = head.endsWith('[');
    const shapes = array ? ELEMENTS : PROPERTIES;
    const closer = array ? ']' : '}';
    const tails = [';', ' as const;', ' as const satisfies Record<string, unknown>;'];
    // Generated declarations stand apart; now and then one follows the previous statement directly.
    if (name !== 3 && parts.at(-1) !== '') parts.push('');
    parts.push(head, ...members.map(([shape, i]) => `  ${shapes[shape % shapes.length]!(i)},`));
    parts.push(`${closer}${tails[tail]}`);
    if (name % 3 === 0) parts.push(`export type Alias${name} = Record<string, never>;`);
  }
  return `${parts.join('\n')}\n`;
}

const literalMember = fc.tuple(
  fc.oneof(
    { arbitrary: fc.constantFrom(0, 1), weight: 6 },
    { arbitrary: fc.integer({ min: 0, max: PROPERTIES.length - 1 }), weight: 2 },
  ),
  fc.integer({ min: 0, max: 99 }),
);
const aLiteral = fc.record({
  name: fc.integer({ min: 0, max: 3 }),
  header: fc.oneof(
    { arbitrary: fc.constantFrom(0, 1, 2), weight: 4 },
    { arbitrary: fc.integer({ min: 0, max: 4 }), weight: 1 },
  ),
  tail: fc.integer({ min: 0, max: 2 }),
  members: fc.array(literalMember, { minLength: 0, maxLength: 30 }),
});
/** Options that change how a piece prints next to how the whole prints; the cut must notice each. */
const anyOptions = fc.record({
  trailingComma: fc.constantFrom('all', 'es5', 'none'),
  quoteProps: fc.constantFrom('as-needed', 'consistent', 'preserve'),
  objectWrap: fc.constantFrom('preserve', 'collapse'),
  printWidth: fc.constantFrom(80, 110),
}) as fc.Arbitrary<Options>;

describe('constant literals cut for the format cache', () => {
  it('joins the formatted cut text into the bytes prettier prints for the whole source, under any options', async () => {
    let cut = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(aLiteral, { minLength: 1, maxLength: 4 }),
        anyOptions,
        async (literals, extra) => {
          const options = { ...OPTIONS, ...extra };
          const text = renderLiterals(literals);
          const whole = await prettier.format(text, options);
          const split = cutDeclarations(text, parseTs(text), options);
          if (split === undefined) return;
          cut++;
          // Undefined when a piece prints otherwise than inside the whole: the cache formats it whole then.
          const joined = joinDeclarations(await prettier.format(split.text, options), split);
          if (joined !== undefined) expect(joined).toBe(whole);
        },
      ),
      { numRuns: 120 },
    );
    expect(cut).toBeGreaterThan(8);
  });

  it('joins every cut of the generated shapes under the options svc formats with', async () => {
    const generated = fc.record({
      name: fc.integer({ min: 0, max: 3 }),
      header: fc.constantFrom(0, 1, 2),
      tail: fc.integer({ min: 0, max: 2 }),
      members: fc.array(fc.tuple(fc.constantFrom(0, 1), fc.integer({ min: 0, max: 99 })), {
        minLength: 8,
        maxLength: 30,
      }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(generated, { minLength: 1, maxLength: 3 }), async (drawn) => {
        // Arrays hold route definitions only: a short element alone in its piece would print on one line.
        // One declaration of each name, as in a generated file.
        const literals = drawn.map((one, index) => ({
          ...one,
          name: index,
          members: one.header === 0 ? one.members.map(([, i]): [number, number] => [0, i]) : one.members,
        }));
        const text = renderLiterals(literals);
        const split = cutDeclarations(text, parseTs(text), OPTIONS);
        expect(split).toBeDefined();
        const joined = joinDeclarations(await prettier.format(split!.text, OPTIONS), split!);
        expect(joined).toBe(await prettier.format(text, OPTIONS));
      }),
      { numRuns: 30 },
    );
  });

  it('formats an edited route list as prettier formats it whole, asking prettier only for the new routes', async () => {
    const { dir, file } = project();
    const members = Array.from({ length: 60 }, (_, i): [number, number] => [i % 2, i]);
    const first = renderLiterals([{ name: 1, header: 0, tail: 0, members }]);
    expect((await formatThroughCache(dir, file, first)).formatted).toBe(
      await prettier.format(first, OPTIONS),
    );
    const edited = renderLiterals([
      { name: 1, header: 0, tail: 0, members: [...members.slice(0, 30), [0, 500], ...members.slice(30)] },
    ]);
    const warm = await formatThroughCache(dir, file, edited);
    expect(warm.formatted).toBe(await prettier.format(edited, OPTIONS));
    expect(warm.asked.join('').length).toBeLessThan(edited.length / 10);
  });

  it('gives the bytes of prettier through any sequence of member edits', async () => {
    await checkEditSequences(aLiteral, literalMember, renderLiterals, 25);
  });
});
