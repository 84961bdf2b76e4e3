// Reformatting only what changed. A build after a small spec edit (`svc make:resource` adds one resource)
// generates files whose statements are mostly those the last build formatted, and prettier prints each chunk
// of statements alone as it prints it in the file (statement-chunks.ts). So for each TypeScript and
// JavaScript output, .svc/format-cache/ keeps the source the last build formatted, the formatted text and
// where their chunks lie; the next build finds those chunks again in its source, reuses their formatted text,
// and formats only the text between them. A missing, foreign or damaged entry, options it cannot vouch for, or
// a source it cannot follow is formatted whole, as without the cache: the bytes are the same either way.
// Long interfaces and constant literals are first cut into one declaration per member (declaration-split.ts),
// so that their members are chunks too.
import { createHash } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import type { Options } from 'prettier';
import {
  chunksOf,
  endsHard,
  formattedChunks,
  isPlainProgram,
  separator,
  statementCount,
  type Chunk,
  type IndexedChunk,
  type ParsedProgram,
  type ParseProgram,
} from './statement-chunks.js';
import {
  cutDeclarations,
  joinDeclarations,
  mayHoldLongDeclaration,
  type CutSource,
} from './declaration-split.js';

const VERSION = 2;
/** A file of fewer chunks (a few long statements) changes in most of them: nothing is reused. */
const MIN_CHUNKS = 8;
/** How many chunks past a change the walk looks for one it knows (a removed resource skips a few). */
const LOOKAHEAD = 64;
/** New text this long is formatted in parts, so a format worker takes some while this thread takes others. */
const PART_BYTES = 64 * 1024;
const MAX_PARTS = 8;

interface StoredChunk extends Chunk {
  formattedStart: number;
  formattedEnd: number;
}

interface Entry {
  /** prettier's version and the file's options: another key formats differently, so nothing is reused. */
  key: string;
  /** 'coarse': too few chunks to be worth it; nothing is reused. */
  chunks: StoredChunk[] | 'coarse';
  /** A coarse entry's source length: a source grown to twice that is looked at again. */
  size?: number;
  source: string;
  formatted: string;
}

/** Text to format, with its chunks (offsets in `text`) and its count of non-empty statements. */
interface NewText {
  text: string;
  chunks: IndexedChunk[];
  statements: number;
}

/** A run of the new source, at `start`, after `separator`: a chunk found again, or text to format. */
type Piece = ({ kind: 'reused'; chunk: StoredChunk } | ({ kind: 'new' } & NewText)) & {
  start: number;
  separator: string;
};

type NewPiece = Extract<Piece, { kind: 'new' }>;
type FormatText = (source: string) => Promise<string>;
type FormatWhole = (source: string, options: Options) => Promise<string>;

export class FormatCache {
  private readonly previous = new Map<string, Entry>();
  private readonly next = new Map<string, Entry>();
  private readonly formattedPaths = new Set<string>();

  private constructor(
    private readonly projectDir: string,
    private readonly prettierVersion: string,
    private readonly parsers: Record<'babel' | 'babel-ts', ParseProgram>,
    private readonly records: boolean,
    private readonly formatWhole: FormatWhole,
  ) {}

  /**
   * The cache of a project, in its .svc/; `read()` the entries of the files to format before `format()`.
   * `record: false` (a check, which writes nothing) only reuses: it saves the work of noting the new chunks.
   */
  static async open(projectDir: string, options: { record?: boolean } = {}): Promise<FormatCache> {
    const [prettier, { parsers }] = await Promise.all([import('prettier'), import('prettier/plugins/babel')]);
    const parserOf =
      (name: 'babel' | 'babel-ts'): ParseProgram =>
      (text) =>
        parsers[name].parse(text, { parser: name } as never) as ParsedProgram;
    const parse = { babel: parserOf('babel'), 'babel-ts': parserOf('babel-ts') };
    return new FormatCache(
      projectDir,
      prettier.version,
      parse,
      options.record ?? true,
      (text, formatOptions) => prettier.format(text, formatOptions),
    );
  }

  /** Reads what the last build left for these output files (absolute paths). */
  async read(paths: readonly string[]): Promise<void> {
    await Promise.all(paths.map((path) => this.readEntry(path)));
  }

