// YAML text → a small tree of located nodes. Every node knows its file:line:column; string scalars have
// their `${VAR}` references substituted with the build-time environment (the template is kept for config).
import {
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  parseDocument,
  visit,
  type Document,
  type Node as YamlNode,
} from 'yaml';
import type { SourceLocation, TemplatePart } from '../../shared/ir.js';
import { parseTemplate, rereadScalar, type Env } from '../../shared/env-template.js';
import type { Problems } from './problems.js';

export interface MapEntry {
  key: string;
  keyLoc: SourceLocation;
  value: Node;
}
export interface MapNode {
  kind: 'map';
  loc: SourceLocation;
  entries: MapEntry[];
  byKey: Map<string, MapEntry>;
}
export interface SeqNode {
  kind: 'seq';
  loc: SourceLocation;
  items: Node[];
}
export interface ScalarNode {
  kind: 'scalar';
  loc: SourceLocation;
  value: string | number | boolean | null;
  /** How it was written: quoted values never change type through substitution. */
  style: 'plain' | 'quoted' | 'block';
  /** The text as written in the file, e.g. '1.0' for a value YAML read as the number 1. */
  raw: string;
  /** Set when the string used `${VAR}` references: the parts before substitution. */
  template?: TemplatePart[];
  /**
   * Set when the scalar is exactly one reference: its value was re-read as a YAML scalar (`3000` → number).
   * The structure check turns it back into text (and clears the flag) where the key expects a string.
   */
  reread?: boolean;
  /** The substituted text before any re-reading. */
  resolvedText?: string;
  /** The value could not be computed (bad or unset reference); already reported, so checks skip it. */
  broken?: boolean;
  /** Column offset of character 0 of `value` when characters map one-to-one onto the line, else undefined. */
  valueColumn?: number;
}
export type Node = MapNode | SeqNode | ScalarNode;

/** Past this many nodes (alias expansion bombs) the document is refused instead of exhausting memory. */
export const MAX_NODES = 1_000_000;

const YAML_HINTS: Record<string, string> = {
  DUPLICATE_KEY: 'each key may appear once per mapping: remove or merge the repeated one',
  TAB_AS_INDENT: 'indent with spaces, not tabs',
  MULTIPLE_DOCS: "keep one YAML document per file: remove the '---' separator",
  BAD_INDENT: 'indent nested keys consistently with spaces, deeper than their parent key',
  MISSING_CHAR: "close the flow collection (']' or '}') or the quoted string",
  BLOCK_AS_IMPLICIT_KEY: "put a ':' after each key and quote values that contain ': ' or ' #'",
  MULTILINE_IMPLICIT_KEY: "a key must fit on one line: check for a missing ':' on the line above",
  UNEXPECTED_TOKEN: "quote the value if it contains ': ', ' #' or starts with one of @ ` | > % { [",
  BAD_ALIAS: 'define the anchor (&name) before using the alias (*name)',
};

export function parseYaml(
  file: string,
  text: string,
  env: Env,
  problems: Problems,
  /** What to write in an empty file: a whole spec by default; an included file says its own. */
  emptyHint = 'start it with: svc: 1',
): Node | undefined {
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true, merge: false });
  const locAt = (offset: number): SourceLocation => {
    const pos = lineCounter.linePos(offset);
    return { file, line: pos.line, column: pos.col };
  };
  if (doc.errors.length > 0) {
    // After the first syntax error the parser's view of the rest is unreliable and its follow-up errors
    // are mostly echoes; duplicate keys are independent, so all of them are kept.
    const firstSyntax = doc.errors.find((error) => error.code !== 'DUPLICATE_KEY');
    for (const error of doc.errors) {
      if (error.code !== 'DUPLICATE_KEY' && error !== firstSyntax) continue;
      const message =
        error.code === 'DUPLICATE_KEY'
          ? `duplicate key '${keyTextAt(text, error.pos[0])}'`
          : `invalid YAML: ${error.message.split('\n')[0]}`;
      const unclosed = /end with an? [\]}]/.test(error.message);
      const inFlowReference = text[error.pos[0] - 1] === '$' && text[error.pos[0]] === '{';
      const hint = inFlowReference
        ? "inside { } and [ ], quote references: port: '${PORT:-3000}'"
        : unclosed
          ? YAML_HINTS.MISSING_CHAR
          : (YAML_HINTS[error.code] ?? YAML_HINTS.UNEXPECTED_TOKEN);
      const openQuote = /Missing closing .?quote/.test(error.message)
        ? unclosedQuoteStart(doc, error.pos[0])
        : undefined;
      if (openQuote !== undefined) {
        problems.add(
          locAt(openQuote),
          '',
          `invalid YAML: this quoted string is never closed`,
          `end it with a matching ${text[openQuote]}`,
        );
      } else problems.add(locAt(error.pos[0]), '', message, hint);
    }
    return undefined;
  }
  if (doc.contents === null) {
    problems.add({ file, line: 1, column: 1 }, '', 'the file is empty', emptyHint);
    return undefined;
  }
  return new Converter(doc, text, env, problems, locAt).convert(doc.contents, []);
}

