// Adding entries to a spec's YAML text without touching the rest of it. Specs are written and commented by
// people, so the edit is a set of splices at positions the parser reports: every byte outside the inserted
// lines (comments, blank lines, quoting, folded text, line endings) stays as it was.
import {
  Document,
  isMap,
  isScalar,
  parseDocument,
  Scalar,
  stringify,
  type Node as YamlNode,
  type Pair,
  type YAMLMap,
} from 'yaml';
import { SPEC_FILE } from '../shared/spec-file.js';

export interface SpecEntries {
  resources?: Record<string, unknown>;
  routes?: Record<string, unknown>;
  errors?: Record<string, unknown>;
}

export interface SpecEditOptions {
  /** Replace entries whose keys exist (in place, same position) instead of reporting them as conflicts. */
  force?: boolean;
  /** Modules to switch on when they are off: 'auth' | 'tenancy'. */
  enableModules?: readonly ('auth' | 'tenancy')[];
  /** The spec's file name, used in conflict paths. Default 'svc.config.yaml'. */
  file?: string;
  /** `text` already parsed (yaml's parseDocument, unchanged since): a caller that read it saves a parse. */
  document?: Document.Parsed;
}

export interface SpecEdit {
  /** The new text (=== the input when nothing changes). */
  text: string;
  /** Entries that already exist, as `svc.config.yaml#/resources/BlogPost`; non-empty only without force. */
  conflicts: string[];
  /** Modules switched on, e.g. ['auth', 'tenancy']. */
  enabled: string[];
}

const SECTIONS = ['resources', 'routes', 'errors'] as const;
type SectionName = (typeof SECTIONS)[number];

/** The specs' house width (prettier's too): a collection goes on one line in flow style only within it. */
const MAX_LINE = 110;
const DEFAULT_INDENT = 2;

/**
 * Adds `entries` to the spec `text`: each at the end of its section, indented and separated like the
 * section's own entries; a missing section is appended as a new top-level block. Existing keys are conflicts
 * (nothing changes) unless `force` replaces them in place. Throws when the text is not a YAML map, or when a
 * section to add to comes from another file (`$include`).
 */
export function editSpec(text: string, entries: SpecEntries, options: SpecEditOptions = {}): SpecEdit {
  const file = options.file ?? SPEC_FILE;
  const doc = options.document ?? parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${file} is not valid YAML: ${doc.errors[0]!.message}`);
  const top = doc.contents;
  if (!isMap(top) || top.flow) {
    throw new Error(`${file} must hold a block map of keys at the top level (svc: 1, name, version, ...)`);
  }
  const source = new SourceText(text, contentEnd(text, top));
  const layout = documentLayout(source, top);

  const additions = SECTIONS.map((name) => sectionAddition(source, top, name, entries[name], file)).filter(
    (addition) => addition.entries.length > 0,
  );
  const conflicts = additions.flatMap((addition) =>
    addition.entries
      .filter(([key]) => addition.existing.has(key))
      .map(([key]) => `${file}#/${addition.name}/${pointerToken(key)}`),
  );
  if (conflicts.length > 0 && !options.force) return { text, conflicts, enabled: [] };

  const edits = new Edits(source);
  const appended: SectionAddition[] = [];
  for (const addition of additions) {
    if (addition.pair) addToSection(source, edits, addition, addition.pair, layout);
    else appended.push(addition);
  }
  const enabled = enableModules(source, edits, top, options.enableModules ?? [], layout, file);
  for (const addition of appended) {
    const renderer = new Renderer(layout.step);
    const lines = addition.entries.flatMap(([key, value]) => renderer.entry(key, value, layout.indent));
    edits.appendBlock([`${addition.name}:`, ...lines]);
  }
  return { text: edits.apply(), conflicts: [], enabled };
}

// ---------------------------------------------------------------------------------------------------------
// Sections

interface SectionAddition {
  name: SectionName;
  /** The section's pair in the top-level map, when the file has one. */
  pair: Pair | undefined;
  /** The section's entries already in the file, by key. */
  existing: Map<string, Pair>;
  /** What to add, in the caller's order. */
  entries: [string, Plain][];
}

