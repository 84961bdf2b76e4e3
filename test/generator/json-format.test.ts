// The fast JSON printer must give prettier's bytes exactly, or step aside.
import * as prettier from 'prettier';
import { describe, expect, it } from 'vitest';
import { emitMcpTools } from '../../generator/emit-mcp-tools.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { formatJson } from '../../generator/json-format.js';
import { notesSpec } from './fixtures.js';

const LAYOUTS = [
  { printWidth: 110, tabWidth: 2 },
  { printWidth: 80, tabWidth: 2 },
  { printWidth: 40, tabWidth: 4 },
];

async function withPrettier(
  value: unknown,
  layout: { printWidth: number; tabWidth: number },
): Promise<string> {
  return prettier.format(`${JSON.stringify(value, null, 2)}\n`, { parser: 'json', ...layout });
}

const word = (n: number) => 'w'.repeat(n);

/** Arrays at and around the width limit, in every position where the following comma counts. */
function boundaryCases(): unknown[] {
  const cases: unknown[] = [];
  for (let n = 80; n <= 112; n++) {
    cases.push({ key: [word(n - 14)] }, { key: [word(n - 14)], after: 1 }, { list: [[word(n - 20)], 1] });
    cases.push({ numbers: Array.from({ length: n / 4 }, (_, i) => i * 1000) });
  }
  return cases;
}

const EDGE_CASES: unknown[] = [
  {},
  [],
  { a: [], b: {}, c: [{}], d: [[]], e: null, f: true, g: 'x' },
  { numbers: [1, 2, 3], negative: [-1, 2.5, -0.25], big: [1e21, 1e-7, 123456789012345680000] },
  {
    matrix: [
      [1, 2],
      [3, 4],
    ],
    notMatrix: [[1], [2]],
    mixed: [[1, 2], [3]],
    deep: [
      [
        [1, 2],
        [3, 4],
      ],
      [
        [5, 6],
        [7, 8],
      ],
    ],
  },
  { objects: [{ a: 1 }, { b: 2 }], one: [{ a: 1 }], emptyObjects: [{}, {}], withEmpty: [{}, { a: 1 }] },
  { strings: ['a "quoted" word', 'back\\slash', 'tab\there', 'line\nbreak', '</script>'] },
  { longNumbers: Array.from({ length: 40 }, (_, i) => i * 123457) },
  { mixedTypes: [1, 'two', null, true, [3], {}] },
  { nested: { deeper: { deepest: { list: Array.from({ length: 12 }, (_, i) => `item-${i}`) } } } },
  { __proto__: 1, 'key with spaces': [1], '': '' },
];

describe('formatJson', () => {
  it('prints what prettier prints, for edge cases and width boundaries', async () => {
    for (const layout of LAYOUTS) {
      for (const value of [...EDGE_CASES, ...boundaryCases()]) {
        const fast = formatJson(value, layout);
        expect(fast, JSON.stringify(value).slice(0, 120)).toBe(await withPrettier(value, layout));
      }
    }
  });

  it('prints generated OpenAPI and MCP documents exactly as prettier does', async () => {
    const ir = notesSpec();
    for (const document of [emitOpenApi(ir, { header: '// x' }), emitMcpTools(ir, { header: '// x' })]) {
      expect(formatJson(document, LAYOUTS[0]!)).toBe(await withPrettier(document, LAYOUTS[0]!));
    }
  });

  it("steps aside (undefined) when text is not plain ASCII, where widths are prettier's call", async () => {
    expect(formatJson({ tags: ['café', '東京'] }, LAYOUTS[0]!)).toBeUndefined();
    // Non-ASCII text outside arrays cannot change a layout decision.
    const text = { description: 'Grüße 東京' };
    expect(formatJson(text, LAYOUTS[0]!)).toBe(await withPrettier(text, LAYOUTS[0]!));
  });

  it('drops what JSON.stringify drops', async () => {
    const value = { keep: 1, gone: undefined, fn: () => 1, list: [undefined, () => 2, Number.NaN] };
    expect(formatJson(value, LAYOUTS[0]!)).toBe(await withPrettier(value, LAYOUTS[0]!));
  });
});