/** Where an unclosed quoted string starts: the parser reports the end of the file, the user needs the start. */
function unclosedQuoteStart(doc: Document, errorOffset: number): number | undefined {
  let start: number | undefined;
  visit(doc, {
    Scalar(_, node) {
      const [from, to] = node.range ?? [0, 0];
      if ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && to >= errorOffset) start ??= from;
    },
  });
  return start;
}

function keyTextAt(text: string, offset: number): string {
  const match = /^("(?:[^"\\]|\\.)*"|'(?:[^']|'')*'|[^:\n]*)/.exec(text.slice(offset));
  return (match?.[1] ?? '').trim().replace(/^["']|["']$/g, '');
}

class Converter {
  private nodes = 0;
  private readonly active = new Set<YamlNode>();

  constructor(
    private readonly doc: Document,
    private readonly text: string,
    private readonly env: Env,
    private readonly problems: Problems,
    private readonly locAt: (offset: number) => SourceLocation,
  ) {}

  convert(node: YamlNode, path: (string | number)[]): Node {
    const loc = this.locAt(node.range?.[0] ?? 0);
    if (++this.nodes > MAX_NODES)
      return this.refuse(loc, path, `the document expands to more than ${MAX_NODES} values`);
    if (isAlias(node)) {
      const target = node.resolve(this.doc);
      if (!target) return this.refuse(loc, path, `unknown alias *${node.source}`, YAML_HINTS.BAD_ALIAS);
      if (this.active.has(target))
        return this.refuse(loc, path, `alias *${node.source} refers to a value containing it`);
      return this.convert(target, path);
    }
    this.active.add(node);
    try {
      if (isMap(node)) return this.map(node.items, loc, path);
      if (isSeq(node)) {
        return {
          kind: 'seq',
          loc,
          items: node.items.map((item, i) => this.convert(item as YamlNode, [...path, i])),
        };
      }
      if (isScalar(node)) return this.scalar(node, loc, path);
      return this.refuse(loc, path, 'unsupported YAML value');
    } finally {
      this.active.delete(node);
    }
  }

  private map(
    pairs: readonly { key: unknown; value: unknown }[],
    loc: SourceLocation,
    path: (string | number)[],
  ): MapNode {
    const result: MapNode = { kind: 'map', loc, entries: [], byKey: new Map() };
    for (const pair of pairs) {
      const keyNode = pair.key as YamlNode | null;
      const keyLoc = keyNode?.range ? this.locAt(keyNode.range[0]) : loc;
      if (!isScalar(keyNode) || keyNode.value === null || typeof keyNode.value === 'object') {
        this.problems.add(
          keyLoc,
          path,
          'mapping keys must be plain text',
          'write the key as a word or a quoted string',
        );
        continue;
      }
      const key = String(keyNode.value);
      const valueNode = pair.value as YamlNode | null;
      const value: Node = valueNode
        ? this.convert(valueNode, [...path, key])
        : { kind: 'scalar', loc: keyLoc, value: null, style: 'plain', raw: '' };
      const entry: MapEntry = { key, keyLoc, value };
      result.entries.push(entry);
      result.byKey.set(key, entry);
    }
    return result;
  }

  private scalar(
    node: YamlNode & { value: unknown; type?: string | null },
    loc: SourceLocation,
    path: (string | number)[],
  ): ScalarNode {
    const [start, end] = node.range ?? [0, 0];
    const raw = this.text.slice(start, end);
    const style =
      node.type === 'PLAIN' || !node.type ? 'plain' : node.type.startsWith('BLOCK') ? 'block' : 'quoted';
    const value = node.value;
    if (typeof value !== 'string') {
      const plainValue =
        typeof value === 'number' || typeof value === 'boolean' || value === null ? value : String(value);
      return { kind: 'scalar', loc, value: plainValue, style, raw };
    }
    const result: ScalarNode = { kind: 'scalar', loc, value, style, raw };
    if (style === 'plain' && !raw.includes('\n') && raw === value) result.valueColumn = loc.column;
    if (style === 'quoted' && raw.slice(1, -1) === value) result.valueColumn = loc.column + 1;
    if (value.includes('${')) this.substitute(result, path);
    return result;
  }

  private substitute(scalar: ScalarNode, path: (string | number)[]): void {
    const text = scalar.value as string;
    const parsed = parseTemplate(text);
    if (!parsed.ok) {
      this.problems.add(locWithin(scalar, parsed.error.index), path, parsed.error.message, parsed.error.hint);
      scalar.broken = true;
      return;
    }
    if (!parsed.hasReference) {
      // Only `$${` escapes: the value is literal text.
      scalar.value = parsed.parts.join('');
      delete scalar.valueColumn;
      return;
    }
    let resolved = '';
    for (const part of parsed.parts) {
      if (typeof part === 'string') resolved += part;
      else {
        const value = this.env[part.env];
        if (part.default !== undefined && (value === undefined || value === '')) resolved += part.default;
        else if (value !== undefined) resolved += value;
        else {
          const at = locWithin(scalar, referenceIndex(text, part.env));
          this.problems.add(
            at,
            path,
            `environment variable ${part.env} is not set`,
            `set ${part.env}, or write \${${part.env}:-<default>}`,
          );
          scalar.broken = true;
        }
      }
    }
    scalar.template = parsed.parts;
    delete scalar.valueColumn;
    scalar.resolvedText = resolved;
    const [only] = parsed.parts;
    if (parsed.parts.length === 1 && typeof only === 'object') {
      scalar.reread = true;
      scalar.value = scalar.broken ? resolved : rereadScalar(resolved);
    } else scalar.value = resolved;
  }

  private refuse(loc: SourceLocation, path: (string | number)[], message: string, hint?: string): ScalarNode {
    this.problems.add(loc, path, message, hint);
    return { kind: 'scalar', loc, value: null, style: 'plain', raw: '', broken: true };
  }
}

function referenceIndex(text: string, name: string): number {
  const index = text.search(new RegExp(`\\$\\{${name}(?::-[^}]*)?\\}`));
  return index < 0 ? 0 : index;
}

/** Location of character `index` of a scalar's value, or the scalar itself when that cannot be mapped. */
export function locWithin(scalar: ScalarNode, index: number): SourceLocation {
  if (scalar.valueColumn === undefined) return scalar.loc;
  return { ...scalar.loc, column: scalar.valueColumn + index };
}

/** The plain JSON value of a node (what the IR stores). Keys are own properties, even '__proto__'. */
export function toPlain(node: Node): unknown {
  if (node.kind === 'scalar') return node.value;
  if (node.kind === 'seq') return node.items.map(toPlain);
  const out: Record<string, unknown> = {};
  for (const entry of node.entries) setOwn(out, entry.key, toPlain(entry.value));
  return out;
}

/** `record[key]` only when it is the record's own property: a YAML key such as 'constructor' must never
 *  reach Object.prototype. */
export function getOwn<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** The node a JSON pointer ('/properties/id/type') points at inside `node`, or the deepest one found. */
export function nodeAtPointer(
  node: Node,
  pointer: string,
): { node: Node; keyLoc?: SourceLocation; found: boolean } {
  let current: Node = node;
  let keyLoc: SourceLocation | undefined;
  if (pointer === '' || pointer === '#') return { node, found: true };
  const segments = pointer.replace(/^#/, '').split('/').slice(1).map(decodePointer);
  for (const segment of segments) {
    if (current.kind === 'map') {
      const entry = current.byKey.get(segment);
      if (!entry) return { node: current, keyLoc, found: false };
      keyLoc = entry.keyLoc;
      current = entry.value;
    } else if (current.kind === 'seq') {
      const item = current.items[Number(segment)];
      if (!item) return { node: current, keyLoc, found: false };
      keyLoc = undefined;
      current = item;
    } else return { node: current, keyLoc, found: false };
  }
  return { node: current, keyLoc, found: true };
}

function decodePointer(segment: string): string {
  return decodeURIComponent(segment).replace(/~1/g, '/').replace(/~0/g, '~');
}