function sectionAddition(
  source: SourceText,
  top: YAMLMap,
  name: SectionName,
  given: Record<string, unknown> | undefined,
  file: string,
): SectionAddition {
  const entries = given === undefined ? [] : entriesOf(plainOf(given, name), name);
  const pair = pairOf(top, name);
  const existing = new Map<string, Pair>();
  if (pair && entries.length > 0) {
    const value = pair.value as YamlNode | null;
    if (isMap(value)) {
      const include = pairOf(value, '$include');
      if (include) {
        // The entries belong in that file; writing them beside `$include` would make the loader refuse.
        const from = include.value as YamlNode | null;
        const written = isScalar(from) ? String(from.value) : describe(source, from);
        throw new Error(
          `${file}: ${name} come from ${written} ($include): add the entries there, or inline the section, then run again.`,
        );
      }
      if (value.flow && value.items.length > 0) {
        throw new Error(
          `${file}: '${name}' is written as a flow map ({ ... }); write it as a block (one entry per line) to add entries`,
        );
      }
      for (const item of value.items) {
        const key = keyOf(item);
        if (key !== undefined) existing.set(key, item);
      }
    } else if (!isNullNode(value)) {
      throw new Error(`${file}: '${name}' must be a map of entries, found ${describe(source, value)}`);
    }
  }
  return { name, pair, existing, entries };
}

/** Replaces the existing keys in place and puts the others after the section's last entry. */
function addToSection(
  source: SourceText,
  edits: Edits,
  addition: SectionAddition,
  pair: Pair,
  layout: Layout,
): void {
  const value = pair.value as YamlNode | null;
  const map = isMap(value) && !value.flow && value.items.length > 0 ? value : undefined;
  if (!map) {
    // `routes:`, `routes: ~` or `routes: {}`: the key line keeps its comment, the entries follow as a block.
    const renderer = new Renderer(layout.step);
    const lines = addition.entries.flatMap(([key, entry]) => renderer.entry(key, entry, layout.indent));
    rewriteAsBlock(source, edits, pair, lines);
    return;
  }
  const indent = source.column(map.items[0]!.key as YamlNode);
  const renderer = new Renderer(nestedStep(source, map) ?? layout.step);
  const separated = usesBlankLines(source, map);
  const added: string[] = [];
  for (const [key, entry] of addition.entries) {
    const lines = renderer.entry(key, entry, indent);
    const current = addition.existing.get(key);
    if (current) replaceEntry(source, edits, current, indent, lines);
    else added.push(...(separated ? [''] : []), ...lines);
  }
  if (added.length > 0) edits.insertLines(endOfBlock(source, map, indent), added);
}

/** A whole entry, from its key through its value and the comments nested in it; comments above it stay. */
function replaceEntry(source: SourceText, edits: Edits, pair: Pair, indent: number, lines: string[]): void {
  const start = (pair.key as YamlNode).range![0];
  const end = source.extendOverComments(afterPair(source, pair), indent + 1);
  const atEof = end === source.text.length && !source.text.endsWith('\n');
  const text = [lines[0]!.slice(indent), ...lines.slice(1)].join(source.eol) + (atEof ? '' : source.eol);
  edits.replace(start, end, text);
}

/** `key:`, `key: ~` or `key: {}` becomes `key:` followed by the given block lines. */
function rewriteAsBlock(source: SourceText, edits: Edits, pair: Pair, lines: string[]): void {
  const key = pair.key as YamlNode;
  const value = pair.value as YamlNode | null;
  let lineOf = key.range![1];
  if (value && isWritten(source, value)) {
    edits.replace(key.range![1], value.range![1], ':');
    lineOf = value.range![1];
  }
  edits.insertLines(source.nextLineStart(lineOf), lines);
}

/**
 * Where lines go after a block map's last entry: past that entry's value and past the comment lines that
 * follow at the map's indentation or deeper (commented-out entries belong to the map), but before blank
 * lines and the less-indented comments that introduce the next key.
 */
function endOfBlock(source: SourceText, map: YAMLMap, indent: number): number {
  return source.extendOverComments(afterPair(source, map.items[map.items.length - 1]!), indent);
}

/** The start of the line after the pair's value (or key, when it has no value). */
function afterPair(source: SourceText, pair: Pair): number {
  const node = (pair.value as YamlNode | null) ?? (pair.key as YamlNode);
  const [start, end] = node.range!;
  // A block scalar's or block map's range takes its final line break; a plain scalar's stops before it.
  return source.nextLineStart(Math.max(start, end - 1));
}

/** Whether most gaps between the map's entries hold a blank line (a single entry says nothing: no). */
function usesBlankLines(source: SourceText, map: YAMLMap): boolean {
  let gaps = 0;
  let blank = 0;
  for (let i = 1; i < map.items.length; i++) {
    const from = afterPair(source, map.items[i - 1]!);
    const to = source.lineStart((map.items[i]!.key as YamlNode).range![0]);
    gaps++;
    if (source.linesBetween(from, to).some((line) => line.trim() === '')) blank++;
  }
  return blank * 2 > gaps;
}