  /**
   * `source` formatted with `options`, byte for byte as `formatText` (prettier) formats it whole: the chunks
   * the last build formatted are reused, the rest goes through `formatText`, in parts when it is long.
   * Everything `formatText` is asked is asked before this returns, so a FormatPool drain started right
   * after sees it. `parsed`: the source's parse with the file's parser, when the caller has it.
   */
  format(
    path: string,
    source: string,
    options: Options,
    formatText: FormatText,
    parsed?: ParsedProgram,
  ): Promise<string> {
    this.formattedPaths.add(path);
    const parser = cacheableParser(path, source, options);
    if (parser === undefined) return formatText(source);
    const cut = declarationsCut(source, parsed ? () => parsed : this.parsers[parser], options);
    if (cut === undefined) return this.formatChunks(path, source, options, parser, formatText);
    // The seams not found as made (never seen): formatted whole here, as the pool may be drained by then.
    return this.formatChunks(path, cut.text, options, parser, formatText).then(
      (formatted) => joinDeclarations(formatted, cut) ?? this.formatWhole(source, options),
    );
  }

  private formatChunks(
    path: string,
    source: string,
    options: Options,
    parser: 'babel' | 'babel-ts',
    formatText: FormatText,
  ): Promise<string> {
    const key = keyOf(this.prettierVersion, options, parser);
    const parse = this.parsers[parser];
    const stored = this.previous.get(path);
    const entry = stored?.key === key ? stored : undefined;
    if (entry?.chunks === 'coarse' && source.length < PART_BYTES && source.length <= 2 * (entry.size ?? 0)) {
      this.next.set(path, entry);
      return formatText(source);
    }
    // The very source the last build formatted: its text as it stands, and its entry kept (not written again).
    if (entry !== undefined && entry.chunks !== 'coarse' && entry.source === source) {
      this.next.set(path, entry);
      return Promise.resolve(entry.formatted);
    }
    const found = entry && entry.chunks !== 'coarse' ? reusablePieces(source, entry, parse) : undefined;
    const pieces = (found ?? wholePiece(source, parse))?.flatMap((piece): Piece[] =>
      piece.kind === 'new' ? inParts(piece) : [piece],
    );
    if (pieces === undefined) return formatText(source);
    const texts = pieces.map((piece) => (piece.kind === 'new' ? formatText(piece.text) : undefined));
    return Promise.all(texts).then((formattedTexts) => {
      const remember = this.records && (found !== undefined || countChunks(pieces) >= MIN_CHUNKS);
      const chunks: StoredChunk[] = [];
      let output = '';
      for (const [index, piece] of pieces.entries()) {
        output += piece.separator;
        const text =
          piece.kind === 'reused'
            ? entry!.formatted.slice(piece.chunk.formattedStart, piece.chunk.formattedEnd)
            : formattedTexts[index]!.slice(0, -1);
        if (remember && piece.kind === 'reused') chunks.push(moved(piece.chunk, piece.start, output.length));
        if (remember && piece.kind === 'new')
          chunks.push(...newChunks(piece, `${text}\n`, output.length, parse));
        output += text;
      }
      output += '\n';
      if (!remember) {
        if (this.records)
          this.next.set(path, { key, chunks: 'coarse', size: source.length, source: '', formatted: '' });
        return output;
      }
      chunks.at(-1)!.end = source.length;
      this.next.set(path, { key, chunks, source, formatted: output });
      return output;
    });
  }

  /** Writes the entries of the files this build formatted; one it could not follow loses its entry. */
  async save(): Promise<void> {
    await mkdir(cacheDir(this.projectDir), { recursive: true });
    await Promise.all(
      [...this.formattedPaths].map((path) => {
        const entry = this.next.get(path);
        if (!entry) return rm(this.fileOf(path), { force: true });
        if (entry === this.previous.get(path)) return undefined;
        const json = JSON.stringify(entry);
        return writeFile(this.fileOf(path), `${sha256(json)}\n${json}`);
      }),
    );
  }

  private async readEntry(path: string): Promise<void> {
    try {
      // `<sha256 of the JSON>\n<JSON>`: a damaged entry is ignored.
      const stored = await readFile(this.fileOf(path), 'utf8');
      const newline = stored.indexOf('\n');
      const json = stored.slice(newline + 1);
      if (newline > 0 && stored.slice(0, newline) === sha256(json))
        this.previous.set(path, JSON.parse(json) as Entry);
    } catch {
      // No entry, or not one this version reads: the file is formatted whole.
    }
  }

  private fileOf(path: string): string {
    const name = sha256(relative(this.projectDir, path)).slice(0, 32);
    return join(cacheDir(this.projectDir), `${name}.json`);
  }
}

