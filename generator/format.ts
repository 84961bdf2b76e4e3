// Formats generated files with prettier and the project's own prettier config, resolved for each output
// path (overrides may differ per file type), so `prettier --check .` passes on generated/. JSON documents
// go through json-format.ts, which prints the same bytes as prettier much faster, when the config allows.
import type * as PrettierModule from 'prettier';
import type { Options } from 'prettier';
import { formatJson } from './json-format.js';

type Prettier = typeof PrettierModule;
let prettier: Promise<Prettier> | undefined;

function loadPrettier(): Promise<Prettier> {
  prettier ??= import('prettier');
  return prettier;
}

/**
 * Parser for generated TypeScript. prettier infers 'typescript' from the file name; 'babel-ts' prints the same
 * bytes for the declarations and literals svc generates (test/generator/build.test.ts checks every output
 * with the inferred parser) and parses them in about half the time.
 */
export const TS_PARSER = 'babel-ts';

/** prettier options for one output file: the project config resolved for its path, plus the parser. */
export async function formatOptions(path: string): Promise<Options> {
  const options: Options = { ...(await configFor(path)), filepath: path };
  if (path.endsWith('.ts') && options.parser === undefined) options.parser = TS_PARSER;
  return options;
}

export async function formatWith(source: string, options: Options): Promise<string> {
  return (await loadPrettier()).format(source, options);
}

export async function formatSource(path: string, source: string): Promise<string> {
  return formatWith(source, await formatOptions(path));
}

/** A JSON document, formatted as prettier would format `JSON.stringify(document, null, 2)`. */
export async function formatJsonDocument(path: string, document: object): Promise<string> {
  const config = await configFor(path);
  const fast = jsonLayout(config);
  const text = fast && formatJson(document, fast);
  return text ?? formatSource(path, `${JSON.stringify(document, null, 2)}\n`);
}

async function configFor(path: string): Promise<Options> {
  const { resolveConfig } = await loadPrettier();
  return (await resolveConfig(path, { editorconfig: true })) ?? {};
}

/** Options that cannot change how prettier prints a JSON document written by JSON.stringify. */
const JSON_NEUTRAL_OPTIONS = new Set([
  'printWidth',
  'tabWidth',
  'useTabs',
  'endOfLine',
  'objectWrap',
  'singleQuote',
  'jsxSingleQuote',
  'quoteProps',
  'semi',
  'trailingComma',
  'arrowParens',
  'bracketSpacing',
  'bracketSameLine',
  'proseWrap',
  'htmlWhitespaceSensitivity',
  'vueIndentScriptAndStyle',
  'embeddedLanguageFormatting',
  'singleAttributePerLine',
  'experimentalTernaries',
  'experimentalOperatorPosition',
]);

/** The layout json-format.ts needs, or undefined when the config asks for something it does not model. */
function jsonLayout(config: Options): { printWidth: number; tabWidth: number } | undefined {
  if (Object.keys(config).some((key) => !JSON_NEUTRAL_OPTIONS.has(key))) return undefined;
  if (config.useTabs === true) return undefined;
  if (config.endOfLine !== undefined && config.endOfLine !== 'lf' && config.endOfLine !== 'auto')
    return undefined;
  if (config.objectWrap !== undefined && config.objectWrap !== 'preserve') return undefined;
  return { printWidth: config.printWidth ?? 80, tabWidth: config.tabWidth ?? 2 };
}

/** Drop prettier's cached config files (a test or a watcher may change .prettierrc between builds). */
export async function clearFormatCache(): Promise<void> {
  await (await loadPrettier()).clearConfigCache();
}