/** How much deeper than its entries a map's first block-map entry indents its own keys. */
function nestedStep(source: SourceText, map: YAMLMap): number | undefined {
  for (const item of map.items) {
    const value = item.value as YamlNode | null;
    if (isMap(value) && !value.flow && value.items.length > 0) {
      const step = source.column(value.items[0]!.key as YamlNode) - source.column(item.key as YamlNode);
      if (step > 0) return step;
    }
  }
  return undefined;
}

// ---------------------------------------------------------------------------------------------------------
// Modules

type ModuleName = NonNullable<SpecEditOptions['enableModules']>[number];

function enableModules(
  source: SourceText,
  edits: Edits,
  top: YAMLMap,
  requested: readonly ModuleName[],
  layout: Layout,
  file: string,
): string[] {
  const modulesPair = pairOf(top, 'modules');
  const modules = modulesPair?.value as YamlNode | null | undefined;
  const off = [...new Set(requested)].filter((name) => !isModuleOn(modules, name));
  if (off.length === 0) return [];
  const line = (name: string, indent: number): string => `${' '.repeat(indent)}${name}: true`;

  if (!modulesPair) {
    const block = ['modules:', ...off.map((name) => line(name, layout.indent))];
    // Before the declarations, so the settings stay at the head of the file with server: and stores:;
    // at the end when the file declares nothing yet.
    const first = top.items.find((item) => SECTIONS.some((name) => keyOf(item) === name));
    if (first) edits.insertLines(source.commentsAbove((first.key as YamlNode).range![0]), [...block, '']);
    else edits.appendBlock(block);
  } else if (isMap(modules) && (modules.flow || modules.items.length > 0)) {
    // A module written as off is switched in place: a second key would be a duplicate the loader refuses.
    const missing: string[] = [];
    for (const name of off) {
      const existing = pairOf(modules, name);
      if (existing) switchOn(source, edits, existing);
      else missing.push(name);
    }
    if (missing.length > 0 && modules.flow) {
      addToFlowMap(
        source,
        edits,
        modules,
        missing.map((name) => `${name}: true`),
      );
    } else if (missing.length > 0) {
      const indent = source.column(modules.items[0]!.key as YamlNode);
      const lines = missing.map((name) => line(name, indent));
      edits.insertLines(endOfBlock(source, modules, indent), lines);
    }
  } else if (isNullNode(modules)) {
    rewriteAsBlock(
      source,
      edits,
      modulesPair,
      off.map((name) => line(name, layout.indent)),
    );
  } else {
    throw new Error(`${file}: 'modules' must be a map, found ${describe(source, modules ?? null)}`);
  }
  return off;
}

/** A module is on when its key is there with a value other than false or null. */
/** Whether `modules.<name>` is on, as the spec loader reads it: `true` or a mapping of its options. */
export function isModuleOn(modules: unknown, name: string): boolean {
  if (!isMap(modules)) return false;
  const value = pairOf(modules, name)?.value as YamlNode | null | undefined;
  return isMap(value) || (isScalar(value) && value.value === true);
}

/** `auth: false`, `auth: ~`, `auth:` or a flow map's bare `auth` becomes `auth: true`, the rest kept. */
function switchOn(source: SourceText, edits: Edits, pair: Pair): void {
  const value = pair.value as YamlNode | null;
  if (value && isWritten(source, value)) {
    edits.replace(value.range![0], value.range![1], 'true');
  } else {
    const { end, colon } = afterKey(source, pair);
    edits.replace(end, end, colon ? ' true' : ': true');
  }
}

/** `, a: true` after a flow map's last pair, or `{ a: true }` for `{}`. */
function addToFlowMap(source: SourceText, edits: Edits, map: YAMLMap, pairs: string[]): void {
  const last = map.items[map.items.length - 1];
  if (!last) {
    edits.replace(map.range![0], map.range![1], `{ ${pairs.join(', ')} }`);
    return;
  }
  const value = last.value as YamlNode | null;
  // After an unwritten value's colon (where switchOn puts its `true`), not after the blanks that follow it.
  const end = value && isWritten(source, value) ? value.range![1] : afterKey(source, last).end;
  edits.replace(end, end, `, ${pairs.join(', ')}`);
}