function cacheDir(projectDir: string): string {
  return join(projectDir, '.svc', 'format-cache');
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** The babel parser the file is formatted with, when the cache can vouch for its options; else undefined. */
function cacheableParser(path: string, source: string, options: Options): 'babel' | 'babel-ts' | undefined {
  const parser: unknown = options.parser ?? (path.endsWith('.js') ? 'babel' : undefined);
  if (parser !== 'babel' && parser !== 'babel-ts') return undefined;
  // A plugin may rewrite the whole file (sorting imports); pragmas, ranges and CRLF work on the whole text.
  if (options.plugins !== undefined && options.plugins.length > 0) return undefined;
  if (options.requirePragma || options.insertPragma) return undefined;
  if (options.rangeStart !== undefined || options.rangeEnd !== undefined) return undefined;
  if (options.endOfLine !== undefined && options.endOfLine !== 'lf' && options.endOfLine !== 'auto')
    return undefined;
  return source.includes('\r') ? undefined : parser;
}

/** The source with its long declarations cut (declaration-split.ts), or undefined when it has none or cannot be parsed. */
function declarationsCut(source: string, parse: ParseProgram, options: Options): CutSource | undefined {
  // Most files have no declaration of many members; only those that may are parsed here.
  if (!mayHoldLongDeclaration(source)) return undefined;
  try {
    const parsed = parse(source);
    return isPlainProgram(parsed) ? cutDeclarations(source, parsed, options) : undefined;
  } catch {
    return undefined;
  }
}

function keyOf(prettierVersion: string, options: Options, parser: string): string {
  const { filepath: _filepath, ...rest } = options;
  const sorted = Object.fromEntries(Object.entries({ ...rest, parser }).sort(([a], [b]) => (a < b ? -1 : 1)));
  return JSON.stringify({ version: VERSION, prettier: prettierVersion, options: sorted });
}

/** The source as one piece of new text, or undefined when it cannot be chunked. */
function wholePiece(source: string, parse: ParseProgram): Piece[] | undefined {
  try {
    const parsed = parse(source);
    // Only comments, or nothing: prettier's answer need not end with a line break; leave it to prettier.
    if (!isPlainProgram(parsed) || statementCount(parsed) === 0) return undefined;
    const chunks = chunksOf(source, parsed);
    return [
      { kind: 'new', text: source, chunks, statements: statementCount(parsed), start: 0, separator: '' },
    ];
  } catch {
    return undefined;
  }
}

/**
 * The new source as chunks of the entry found again and new text between them, or undefined when it cannot
 * be split so that formatting the pieces gives the bytes of formatting it whole.
 */
function reusablePieces(source: string, entry: Entry, parse: ParseProgram): Piece[] | undefined {
  const chunks = entry.chunks as StoredChunk[];
  const last = chunks.length - 1;
  const textOf = (chunk: StoredChunk) => entry.source.slice(chunk.start, chunk.end);
  const foundAt = (index: number, at: number) =>
    source.startsWith(textOf(chunks[index]!), at) &&
    (index < last || at + chunks[index]!.end - chunks[index]!.start === source.length);
  const pieces: Piece[] = [];
  let at = 0;
  let next = 0;
  let gap = '';
  try {
    while (at < source.length) {
      const before = at === 0 ? '' : separator(gap, 0, gap.length);
      if (next <= last && foundAt(next, at)) {
        const chunk = chunks[next]!;
        if (chunk.leadingComment && at > 0 && !gap.includes('\n')) return undefined;
        pieces.push({ kind: 'reused', chunk, start: at, separator: before });
        at += chunk.end - chunk.start;
        next++;
      } else {
        const resumed = resume(source, chunks, textOf, next, at);
        const isLast = resumed.at === source.length;
        const text = isLast ? source.slice(at) : source.slice(at, resumed.at).trimEnd();
        const parsed = parse(text);
        const body = parsed.program.body;
        if (!isPlainProgram(parsed) || statementCount(parsed) === 0) return undefined;
        // Text of its own before its first statement is a comment: it must start a line.
        if (at > 0 && body[0]!.start > 0 && !gap.includes('\n')) return undefined;
        // Followed by a chunk: it must end with a statement nothing can continue, not with a comment.
        if (!isLast && (body.at(-1)!.end !== text.length || !endsHard(text, body.at(-1)!))) return undefined;
        const statements = statementCount(parsed);
        pieces.push({
          kind: 'new',
          text,
          chunks: chunksOf(text, parsed),
          statements,
          start: at,
          separator: before,
        });
        at += text.length;
        next = resumed.next;
      }
      const following = skipWhitespace(source, at);
      gap = source.slice(at, following);
      at = following;
    }
  } catch {
    return undefined;
  }
  return pieces.length > 0 ? pieces : undefined;
}

/** Where the walk finds a known chunk again after new text at `at`: the nearest of the next few. */
function resume(
  source: string,
  chunks: readonly StoredChunk[],
  textOf: (chunk: StoredChunk) => string,
  next: number,
  at: number,
): { at: number; next: number } {
  let best = { at: source.length, next: chunks.length };
  const last = chunks.length - 1;
  for (let index = next; index <= Math.min(last, next + LOOKAHEAD); index++) {
    const text = textOf(chunks[index]!);
    const found =
      index === last
        ? source.endsWith(text)
          ? source.length - text.length
          : -1
        : source.indexOf(text, at + 1);
    if (found > at && found < best.at && /\s|[;}]/.test(source[found - 1]!))
      best = { at: found, next: index };
  }
  return best;
}

