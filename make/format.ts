// Generated TypeScript is formatted in svckit's own style (single quotes, 110 columns, trailing commas);
// when written into a project with a prettier config of its own, writeGenerated formats it again with that.
import type { Options } from 'prettier';

const HOUSE_STYLE: Options = {
  // babel-ts prints these templates as the typescript parser does, and a make command that builds loads it
  // anyway (the format cache reads generated code with it): the typescript parser would be one more to load.
  parser: 'babel-ts',
  singleQuote: true,
  printWidth: 110,
  trailingComma: 'all',
};

export async function formatTypeScript(source: string): Promise<string> {
  const prettier = await import('prettier');
  return prettier.format(source, HOUSE_STYLE);
}

/** `content` formatted with the prettier config that applies to `file`, or unchanged when there is none. */
export async function formatForProject(file: string, content: string): Promise<string> {
  const prettier = await import('prettier');
  const config = await prettier.resolveConfig(file, { editorconfig: false });
  if (config === null) return content;
  return prettier.format(content, { ...config, filepath: file });
}
