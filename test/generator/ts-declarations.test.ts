// Splitting json-schema-to-typescript output into declarations, whatever strings and comments hold.
import { describe, expect, it } from 'vitest';
import { removeReferencedByNotes, splitDeclarations } from '../../generator/ts-declarations.js';

describe('splitDeclarations', () => {
  it('splits at top-level declarations only, keeping each leading doc comment', () => {
    const source = [
      '/**',
      ' * Has { and " and } in a comment.',
      ' */',
      'export interface A {',
      '/**',
      ' * nested doc with export type Fake = 1',
      ' */',
      '"x}y"?: ("a{" | \'b}\' | "c\\"}")',
      'nested?: {',
      'deep: string[]',
      '}',
      '}',
      'export type B = (string |',
      'A)',
      'export type C = Record<string, {',
      'x: 1',
      '}>',
      '',
    ].join('\n');
    const declarations = splitDeclarations(source);
    expect(declarations.map((declaration) => declaration.name)).toEqual(['A', 'B', 'C']);
    expect(declarations[0]?.text.startsWith('/**\n * Has { and')).toBe(true);
    expect(declarations[0]?.text.endsWith('deep: string[]\n}\n}')).toBe(true);
    expect(declarations[1]?.text).toBe('export type B = (string |\nA)');
    expect(declarations[2]?.text).toBe('export type C = Record<string, {\nx: 1\n}>');
  });

  it('refuses output it does not understand rather than guessing', () => {
    expect(() => splitDeclarations('const x = 1\n')).toThrow(/unexpected json-schema-to-typescript output/);
  });
});

describe('removeReferencedByNotes', () => {
  it('drops the note and a comment left empty, and keeps everything else', () => {
    const withDescription =
      '/**\n * A note.\n * \n * This interface was referenced by `Root`\'s JSON-Schema\n * via the `definition` "Note".\n */\nexport interface Note {}';
    expect(removeReferencedByNotes(withDescription)).toBe('/**\n * A note.\n */\nexport interface Note {}');
    const onlyNote =
      '/**\n * This interface was referenced by `Root`\'s JSON-Schema\n * via the `definition` "X".\n */\nexport type X = string';
    expect(removeReferencedByNotes(onlyNote)).toBe('export type X = string');
  });
});
