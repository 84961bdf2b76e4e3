// Splits json-schema-to-typescript output into its top-level declarations so types.ts can order them by
// the spec, drop the synthetic root and remove json-schema-to-typescript's "referenced by" notes.
// The input is json-schema-to-typescript's own unformatted output: declarations, doc comments, strings.

export interface TsDeclaration {
  name: string;
  /** The declaration with its leading doc comment, without a trailing newline. */
  text: string;
}

const DECLARATION = /^export (?:declare )?(?:type|interface|(?:const )?enum) ([A-Za-z_$][A-Za-z0-9_$]*)/;

export function splitDeclarations(source: string): TsDeclaration[] {
  const declarations: TsDeclaration[] = [];
  let index = 0;
  let commentStart = -1;
  while (index < source.length) {
    const char = source[index];
    if (char === ' ' || char === '\n' || char === '\t' || char === '\r') {
      index++;
      continue;
    }
    if (source.startsWith('/*', index)) {
      const end = source.indexOf('*/', index + 2);
      if (end < 0) throw new Error('json-schema-to-typescript output has an unclosed comment');
      if (commentStart < 0) commentStart = index;
      index = end + 2;
      continue;
    }
    const match = DECLARATION.exec(source.slice(index, index + 200));
    if (!match?.[1])
      throw new Error(`unexpected json-schema-to-typescript output near: ${source.slice(index, index + 60)}`);
    const end = declarationEnd(source, index);
    const start = commentStart < 0 ? index : commentStart;
    declarations.push({ name: match[1], text: source.slice(start, end).trimEnd() });
    commentStart = -1;
    index = end;
  }
  return declarations;
}

/** Index just past the declaration starting at `start`: the first line end outside brackets, strings, comments. */
function declarationEnd(source: string, start: number): number {
  let depth = 0;
  let index = start;
  while (index < source.length) {
    const char = source[index];
    if (char === '"' || char === "'" || char === '`') {
      index = stringEnd(source, index);
      continue;
    }
    if (source.startsWith('/*', index)) {
      const end = source.indexOf('*/', index + 2);
      index = end < 0 ? source.length : end + 2;
      continue;
    }
    if (source.startsWith('//', index)) {
      const end = source.indexOf('\n', index);
      index = end < 0 ? source.length : end;
      continue;
    }
    if (char === '{' || char === '(' || char === '[' || char === '<') depth++;
    else if (char === '}' || char === ')' || char === ']' || (char === '>' && source[index - 1] !== '='))
      depth--;
    else if (char === '\n' && depth <= 0) return index;
    index++;
  }
  return source.length;
}

function stringEnd(source: string, start: number): number {
  const quote = source[start];
  let index = start + 1;
  while (index < source.length && source[index] !== quote) index += source[index] === '\\' ? 2 : 1;
  return index + 1;
}

const REFERENCED_BY =
  /(?:\n \*\s*)?\n \* This interface was referenced by `[^`]*`'s JSON-Schema\n \* via the `definition` "[^"\n]*"\./g;

/** Removes the "This interface was referenced by `Root`'s JSON-Schema via the `definition` ..." notes. */
export function removeReferencedByNotes(text: string): string {
  return text.replace(REFERENCED_BY, '').replace(/^\/\*\*\s*\*\/\n?/, '');
}