function skipWhitespace(text: string, from: number): number {
  let index = from;
  while (index < text.length && /\s/.test(text[index]!)) index++;
  return index;
}

/** Long new text as parts that end where its chunks do, so they can be formatted on two threads. */
function inParts(piece: NewPiece): NewPiece[] {
  const { text, chunks } = piece;
  const count = Math.min(MAX_PARTS, chunks.length, Math.floor(text.length / PART_BYTES));
  if (count < 2) return [piece];
  const parts: NewPiece[] = [];
  let first = 0;
  for (let part = 1; part <= count; part++) {
    const target = (text.length * part) / count;
    let end = first + 1;
    while (part === count ? end < chunks.length : end < chunks.length && chunks[end]!.start < target) end++;
    if (end === first) continue;
    const base = chunks[first]!.start;
    const finish = end < chunks.length ? chunks[end - 1]!.end : text.length;
    const statementsBefore = chunks[first]!.firstStatement;
    parts.push({
      kind: 'new',
      text: text.slice(base, finish),
      chunks: chunks.slice(first, end).map((chunk) => ({
        ...chunk,
        start: chunk.start - base,
        end: Math.min(chunk.end, finish) - base,
        firstStatement: chunk.firstStatement - statementsBefore,
      })),
      statements: (end < chunks.length ? chunks[end]!.firstStatement : piece.statements) - statementsBefore,
      start: piece.start + base,
      separator: first === 0 ? piece.separator : separator(text, chunks[first - 1]!.end, base),
    });
    first = end;
    if (first >= chunks.length) break;
  }
  return parts;
}

function countChunks(pieces: readonly Piece[]): number {
  return pieces.reduce((sum, piece) => sum + (piece.kind === 'new' ? piece.chunks.length : 1), 0);
}

/** A reused chunk where it now lies in the source and the output. */
function moved(chunk: StoredChunk, start: number, formattedStart: number): StoredChunk {
  return {
    start,
    end: start + (chunk.end - chunk.start),
    leadingComment: chunk.leadingComment,
    formattedStart,
    formattedEnd: formattedStart + (chunk.formattedEnd - chunk.formattedStart),
  };
}

/** The chunks of formatted new text, placed at its place in the source and at `formattedStart` in the output. */
function newChunks(
  piece: NewPiece,
  formatted: string,
  formattedStart: number,
  parse: ParseProgram,
): StoredChunk[] {
  const whole: StoredChunk = {
    start: piece.start,
    end: piece.start + piece.text.length,
    leadingComment: piece.chunks[0]!.leadingComment,
    formattedStart,
    formattedEnd: formattedStart + formatted.length - 1,
  };
  if (piece.chunks.length === 1) return [whole];
  let located: Chunk[] | undefined;
  try {
    located = formattedChunks(piece.text, piece.chunks, piece.statements, formatted, parse(formatted));
  } catch {
    located = undefined;
  }
  if (!located) return [whole];
  return piece.chunks.map((chunk, index) => ({
    start: piece.start + chunk.start,
    end: piece.start + chunk.end,
    leadingComment: chunk.leadingComment,
    formattedStart: formattedStart + located[index]!.start,
    formattedEnd: formattedStart + located[index]!.end,
  }));
}
