// validators.js + validators.d.ts: ajv standalone ESM code, one export per route part
// (`<routeId>_params`, `<routeId>_query`, `<routeId>_body`). Resources are added to ajv once, under their own
// $id, so every route that refers to a resource shares one compiled function.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import type { JsonSchema, SourceLocation, SpecIR } from '../shared/ir.js';
import { SpecError } from '../spec/loader/problems.js';
import { createAjv } from '../shared/validation/ajv.js';
import { VALIDATION_RUNTIME_SPECIFIERS } from '../shared/validation/runtime-specifiers.js';
import { define, mapSchema, parseResourceRef, pureResourceRef } from './schema-walk.js';

type StandaloneCode = (ajv: Ajv2020, refsOrFunc: Record<string, string>) => string;
// ajv's standalone entry is CommonJS; depending on the loader its function arrives as the module or `.default`.
const standaloneCode: StandaloneCode =
  (standaloneModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneModule as unknown as StandaloneCode);

export type ValidatorPart = 'params' | 'query' | 'body';

export interface ValidatorExport {
  /** `getNote_params`. */
  name: string;
  routeId: string;
  part: ValidatorPart;
}

export interface EmitValidatorsInput {
  ir: SpecIR;
  header: string;
  /** Module that exports requireRuntime ('svckit/validation-runtime'). */
  validationRuntimeImport: string;
  /** Module that exports the CompiledValidator type ('svckit'). */
  typesImport: string;
}

export interface EmittedValidators {
  js: string;
  dts: string;
  /**
   * The same module as one TypeScript file (validators.ts): the standalone code unchecked (`@ts-nocheck`),
   * each export declared a CompiledValidator. svckit's own generated/modules use it, because its compiled
   * package (tsc into dist/) carries .ts sources only and would leave a validators.js behind.
   */
  ts: string;
  exports: ValidatorExport[];
}

export function validatorName(routeId: string, part: ValidatorPart): string {
  return `${routeId}_${part}`;
}

const RESOURCE_ID = (name: string) => `svc:resources/${name}`;
const ROUTE_PART_ID = (routeId: string, part: ValidatorPart) => `svc:routes/${routeId}/${part}`;

interface PartToCompile extends ValidatorExport {
  schemaId: string;
  loc: SourceLocation;
}

export function emitValidators(input: EmitValidatorsInput): EmittedValidators {
  const { ir } = input;
  const ajv = createAjv({ code: { source: true, esm: true } });
  const problems = new SpecProblems();
  for (const resource of ir.resources) {
    problems.attempt(resource.loc, `resources.${resource.name}`, `resource '${resource.name}'`, () =>
      ajv.addSchema(withId(resource.schema, RESOURCE_ID(resource.name))),
    );
  }
  // Identical inline schemas (every `{ id: uuid }` params of a CRUD API) compile to one shared function.
  const idBySchema = new Map<string, string>();
  const parts: PartToCompile[] = [];
  for (const route of ir.routes) {
    const add = (part: ValidatorPart, schema: JsonSchema) => {
      const ref = pureResourceRef(schema);
      let schemaId = ref ? RESOURCE_ID(ref.name) : undefined;
      if (!schemaId) {
        const rewritten = forAjv(schema);
        const key = JSON.stringify(rewritten);
        schemaId = idBySchema.get(key);
        if (!schemaId) {
          const id = ROUTE_PART_ID(route.id, part);
          problems.attempt(route.loc, `routes.${route.id}.${part}`, `${part} of route '${route.id}'`, () =>
            ajv.addSchema(withId(rewritten, id)),
          );
          idBySchema.set(key, id);
          schemaId = id;
        }
      }
      parts.push({ name: validatorName(route.id, part), routeId: route.id, part, schemaId, loc: route.loc });
    };
    if (route.params) add('params', route.params);
    if (route.query) add('query', route.query);
    // An optional body is marked `required: false` in routes.ts: the runtime then skips validation when none came.
    // Upload and raw bodies are bytes; an upload's fields schema is documentation only.
    if (route.body?.kind === 'json') add('body', route.body.schema);
  }
  // Compile each part on its own first, so a schema ajv refuses is reported against its route.
  for (const part of parts) {
    problems.attempt(
      part.loc,
      `routes.${part.routeId}.${part.part}`,
      `${part.part} of route '${part.routeId}'`,
      () => ajv.getSchema(part.schemaId),
    );
  }
  problems.throwIfAny();
  const code = standaloneSource(ajv, parts);
  const requireLine = `import { requireRuntime as require } from '${input.validationRuntimeImport}';`;
  const js = [input.header, requireLine, '', code, '', ...exportLines(parts, '')];
  const ts = [
    input.header,
    '// @ts-nocheck: ajv standalone code, which is untyped; each export is declared a CompiledValidator.',
    requireLine,
    `import type { CompiledValidator } from '${input.typesImport}';`,
    '',
    code,
    '',
    ...exportLines(parts, ': CompiledValidator'),
    ...(parts.length === 0 ? ['export {};'] : []),
  ];
  return {
    js: `${js.join('\n')}\n`,
    dts: `${declarations(input, parts)}\n`,
    ts: `${ts.join('\n')}\n`,
    exports: parts.map(({ name, routeId, part }) => ({ name, routeId, part })),
  };
}

