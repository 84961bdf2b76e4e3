// Words for messages: what a value is ("'abc'", "a list") and what a schema expects ("an integer").
import type { Node } from './yaml-tree.js';

export const TYPE_WORDS: Record<string, string> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  boolean: 'true or false',
  null: 'null',
  object: 'a mapping',
  array: 'a list',
};

/** What the user wrote, for "but got …": `'abc'`, `70000`, `a list`, `nothing`; notes an env reference. */
export function describeNode(node: Node): string {
  if (node.kind === 'map') return 'a mapping';
  if (node.kind === 'seq') return 'a list';
  const from = node.template ? ` (from ${node.raw.trim()})` : '';
  if (node.value === null) return node.raw === '' ? 'nothing' : 'null';
  if (typeof node.value === 'string') return `'${truncate(node.value)}'${from}`;
  // `1.0` is read as the number 1; show what was written.
  return node.template === undefined && node.raw !== '' ? truncate(node.raw) : `${String(node.value)}${from}`;
}

/** JSON types the node's value has; an integer is also a number. */
export function nodeTypes(node: Node): string[] {
  if (node.kind === 'map') return ['object'];
  if (node.kind === 'seq') return ['array'];
  const value = node.value;
  if (value === null) return ['null'];
  if (typeof value === 'number') return Number.isInteger(value) ? ['integer', 'number'] : ['number'];
  return [typeof value];
}

export function quoteList(values: readonly unknown[]): string {
  return values.map((value) => (typeof value === 'string' ? value : JSON.stringify(value))).join(', ');
}

export function truncate(text: string, max = 60): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** A value written the way it would appear in YAML flow style, for hints ("add path: /notes/:id"). */
export function inlineYaml(value: unknown): string {
  if (typeof value === 'string')
    return /^[\w/.:${}-][\w/ .:${}-]*$/.test(value) && !/: /.test(value) ? value : JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(inlineYaml).join(', ')}]`;
  if (value && typeof value === 'object') {
    return `{ ${Object.entries(value)
      .map(([key, item]) => `${key}: ${inlineYaml(item)}`)
      .join(', ')} }`;
  }
  return String(value);
}

export function pathLabel(path: readonly (string | number)[]): string {
  return path.join('.');
}

/** "routes.getNote.method: " or '' at the root, to prefix messages with where the value sits. */
export function at(path: readonly (string | number)[]): string {
  return path.length === 0 ? '' : `${pathLabel(path)}: `;
}

/** "in routes.getNote.meta" or "at the top level". */
export function inWhere(path: readonly (string | number)[]): string {
  return path.length === 0 ? 'at the top level' : `in ${pathLabel(path)}`;
}