/** Where a pair without a written value ends: after its colon, or after its key (`{ auth }` has none). */
function afterKey(source: SourceText, pair: Pair): { end: number; colon: boolean } {
  const keyEnd = (pair.key as YamlNode).range![1];
  const colon = /^\s*:/.exec(source.text.slice(keyEnd));
  return colon ? { end: keyEnd + colon[0].length, colon: true } : { end: keyEnd, colon: false };
}

// ---------------------------------------------------------------------------------------------------------
// The document's text and layout

interface Layout {
  /** Where top-level maps put their keys (the indentation of a new section's entries). */
  indent: number;
  /** How much deeper each nested level goes. */
  step: number;
}

function documentLayout(source: SourceText, top: YAMLMap): Layout {
  for (const item of top.items) {
    const value = item.value as YamlNode | null;
    if (isMap(value) && !value.flow && value.items.length > 0) {
      const indent = source.column(value.items[0]!.key as YamlNode);
      if (indent > 0) return { indent, step: nestedStep(source, value) ?? indent };
    }
  }
  return { indent: DEFAULT_INDENT, step: DEFAULT_INDENT };
}

/**
 * Where the document's content ends: the start of its document-end marker line (`...`, maybe with a comment),
 * which only comments may follow (content after it would be a second document), or else the end of the text.
 */
function contentEnd(text: string, top: YAMLMap): number {
  const marker = /^\.\.\.(?=[ \t]|\r?$)/gm;
  marker.lastIndex = top.range![2];
  const found = marker.exec(text);
  return found ? found.index : text.length;
}

class SourceText {
  /** The line break new lines use: the file's own (CRLF files stay CRLF). */
  readonly eol: string;

  /**
   * @param contentEnd where new top-level blocks go: the end of the text, or the start of the line of a
   *   document-end marker (`...`).
   */
  constructor(
    readonly text: string,
    readonly contentEnd: number = text.length,
  ) {
    const first = text.indexOf('\n');
    this.eol = first > 0 && text[first - 1] === '\r' ? '\r\n' : '\n';
  }

  lineStart(offset: number): number {
    return this.text.lastIndexOf('\n', offset - 1) + 1;
  }

  /** The start of the line after the one holding `offset`; the text's end on its last line. */
  nextLineStart(offset: number): number {
    const end = this.text.indexOf('\n', offset);
    return end === -1 ? this.text.length : end + 1;
  }

  column(node: YamlNode): number {
    const offset = node.range![0];
    return offset - this.lineStart(offset);
  }

  /** The lines from `from` (a line start) up to `to`, without their line breaks. */
  linesBetween(from: number, to: number): string[] {
    const lines: string[] = [];
    for (let at = from; at < to; at = this.nextLineStart(at)) lines.push(this.lineFrom(at));
    return lines;
  }

  /** From a line start, past the lines that are comments indented `minIndent` or deeper (and blank lines
   * between them), up to the start of the next line that is anything else. */
  extendOverComments(from: number, minIndent: number): number {
    let end = from;
    for (let at = from; at < this.text.length; at = this.nextLineStart(at)) {
      const line = this.lineFrom(at);
      const content = line.trimStart();
      if (content === '') continue;
      if (!content.startsWith('#') || line.length - content.length < minIndent) break;
      end = this.nextLineStart(at);
    }
    return end;
  }

  /** The start of the comment lines directly above the line holding `offset` (no blank line between). */
  commentsAbove(offset: number): number {
    let start = this.lineStart(offset);
    while (start > 0) {
      const previous = this.lineStart(start - 1);
      if (!this.lineFrom(previous).trimStart().startsWith('#')) break;
      start = previous;
    }
    return start;
  }

  private lineFrom(start: number): string {
    const end = this.text.indexOf('\n', start);
    return this.text.slice(start, end === -1 ? this.text.length : end).replace(/\r$/, '');
  }
}

/** Splices on the original text, applied together so that every position stays the parser's. */
class Edits {
  private readonly splices: { start: number; end: number; text: string }[] = [];

  constructor(private readonly source: SourceText) {}

  replace(start: number, end: number, text: string): void {
    this.splices.push({ start, end, text });
  }

  /** Whole lines at a line start (or at the end of a text whose last line has no line break). */
  insertLines(at: number, lines: string[]): void {
    const { text, eol } = this.source;
    const unterminated = at === text.length && text.length > 0 && !text.endsWith('\n');
    this.replace(at, at, unterminated ? eol + lines.join(eol) : lines.join(eol) + eol);
  }

