// A generated file as a list of chunks: runs of top-level statements that prettier prints alone exactly as it
// prints them in the file. Between two chunks there is only whitespace, which prettier prints as one line
// break (two when the source had a blank line there); a chunk may start with own-line comments, which belong to
// its first statement; and its last statement ends in a way no later text can continue (`;`, or the `}` of a
// declaration), so the chunk's text parses to the same statements wherever it stands. format-cache.ts reuses
// the formatted text of chunks a new source holds again.

/** A node of the parse, as far as chunking reads it (prettier's babel parsers give these offsets). */
export interface Located {
  type: string;
  start: number;
  end: number;
  declaration?: Located | null;
}

/** What a prettier babel parser answers. */
export interface ParsedProgram {
  program: { body: Located[]; directives: unknown[]; interpreter?: unknown };
  comments: Located[];
}

export type ParseProgram = (text: string) => ParsedProgram;

export interface Chunk {
  /** Where its text starts: its first comment, or its first statement. */
  start: number;
  /** The end of its last statement; the last chunk of a text ends at the end of the text. */
  end: number;
  /** It starts with a comment, which stays its own only when a line break precedes it. */
  leadingComment: boolean;
}

/** A chunk with the index of its first statement among the text's non-empty statements. */
export type IndexedChunk = Chunk & { firstStatement: number };

/** Statements that end with their closing brace. */
const DECLARATIONS = new Set([
  'FunctionDeclaration',
  'ClassDeclaration',
  'TSInterfaceDeclaration',
  'TSEnumDeclaration',
  'TSModuleDeclaration',
]);

/** Statements that nothing after their `;` can continue (an `if` could be continued by an `else`). */
const SIMPLE_STATEMENTS = new Set([
  'ExpressionStatement',
  'VariableDeclaration',
  'ImportDeclaration',
  'ExportNamedDeclaration',
  'ExportDefaultDeclaration',
  'ExportAllDeclaration',
  'TSTypeAliasDeclaration',
  'TSDeclareFunction',
  'TSImportEqualsDeclaration',
  'TSExportAssignment',
  'TSNamespaceExportDeclaration',
]);

/** Whether no text after `statement` can make it part of a longer statement. */
export function endsHard(text: string, statement: Located): boolean {
  const exported =
    (statement.type === 'ExportNamedDeclaration' || statement.type === 'ExportDefaultDeclaration') &&
    statement.declaration
      ? statement.declaration
      : statement;
  const last = text[statement.end - 1];
  if (DECLARATIONS.has(exported.type)) return last === '}' || last === ';';
  return SIMPLE_STATEMENTS.has(statement.type) && last === ';';
}

/** Prettier's break between two chunks: a blank line when the source had one. */
export function separator(text: string, from: number, to: number): string {
  let breaks = 0;
  for (let index = from; index < to && breaks < 2; index++) if (text.charCodeAt(index) === 10) breaks++;
  return breaks >= 2 ? '\n\n' : '\n';
}

/** Whether the program is a plain list of statements (no directive prologue, no `#!` line). */
export function isPlainProgram(parsed: ParsedProgram): boolean {
  return parsed.program.directives.length === 0 && !parsed.program.interpreter;
}

/**
 * Reads a parse's comments in order: `(end, next)` answers the first comment that starts at or after `end`
 * (where a node ends) and ends by `next` (where the following node starts), if any. Calls must move forward.
 */
export function commentsBetween(
  comments: readonly Located[],
): (end: number, next: number) => Located | undefined {
  let comment = 0;
  return (end, next) => {
    while (comment < comments.length && comments[comment]!.start < end) comment++;
    return comment < comments.length && comments[comment]!.end <= next ? comments[comment] : undefined;
  };
}

/** The chunks of `text` (parsed as `parsed`), each with the index of its first statement among the non-empty ones. */
export function chunksOf(text: string, parsed: ParsedProgram): IndexedChunk[] {
  const body = parsed.program.body;
  const commentBetween = commentsBetween(parsed.comments);
  const chunks: IndexedChunk[] = [];
  let start = 0;
  // The first chunk starts the text, with whatever comes before its first statement (the file's header).
  let leadingComment = body.length > 0 && /\S/.test(text.slice(0, body[0]!.start));
  let firstStatement = 0;
  let statements = 0;
  for (let index = 1; index < body.length; index++) {
    const previous = body[index - 1]!;
    const next = body[index]!;
    if (previous.type !== 'EmptyStatement') statements++;
    if (previous.type === 'EmptyStatement' || next.type === 'EmptyStatement') continue;
    if (!endsHard(text, previous)) continue;
    const first = commentBetween(previous.end, next.start);
    const cut = first ? first.start : next.start;
    const gap = text.slice(previous.end, cut);
    // A comment on the line the previous statement ends on is that statement's; so is anything else there.
    if (/\S/.test(gap) || (first && !gap.includes('\n'))) continue;
    chunks.push({ start, end: previous.end, leadingComment, firstStatement });
    start = cut;
    leadingComment = first !== undefined;
    firstStatement = statements;
  }
  chunks.push({ start, end: text.length, leadingComment, firstStatement });
  return chunks;
}

/**
 * Where `chunks` of a text lie in `formatted`, prettier's output for it (parsed as `parsedFormatted`): `end`
 * excludes the final line break. Undefined when the two do not line up as chunks promise (then nothing of this
 * text is reused later).
 */
export function formattedChunks(
  text: string,
  chunks: readonly IndexedChunk[],
  statementCount: number,
  formatted: string,
  parsedFormatted: ParsedProgram,
): Chunk[] | undefined {
  const body = parsedFormatted.program.body;
  if (body.length !== statementCount || !formatted.endsWith('\n')) return undefined;
  const commentBetween = commentsBetween(parsedFormatted.comments);
  const located: Chunk[] = [];
  for (const [index, chunk] of chunks.entries()) {
    let start = 0;
    if (index > 0) {
      const previous = body[chunk.firstStatement - 1]!;
      const statement = body[chunk.firstStatement]!;
      const first = commentBetween(previous.end, statement.start);
      if ((first !== undefined) !== chunk.leadingComment) return undefined;
      start = first ? first.start : statement.start;
      const before = located[index - 1]!;
      before.end = previous.end;
      if (formatted.slice(before.end, start) !== separator(text, chunks[index - 1]!.end, chunk.start))
        return undefined;
    }
    located.push({ start, end: formatted.length - 1, leadingComment: chunk.leadingComment });
  }
  return located;
}

/** The non-empty statements of a parse (prettier prints no empty statement). */
export function statementCount(parsed: ParsedProgram): number {
  return parsed.program.body.filter((statement) => statement.type !== 'EmptyStatement').length;
}
