// types.ts: one exported type per resource and per route part, compiled by json-schema-to-typescript in a
// single run (one synthetic root whose $defs hold every schema), then put in spec order.
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type { JSONSchema4 } from 'json-schema';
import type { Options } from 'json-schema-to-typescript';
import type { JsonSchema, SpecIR } from '../shared/ir.js';
import type { FormatPool } from './format-pool.js';
import { apiSurface } from './modules.js';
import { define, mapSchema, parseResourceRef, type SchemaObject } from './schema-walk.js';
import { removeReferencedByNotes, splitDeclarations } from './ts-declarations.js';
import { planTypes, type TypeDeclaration } from './type-plan.js';

export interface EmitTypesInput {
  ir: SpecIR;
  header: string;
  /** A format worker to compile in (this thread has other files to generate meanwhile); else here. */
  pool?: FormatPool;
}

/** Types of the application and of the modules it enables (apiSurface): the client imports them all. */
export async function emitTypes({ ir, header, pool }: EmitTypesInput): Promise<string> {
  const plan = planTypes(apiSurface(ir));
  const compiled = await compileSchemas(
    plan.filter((declaration) => declaration.kind === 'schema'),
    pool,
  );
  const blocks = plan.map((declaration) =>
    declaration.kind === 'alias' ? aliasText(declaration) : required(compiled, declaration.name),
  );
  // A file without declarations must still be a module: routes.ts imports it as a namespace.
  if (blocks.length === 0) blocks.push('export {};');
  return `${header}\n\n${blocks.join('\n\n')}\n`;
}

const COMPILE_OPTIONS: Partial<Options> = {
  bannerComment: '',
  format: false,
  unreachableDefinitions: true,
  // Plain arrays: `maxItems: 3` as a union of tuples is accurate but makes handlers hard to write.
  ignoreMinAndMaxItems: true,
  // Every reference was turned into a type name below; nothing is left to fetch or read.
  $refOptions: { resolve: { external: false } },
};

/** json-schema-to-typescript's answer for the root, in the worker when there is one, else here. */
async function compileRoot(
  root: JSONSchema4,
  rootName: string,
  pool: FormatPool | undefined,
): Promise<string> {
  if (pool) {
    try {
      const module = pathToFileURL(createRequire(import.meta.url).resolve('json-schema-to-typescript')).href;
      return await pool.runTask<string>({ module, name: 'compile', args: [root, rootName, COMPILE_OPTIONS] });
    } catch {
      // No worker (or it failed there): compiled here, where a real error is raised as it is.
    }
  }
  const { compile } = await import('json-schema-to-typescript');
  return compile(root, rootName, COMPILE_OPTIONS);
}

async function compileSchemas(
  declarations: readonly TypeDeclaration[],
  pool: FormatPool | undefined,
): Promise<Map<string, string>> {
  const byName = new Map<string, string>();
  if (declarations.length === 0) return byName;
  const rootName = unusedName('SvcTypesRoot', declarations);
  const $defs: SchemaObject = {};
  for (const declaration of declarations) {
    if (declaration.kind !== 'schema') continue;
    const schema = forTypeScript(declaration.schema);
    define(
      $defs,
      declaration.name,
      typeof schema === 'object' ? { ...schema, title: declaration.name } : schema,
    );
  }
  const root = { title: rootName, type: 'object', additionalProperties: false, $defs };
  const source = await compileRoot(root as JSONSchema4, rootName, pool);
  for (const declaration of splitDeclarations(source)) {
    if (declaration.name !== rootName)
      byName.set(declaration.name, removeReferencedByNotes(declaration.text));
  }
  return byName;
}

/**
 * The copy json-schema-to-typescript sees: `$ref: '#/resources/Note'` becomes `tsType: 'Note'` (so a ref with
 * a description stays `Note`, never a copy named `Note1`), nested `title`s become descriptions (a title would
 * declare an extra exported type) and nested `$id`s go.
 */
function forTypeScript(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    const copy: SchemaObject = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === '$id' || key === '$schema') continue;
      if (key === 'title') {
        if (node.description === undefined && typeof value === 'string') define(copy, 'description', value);
        continue;
      }
      if (key === '$ref' && typeof value === 'string') {
        define(copy, 'tsType', refType(value));
        continue;
      }
      define(copy, key, value);
    }
    return copy;
  });
}

function refType(ref: string): string {
  const parsed = parseResourceRef(ref);
  if (!parsed) return 'unknown';
  if (parsed.pointer === '') return parsed.name;
  const property = /^\/properties\/([^/]+)$/.exec(parsed.pointer)?.[1];
  if (property === undefined) return 'unknown';
  const key = property.replace(/~1/g, '/').replace(/~0/g, '~');
  return `NonNullable<${parsed.name}[${JSON.stringify(key)}]>`;
}

function aliasText(declaration: Extract<TypeDeclaration, { kind: 'alias' }>): string {
  const doc = declaration.description === undefined ? '' : `${docComment(declaration.description)}\n`;
  return `${doc}export type ${declaration.name} = ${declaration.target};`;
}

export function docComment(text: string): string {
  const lines = text.replace(/\*\//g, '*\\/').split('\n');
  return lines.length === 1
    ? `/** ${lines[0]} */`
    : `/**\n${lines.map((line) => ` * ${line}`.trimEnd()).join('\n')}\n */`;
}

function unusedName(base: string, declarations: readonly TypeDeclaration[]): string {
  const taken = new Set(declarations.map((declaration) => declaration.name));
  let name = base;
  for (let n = 2; taken.has(name); n++) name = `${base}${n}`;
  return name;
}

function required(compiled: ReadonlyMap<string, string>, name: string): string {
  const text = compiled.get(name);
  if (text === undefined) throw new Error(`json-schema-to-typescript did not declare type '${name}'`);
  return text;
}