  /** A new top-level block at the end of the document's content, after a blank line. */
  appendBlock(lines: string[]): void {
    const { text, contentEnd: end } = this.source;
    const endsBlank = /(^|\n)[ \t]*\r?\n$/.test(text.slice(0, end));
    const afterOther = this.splices.some((splice) => splice.start === end);
    this.insertLines(end, endsBlank && !afterOther ? lines : ['', ...lines]);
  }

  apply(): string {
    const { text } = this.source;
    // Stable: splices at one position keep the order they were made in.
    const ordered = [...this.splices].sort((a, b) => a.start - b.start);
    let out = '';
    let at = 0;
    for (const splice of ordered) {
      if (splice.start < at) throw new Error('internal error: overlapping spec edits');
      out += text.slice(at, splice.start) + splice.text;
      at = splice.end;
    }
    return out + text.slice(at);
  }
}

function pairOf(map: YAMLMap, key: string): Pair | undefined {
  return map.items.find((item) => keyOf(item) === key);
}

function keyOf(pair: Pair): string | undefined {
  return isScalar(pair.key) ? String(pair.key.value) : undefined;
}

function isNullNode(node: YamlNode | null | undefined): boolean {
  return node === null || node === undefined || (isScalar(node) && node.value === null);
}

/** Whether a node has text of its own (`~`, `null`, `{}`), unlike the empty value of `key:`. */
function isWritten(source: SourceText, node: YamlNode): boolean {
  const [start, end] = node.range!;
  return source.text.slice(start, end).trim() !== '';
}

function describe(source: SourceText, node: YamlNode | null): string {
  if (!node) return 'nothing';
  const [start, end] = node.range!;
  const text = source.text.slice(start, end).trim();
  return `'${text.length > 40 ? `${text.slice(0, 40)}…` : text}'`;
}

/** A key as one JSON-pointer step. */
function pointerToken(key: string): string {
  return key.replaceAll('~', '~0').replaceAll('/', '~1');
}

// ---------------------------------------------------------------------------------------------------------
// Rendering new values in the specs' house style

type Plain = string | number | boolean | null | Plain[] | { [key: string]: Plain };
type PlainMap = { [key: string]: Plain };

/** The value as plain data; `undefined` map values are left out, as JSON does. */
function plainOf(value: unknown, path: string): Plain {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return value;
  } else if (Array.isArray(value)) {
    return value.map((item, i) => plainOf(item, `${path}/${i}`));
  } else if (isPlainObject(value)) {
    const map: PlainMap = {};
    for (const [key, item] of Object.entries(value)) {
      if (item !== undefined) map[key] = plainOf(item, `${path}/${pointerToken(key)}`);
    }
    return map;
  }
  throw new Error(`cannot write ${path} into the spec: ${String(value)} is not a YAML value`);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function isPlainMap(value: Plain): value is PlainMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function entriesOf(value: Plain, section: string): [string, Plain][] {
  if (!isPlainMap(value)) throw new Error(`the entries for '${section}' must be a map of names to values`);
  return Object.entries(value);
}

function isFilled(value: Plain): value is Plain[] | PlainMap {
  return Array.isArray(value) ? value.length > 0 : isPlainMap(value) && Object.keys(value).length > 0;
}

const STRINGIFY = { singleQuote: true, lineWidth: 0 } as const;
const FLOW = { ...STRINGIFY, collectionStyle: 'flow', flowCollectionPadding: false } as const;

/**
 * Block style, except that a collection of scalars (or of such small collections) that fits on its line is
 * written in flow style, `{ type: string, format: uuid }` or `[id, name]`. Tables of schemas (properties,
 * params, query) keep one entry per line, as the specs write them.
 */
class Renderer {
  constructor(private readonly step: number) {}

  /** A section entry: always a block, like every entry the specs declare. */
  entry(key: string, value: Plain, indent: number): string[] {
    return this.pair(key, value, indent, true);
  }

  private pair(key: string, value: Plain, indent: number, block = false): string[] {
    const head = `${' '.repeat(indent)}${blockKey(key)}:`;
    if (!isFilled(value)) return this.scalar(head, value, indent, false);
    const flow = block || isSchemaTable(key, value) ? undefined : flowOf(value);
    if (flow !== undefined && head.length + 1 + flow.length <= MAX_LINE) return [`${head} ${flow}`];
    return [head, ...this.block(value, indent + this.step)];
  }

