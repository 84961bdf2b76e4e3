// Prints JSON exactly as prettier formats `JSON.stringify(value, null, 2)` with the json parser, in a
// fraction of the time (openapi.json of a 200-route spec: ~1 s with prettier, milliseconds here).
// The rules mirrored (prettier 3, estree printer on a JsonRoot):
//  - a non-empty object always breaks (its source had a newline after `{`), and so does every array holding one;
//  - an array breaks when it has 2+ elements that are all arrays (or all objects) of 2+ elements each;
//  - otherwise an array stays on one line when it fits in printWidth, counting the `,` that follows it;
//  - a broken array of numbers fills lines; any other broken array puts one element per line;
//  - numbers are printed like prettier's printNumber (`1e+21` → `1e21`); strings and keys exactly as JSON.
// Whatever this printer is unsure about (text wider than ASCII, options it does not model) returns undefined,
// and the caller formats with prettier instead. test/generator/json-format.test.ts compares both.

export interface JsonLayout {
  printWidth: number;
  tabWidth: number;
}

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

class Unsure extends Error {}

/** The formatted text with a final newline, or undefined when prettier must decide. */
export function formatJson(value: unknown, layout: JsonLayout): string | undefined {
  const text = JSON.stringify(value);
  if (text === undefined) return undefined;
  const data = JSON.parse(text) as Json;
  try {
    return `${print(data, 0, 0, 0, layout)}\n`;
  } catch (error) {
    if (error instanceof Unsure) return undefined;
    throw error;
  }
}

function print(value: Json, level: number, column: number, trailing: number, layout: JsonLayout): string {
  if (Array.isArray(value)) return printArray(value, level, column, trailing, layout);
  if (value !== null && typeof value === 'object') return printObject(value, level, layout);
  return scalar(value);
}

function printObject(value: { [key: string]: Json }, level: number, layout: JsonLayout): string {
  const entries = Object.entries(value);
  if (entries.length === 0) return '{}';
  const indent = ' '.repeat((level + 1) * layout.tabWidth);
  const lines = entries.map(([key, item], index) => {
    const head = `${indent}${JSON.stringify(key)}: `;
    const trailing = index === entries.length - 1 ? 0 : 1;
    return head + print(item, level + 1, width(head), trailing, layout);
  });
  return `{\n${lines.join(',\n')}\n${' '.repeat(level * layout.tabWidth)}}`;
}

function printArray(
  items: Json[],
  level: number,
  column: number,
  trailing: number,
  layout: JsonLayout,
): string {
  if (items.length === 0) return '[]';
  if (!mustBreak(items)) {
    const flat = flatText(items);
    if (column + width(flat) + trailing <= layout.printWidth) return flat;
  }
  const indent = ' '.repeat((level + 1) * layout.tabWidth);
  const close = `\n${' '.repeat(level * layout.tabWidth)}]`;
  if (items.every((item) => typeof item === 'number'))
    return `[\n${fill(items as number[], indent, layout)}${close}`;
  const lines = items.map(
    (item, index) =>
      indent + print(item, level + 1, indent.length, index === items.length - 1 ? 0 : 1, layout),
  );
  return `[\n${lines.join(',\n')}${close}`;
}

/** Numbers share lines: each separator stays a space while the next number (and its comma) still fits. */
function fill(numbers: number[], indent: string, layout: JsonLayout): string {
  const contents = numbers.map((number, index) => scalar(number) + (index === numbers.length - 1 ? '' : ','));
  let out = indent;
  let position = indent.length;
  contents.forEach((content, index) => {
    const next = contents[index + 1];
    out += content;
    if (next === undefined) return;
    if (position + content.length + 1 + next.length <= layout.printWidth) {
      out += ' ';
      position += content.length + 1;
    } else {
      out += `\n${indent}`;
      position = indent.length;
    }
  });
  return out;
}

/** A group that breaks whatever the width: it holds an object, or the "matrix" rule applies, here or below. */
function mustBreak(items: Json[]): boolean {
  if (items.some((item) => hardBreaks(item))) return true;
  return (
    items.length > 1 &&
    items.every((item, index) => {
      const kind = containerKind(item);
      const next = items[index + 1];
      if (kind === undefined || (next !== undefined && containerKind(next) !== kind)) return false;
      return (Array.isArray(item) ? item.length : Object.keys(item as object).length) > 1;
    })
  );
}

function hardBreaks(value: Json): boolean {
  if (Array.isArray(value)) return mustBreak(value);
  return value !== null && typeof value === 'object' && Object.keys(value).length > 0;
}

function containerKind(value: Json): 'array' | 'object' | undefined {
  if (Array.isArray(value)) return 'array';
  return value !== null && typeof value === 'object' ? 'object' : undefined;
}

/** One-line text of an array that holds no non-empty object (mustBreak is false). */
function flatText(items: Json[]): string {
  return `[${items.map((item) => (Array.isArray(item) ? flatText(item) : item !== null && typeof item === 'object' ? '{}' : scalar(item))).join(', ')}]`;
}

function scalar(value: null | boolean | number | string): string {
  return typeof value === 'number' ? printNumber(JSON.stringify(value)) : JSON.stringify(value);
}

/** prettier's number normalisation, for the forms JSON.stringify produces. */
function printNumber(raw: string): string {
  return raw
    .toLowerCase()
    .replace(/^([+-]?[\d.]+e)(?:\+|(-))?0*(\d)/, '$1$2$3')
    .replace(/^([+-]?[\d.]+)e[+-]?0+$/, '$1')
    .replace(/(\.\d+?)0+(?=e|$)/, '$1')
    .replace(/\.(?=e|$)/, '');
}

/** Width as prettier counts it; only plain ASCII is certain, anything else is left to prettier. */
function width(text: string): number {
  if (/[^\x20-\x7e]/.test(text)) throw new Unsure();
  return text.length;
}