/** The public exports, pointing at the internal names of the compiled functions. */
function exportLines(parts: readonly PartToCompile[], annotation: string): string[] {
  const internal = internalNames(parts);
  return [
    '// One export per route part.',
    ...parts.map((part) => `export const ${part.name}${annotation} = ${internal.get(part.schemaId) ?? ''};`),
  ];
}

function internalNames(parts: readonly PartToCompile[]): Map<string, string> {
  const internal = new Map<string, string>();
  for (const part of parts)
    if (!internal.has(part.schemaId)) internal.set(part.schemaId, `compiled${internal.size}`);
  return internal;
}

/**
 * Ajv's standalone code, with one internal name per compiled schema (ajv repeats a function exported under
 * two names, which is a SyntaxError in a module); exportLines() adds the public names.
 */
function standaloneSource(ajv: Ajv2020, parts: readonly PartToCompile[]): string {
  const internal = internalNames(parts);
  const mapping: Record<string, string> = {};
  for (const [schemaId, name] of internal) define(mapping, name, schemaId);
  let code = internal.size === 0 ? '' : standaloneCode(ajv, mapping).replace(/^"use strict";/, '');
  assertKnownRequires(code);
  for (const name of internal.values()) code = code.replace(`export const ${name} =`, `const ${name} =`);
  return code;
}

function declarations(input: EmitValidatorsInput, parts: readonly PartToCompile[]): string {
  return [
    input.header,
    `import type { CompiledValidator } from '${input.typesImport}';`,
    '',
    ...parts.map((part) => `export declare const ${part.name}: CompiledValidator;`),
    ...(parts.length === 0 ? ['export {};'] : []),
  ].join('\n');
}

/** The schema as ajv sees it: resource refs point at the resources' $ids. */
function forAjv(schema: JsonSchema): JsonSchema {
  return mapSchema(schema, (node) => {
    if (typeof node.$ref !== 'string') return node;
    const ref = parseResourceRef(node.$ref);
    if (ref) node.$ref = RESOURCE_ID(ref.name) + (ref.pointer === '' ? '' : `#${ref.pointer}`);
    return node;
  });
}

function withId(schema: JsonSchema, id: string): { [keyword: string]: unknown } {
  const rewritten = forAjv(schema);
  if (rewritten === true) return { $id: id };
  if (rewritten === false) return { $id: id, not: {} };
  return { $id: id, ...rewritten };
}

/** Ajv's standalone code calls require(); every module it names must be in svckit/validation-runtime's table. */
export function assertKnownRequires(code: string): void {
  const known = new Set<string>(VALIDATION_RUNTIME_SPECIFIERS);
  for (const match of code.matchAll(/\brequire\(\s*"([^"]+)"\s*\)/g)) {
    const specifier = match[1] ?? '';
    if (!known.has(specifier)) {
      throw new Error(
        `ajv's standalone code requires '${specifier}', which svckit/validation-runtime does not provide; add it to its table`,
      );
    }
  }
}

/** Ajv refusals (strict mode) as spec problems at the resource's or route's location. */
class SpecProblems {
  private readonly problems: SpecError['problems'] = [];

  attempt(loc: SourceLocation, path: string, what: string, run: () => unknown): void {
    try {
      run();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.problems.push({
        file: loc.file,
        line: loc.line,
        column: loc.column,
        path,
        message: `the schema of ${what} does not compile: ${message}`,
        hint: 'fix the schema keyword named in the message; svc validates with JSON Schema 2020-12 in strict mode',
      });
    }
  }

  throwIfAny(): void {
    if (this.problems.length > 0) throw new SpecError(this.problems);
  }
}