  private block(value: Plain[] | PlainMap, indent: number): string[] {
    if (Array.isArray(value)) return value.flatMap((item) => this.item(item, indent));
    return Object.entries(value).flatMap(([key, item]) => this.pair(key, item, indent));
  }

  private item(value: Plain, indent: number): string[] {
    const dash = `${' '.repeat(indent)}- `;
    if (!isFilled(value)) return this.scalar(dash.trimEnd(), value, indent, true);
    const flow = flowOf(value);
    if (flow !== undefined && dash.length + flow.length <= MAX_LINE) return [`${dash}${flow}`];
    // The item's lines sit two columns in, the first of them behind the dash.
    const lines = this.block(value, indent + 2);
    return [`${dash}${lines[0]!.slice(indent + 2)}`, ...lines.slice(1)];
  }

  /** A scalar (or empty collection) after `head`; a long one-line string is folded (`>-`) to the width. */
  private scalar(head: string, value: Plain, indent: number, asItem: boolean): string[] {
    // yaml writes `x:` or `-` at column 0; the lines after the first are relative to it.
    const marker = asItem ? 1 : 2;
    let lines = this.stringifyAlone(value, asItem, undefined);
    const tooLong = head.length + lines[0]!.length - marker > MAX_LINE;
    if (typeof value === 'string' && !value.includes('\n') && lines.length === 1 && tooLong) {
      lines = this.stringifyAlone(value, asItem, Math.max(MAX_LINE - indent, 40));
    }
    const pad = ' '.repeat(indent);
    return [
      head + lines[0]!.slice(marker),
      ...lines.slice(1).map((line) => (line === '' ? line : pad + line)),
    ];
  }

  /** yaml's text for the value alone, on one line unless `foldAt` asks for a folded block that wide. */
  private stringifyAlone(value: Plain, asItem: boolean, foldAt: number | undefined): string[] {
    const doc = new Document(asItem ? [value] : { x: value });
    const node = doc.get(asItem ? 0 : 'x', true);
    if (foldAt !== undefined && node instanceof Scalar) node.type = Scalar.BLOCK_FOLDED;
    const options = { ...STRINGIFY, indent: this.step, lineWidth: foldAt ?? 0 };
    return doc.toString(options).replace(/\n$/, '').split('\n');
  }
}

/** Maps whose keys are names and whose values are schemas: the specs give each name a line of its own. */
const SCHEMA_TABLES = new Set(['properties', 'patternProperties', 'params', 'query', 'headers', '$defs']);

/** A table of schemas, or any map of several maps (`response` with two statuses): one entry per line. */
function isSchemaTable(key: string, value: Plain): boolean {
  if (!isPlainMap(value) || !isFilled(value)) return false;
  const items = Object.values(value);
  return (
    SCHEMA_TABLES.has(key) || (items.length > 1 && items.every((item) => isPlainMap(item) && isFilled(item)))
  );
}

/** The one-line flow text of a collection, or undefined when it must be a block. */
function flowOf(value: Plain): string | undefined {
  if (Array.isArray(value)) {
    const items = value.map(flowOf);
    return items.every((item) => item !== undefined) ? `[${items.join(', ')}]` : undefined;
  }
  if (isPlainMap(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return '{}';
    const parts: string[] = [];
    for (const [key, item] of entries) {
      const flow = isSchemaTable(key, item) ? undefined : flowOf(item);
      if (flow === undefined) return undefined;
      parts.push(`${flowKey(key)}: ${flow}`);
    }
    return `{ ${parts.join(', ')} }`;
  }
  if (typeof value === 'string' && value.includes('\n')) return undefined;
  const text = stringify([value], FLOW);
  return text.slice(1, -2);
}

/** Status codes and other small integers stay numbers as the specs write them (`200:`). */
const NUMBER_KEY = /^(0|[1-9][0-9]{0,14})$/;

function blockKey(key: string): string {
  if (NUMBER_KEY.test(key)) return key;
  return keyText(stringify(new Map([[key, 0]]), STRINGIFY), key, '', ': 0\n');
}

function flowKey(key: string): string {
  if (NUMBER_KEY.test(key)) return key;
  return keyText(stringify(new Map([[key, 0]]), FLOW), key, '{', ': 0}\n');
}

function keyText(text: string, key: string, before: string, after: string): string {
  if (!text.startsWith(before) || !text.endsWith(after) || text.startsWith(`${before}?`)) {
    throw new Error(`cannot write the key ${JSON.stringify(key)} into the spec on one line`);
  }
  return text.slice(before.length, -after.length);
}
