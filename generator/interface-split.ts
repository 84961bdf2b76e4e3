// A long interface is one top-level statement, so format-cache.ts could only reuse it whole, and the interfaces
// that list every route (openapi.d.ts `paths` and `operations`, routes.ts `Handlers`, client.ts `Client`) change
// with every resource. prettier prints each member of an interface body alone, so the cache is given the file
// with such an interface cut into several declarations of the same interface, each holding a run of its
// members; in the formatted text, the seams (`}` and the repeated header line) are taken out again. Should
// the seams not be found exactly as many times as they were made, the file is formatted whole instead.
import { commentsBetween, type Located, type ParsedProgram } from './statement-chunks.js';

/** An interface shorter than this is left whole: cutting it saves nothing. */
const MIN_MEMBERS = 8;
/** The headers cut: plain `interface Name {`, exported or not (no type parameters, no heritage, no comment). */
const PLAIN_HEADER = /^(export )?interface [A-Za-z_$][\w$]* \{$/;
/** The same headers as lines of a whole source. */
const PLAIN_HEADER_LINE = new RegExp(PLAIN_HEADER.source, 'gm');

interface InterfaceNode extends Located {
  body: Located & { body: Located[] };
}

/** A source with its long interfaces cut, and how to join the formatted text again. */
export interface CutSource {
  text: string;
  /** The seams made: each appears in the formatted text as `\n}\n<header>\n`. */
  seams: Map<string, number>;
}

/**
 * Whether a source may hold a long plain interface: a header line with at least MIN_MEMBERS lines before the
 * next `}` that starts a line. A cheap look before parsing; a source it passes may still hold none.
 */
export function mayHoldLongInterface(source: string): boolean {
  for (const match of source.matchAll(PLAIN_HEADER_LINE)) {
    let lines = 0;
    let at = match.index;
    while (lines < MIN_MEMBERS) {
      at = source.indexOf('\n', at + 1);
      if (at < 0 || source[at + 1] === '}') break;
      lines++;
    }
    if (lines >= MIN_MEMBERS) return true;
  }
  return false;
}

/** The source with its long plain interfaces cut at every member, or undefined when there are none. */
export function cutInterfaces(source: string, parsed: ParsedProgram): CutSource | undefined {
  const seams = new Map<string, number>();
  let text = '';
  let copied = 0;
  const commentBetween = commentsBetween(parsed.comments);
  for (const statement of parsed.program.body) {
    const declaration = (statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement) as
      InterfaceNode | null | undefined;
    if (declaration?.type !== 'TSInterfaceDeclaration') continue;
    const members = declaration.body.body;
    if (members.length < MIN_MEMBERS) continue;
    const header = source.slice(statement.start, declaration.body.start + 1);
    if (!PLAIN_HEADER.test(header)) continue;
    for (let index = 1; index < members.length; index++) {
      const previous = members[index - 1]!;
      const member = members[index]!;
      // The previous member ends with its `;`; the cut is at the next member's own-line comment, if any.
      if (source[previous.end - 1] !== ';') continue;
      const first = commentBetween(previous.end, member.start);
      const cut = first ? first.start : member.start;
      const gap = source.slice(previous.end, cut);
      // Only whitespace with one line break: a blank line or a comment there stays as it is.
      if (/\S/.test(gap) || gap.indexOf('\n') !== gap.lastIndexOf('\n') || !gap.includes('\n')) continue;
      text += `${source.slice(copied, previous.end)}\n}\n${header}\n`;
      copied = cut;
      seams.set(header, (seams.get(header) ?? 0) + 1);
    }
  }
  if (seams.size === 0) return undefined;
  return { text: text + source.slice(copied), seams };
}

/** The formatted cut source joined again, or undefined when its seams are not exactly those made. */
export function joinInterfaces(formatted: string, cut: CutSource): string | undefined {
  let joined = formatted;
  for (const [header, count] of cut.seams) {
    const seam = `\n}\n${header}\n`;
    const parts = joined.split(seam);
    if (parts.length !== count + 1) return undefined;
    joined = parts.join('\n');
  }
  return joined;
}
