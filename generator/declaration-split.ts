// A long declaration is one top-level statement, so format-cache.ts could only reuse it whole, and the ones
// that list every route change with every resource: interfaces (openapi.d.ts `paths` and `operations`,
// routes.ts `Handlers`, client.ts `Client`) and constant literals (routes.ts `routeDefinitions`, client.ts
// `routeTable`, errors.ts `catalog`). prettier prints each member of an interface, each element of a broken
// array of objects and each property of a broken object alone, so the cache is given the file with such a
// declaration cut into several declarations of the same name, each holding a run of its members; in the
// formatted text the seams (the closing line and the repeated header line) are taken out again. Should the
// seams not be found exactly as many times as they were made (a piece printed on one line, another trailing
// comma style, a header prettier prints otherwise), the file is formatted whole instead.
import type { Options } from 'prettier';
import { commentsBetween, type Located, type ParsedProgram } from './statement-chunks.js';

/** A declaration shorter than this is left whole: cutting it saves nothing. */
const MIN_MEMBERS = 8;
/** The interface headers cut: plain `interface Name {`, exported or not (no type parameters, no heritage). */
const INTERFACE_HEADER = /^(export )?interface [A-Za-z_$][\w$]* \{$/;
/** The constant headers cut: `const name = [` or `{`, exported or not, with a one-line type annotation. */
const CONST_HEADER = /^(export )?const [A-Za-z_$][\w$]*(: [^\n=]+)? = [[{]$/;
/** What may follow a cut literal's closing bracket up to the end of its statement. */
const LITERAL_TAIL = /^[\]}]( as const)?( satisfies [^\n;]+)?;$/;
/** Either header as a line of a whole source, for the cheap look before parsing. */
const HEADER_LINE =
  /^(?:(?:export )?interface [A-Za-z_$][\w$]* \{|(?:export )?const [A-Za-z_$][\w$]*(?:: [^\n=]+)? = [[{])$/gm;

/** A member as the cut reads it: an interface member, an array element or an object property. */
interface Member extends Located {
  key?: (Located & { value?: unknown }) | null;
  computed?: boolean;
  properties?: Located[];
}

interface InterfaceNode extends Located {
  body: Located & { body: Member[] };
}

interface ConstNode extends Located {
  kind?: string;
  declarations?: Array<{ init?: (Located & { expression?: Located }) | null }>;
}

interface LiteralNode extends Located {
  elements?: Array<Member | null>;
  properties?: Member[];
}

/** A source with its long declarations cut, and how to join the formatted text again. */
export interface CutSource {
  text: string;
  /** Each seam made, as it appears in the formatted text, with how often and what replaces it. */
  seams: Map<string, { count: number; joint: string }>;
}

/** One declaration to cut: its members, the header to repeat, and the text that closes a piece. */
interface Cuttable {
  header: string;
  members: readonly Member[];
  /** What ends a member before the seam (`;` for interfaces, `,` for literals): it must be in the source. */
  separator: string;
  /** The piece's end as the source has it after the separator, e.g. `\n}` or `\n] as const;`. */
  closing: string;
}

/**
 * Whether a source may hold a long declaration to cut: a header line with at least MIN_MEMBERS lines before
 * the next line that starts with `}` or `]`. A cheap look before parsing; a source it passes may hold none.
 */
export function mayHoldLongDeclaration(source: string): boolean {
  for (const match of source.matchAll(HEADER_LINE)) {
    let lines = 0;
    let at = match.index;
    while (lines < MIN_MEMBERS) {
      at = source.indexOf('\n', at + 1);
      if (at < 0 || source[at + 1] === '}' || source[at + 1] === ']') break;
      lines++;
    }
    if (lines >= MIN_MEMBERS) return true;
  }
  return false;
}

/**
 * The source with its long plain declarations cut at every member, or undefined when there are none.
 * `options`: the file's prettier options; under `quoteProps: 'consistent'` one member's key decides how its
 * siblings' keys are quoted, so nothing is cut.
 */
export function cutDeclarations(
  source: string,
  parsed: ParsedProgram,
  options: Pick<Options, 'quoteProps'> = {},
): CutSource | undefined {
  if (options.quoteProps === 'consistent') return undefined;
  const seams: CutSource['seams'] = new Map();
  let text = '';
  let copied = 0;
  const commentBetween = commentsBetween(parsed.comments);
  let previous: Located | undefined;
  for (const statement of parsed.program.body) {
    const before = previous;
    previous = statement;
    const cuttable = cuttableOf(source, statement);
    if (cuttable === undefined) continue;
    const { header, members, separator, closing } = cuttable;
    // A statement that ends as a piece does, right before the header, would print as one more seam.
    if (before !== undefined && source.slice(before.start, before.end).endsWith(closing.trimStart())) {
      const gap = source.slice(before.end, statement.start);
      if (!/\n[^\S\n]*\n/.test(gap) && commentBetween(before.end, statement.start) === undefined) continue;
    }
    const seam = `${separator}${closing}\n${header}\n`;
    for (let index = 1; index < members.length; index++) {
      const previous = members[index - 1]!;
      const member = members[index]!;
      // An interface member holds its `;`; a literal's member is followed by its `,` right away.
      const inside = separator === ';';
      if (inside ? source[previous.end - 1] !== ';' : source[previous.end] !== ',') continue;
      const end = inside ? previous.end : previous.end + 1;
      // The cut is at the next member's own-line comment, if any.
      const first = commentBetween(end, member.start);
      const cut = first ? first.start : member.start;
      const gap = source.slice(end, cut);
      // Only whitespace with one line break: a blank line or a comment there stays as it is.
      if (/\S/.test(gap) || gap.indexOf('\n') !== gap.lastIndexOf('\n') || !gap.includes('\n')) continue;
      text += source.slice(copied, end) + seam.slice(separator.length);
      copied = cut;
      const known = seams.get(seam);
      seams.set(seam, { count: (known?.count ?? 0) + 1, joint: `${separator}\n` });
    }
  }
  if (seams.size === 0) return undefined;
  return { text: text + source.slice(copied), seams };
}

/** The formatted cut source joined again, or undefined when its seams are not exactly those made. */
export function joinDeclarations(formatted: string, cut: CutSource): string | undefined {
  let joined = formatted;
  for (const [seam, { count, joint }] of cut.seams) {
    const parts = joined.split(seam);
    if (parts.length !== count + 1) return undefined;
    joined = parts.join(joint);
  }
  return joined;
}

/** The statement as a declaration to cut, or undefined when it is not one. */
function cuttableOf(source: string, statement: Located): Cuttable | undefined {
  const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
  if (declaration?.type === 'TSInterfaceDeclaration') {
    const members = (declaration as InterfaceNode).body.body;
    if (members.length < MIN_MEMBERS || !members.every(plainKey)) return undefined;
    const header = source.slice(statement.start, (declaration as InterfaceNode).body.start + 1);
    return INTERFACE_HEADER.test(header) ? { header, members, separator: ';', closing: '\n}' } : undefined;
  }
  if (declaration?.type !== 'VariableDeclaration') return undefined;
  const { kind, declarations } = declaration as ConstNode;
  if (kind !== 'const' || declarations?.length !== 1) return undefined;
  let literal = declarations[0]!.init as LiteralNode | null | undefined;
  while (literal?.type === 'TSAsExpression' || literal?.type === 'TSSatisfiesExpression')
    literal = (literal as LiteralNode & { expression: LiteralNode }).expression;
  const members = literalMembers(literal);
  if (literal == null || members === undefined || members.length < MIN_MEMBERS) return undefined;
  const header = source.slice(statement.start, literal.start + 1);
  const tail = source.slice(literal.end - 1, statement.end);
  // The source's last member is followed by `,` and a line break before the closing bracket.
  const beforeClose = source.slice(members.at(-1)!.end, literal.end - 1);
  if (!CONST_HEADER.test(header) || !LITERAL_TAIL.test(tail) || !/^,\s*\n\s*$/.test(beforeClose))
    return undefined;
  return { header, members, separator: ',', closing: `\n${tail}` };
}

/**
 * The members of a literal whose members print alone: an array of object literals (never numbers, which
 * prettier packs several to a line), or an object of plain properties with plain keys.
 */
function literalMembers(literal: LiteralNode | null | undefined): readonly Member[] | undefined {
  if (literal?.type === 'ArrayExpression') {
    const elements = literal.elements ?? [];
    return elements.every((element): element is Member => element?.type === 'ObjectExpression')
      ? elements
      : undefined;
  }
  if (literal?.type === 'ObjectExpression') {
    const properties = literal.properties ?? [];
    return properties.every((property) => property.type === 'ObjectProperty' && plainKey(property))
      ? properties
      : undefined;
  }
  return undefined;
}

/**
 * A key whose printing does not depend on its siblings': a name, or a string no unquoting applies to. Numbers
 * and number-like strings are left alone, as prettier decides about them looking at the other keys.
 */
function plainKey(member: Member): boolean {
  if (member.computed === true) return false;
  const key = member.key;
  if (key === undefined) return true; // call and index signatures
  if (key === null) return false;
  if (key.type === 'Identifier') return true;
  if (key.type !== 'StringLiteral' || typeof key.value !== 'string') return false;
  return !/^[A-Za-z_$][\w$]*$/.test(key.value) && !/^\d/.test(key.value);
}
