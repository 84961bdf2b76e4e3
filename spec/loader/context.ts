// What every check of one spec load shares: the file, the problem list, the schema checkers, and the
// names declared so far (resources, error codes, custom meta keys).
import type { ErrorIR, JsonSchema, MetaKeyIR } from '../../shared/ir.js';
import type { Problems } from './problems.js';
import { SchemaCompiler } from './schema-ajv.js';
import { SchemaLinter } from './schema-lint.js';
import { publishedSchemas, SVC_SCHEMA } from './package-files.js';
import { StructureChecker, type Finding } from './structure.js';
import { toPlain, type MapNode, type Node, type ScalarNode } from './yaml-tree.js';

export type Path = (string | number)[];

/** Definitions of svc.schema.json whose values are checked by the semantic passes, not by the walker. */
export const DELEGATED_DEFS = [
  'jsonSchema',
  'schemaOrResource',
  'body',
  'query',
  'meta',
  // Sizes and media types are checked by binary-parts.ts, whose messages say which unit or type was meant.
  'size',
  'mediaRange',
].map((name) => `${SVC_SCHEMA}#/$defs/${name}`);

/** Definitions only editors need (see StructureChecker); `$include`s are resolved before any check. */
export const EDITOR_ONLY_DEFS = [`${SVC_SCHEMA}#/$defs/envReference`, `${SVC_SCHEMA}#/$defs/include`];

export interface ResourceEntry {
  node: Node;
  /** The checked schema; undefined when it has problems (already reported). */
  schema: JsonSchema | undefined;
}

export interface MetaKeyEntry extends MetaKeyIR {
  /** Checks a route's value for this key against the declared schema. */
  validate?: (value: Node, path: Path) => Finding[];
}

export class LoadContext {
  readonly structure = new StructureChecker(
    publishedSchemas(),
    new Set(DELEGATED_DEFS),
    new Set(EDITOR_ONLY_DEFS),
  );
  readonly compiler = new SchemaCompiler();
  readonly resources = new Map<string, ResourceEntry>();
  readonly metaKeys = new Map<string, MetaKeyEntry>();
  /** The document's own codes and the built-in catalog, by code. */
  readonly ownErrors = new Map<string, ErrorIR>();
  readonly catalog = new Map<string, ErrorIR>();
  /** Every resource name the document declares, known before any schema is checked. */
  readonly resourceNames: string[] = [];
  private linterCache: SchemaLinter | undefined;

  constructor(
    readonly file: string,
    readonly problems: Problems,
  ) {}

  report(findings: readonly Finding[]): void {
    for (const finding of findings)
      this.problems.add(finding.loc, finding.path, finding.message, finding.hint);
  }

  get linter(): SchemaLinter {
    this.linterCache ??= new SchemaLinter(this.resourceNames);
    return this.linterCache;
  }

  /** Lint, meta-schema and strict compile of one embedded schema; the plain schema when all pass. */
  checkSchema(node: Node, path: Path): JsonSchema | undefined {
    const schema = this.preCheckSchema(node, path);
    if (schema === undefined) return undefined;
    const compiled = this.compiler.compile(schema, { node, path });
    if (compiled.length > 0) return void this.report(compiled);
    return schema;
  }

  /** Lint and meta-schema only: for parts compiled together afterwards (query and params properties). */
  preCheckSchema(node: Node, path: Path): JsonSchema | undefined {
    const lint = this.linter.lint(node, path);
    if (lint.length > 0) return void this.report(lint);
    const schema = toPlain(node) as JsonSchema;
    const meta = this.compiler.metaCheck(schema, { node, path });
    if (meta.length > 0) return void this.report(meta);
    return schema;
  }

  /**
   * Strict compile of an object schema assembled from a shorthand map (name → schema), e.g. `query:`.
   * Problems are located inside `map`, at `where.<name>...`.
   */
  compileAssembled(schema: JsonSchema, map: MapNode, where: Path): boolean {
    const owner: MapNode = { kind: 'map', loc: map.loc, entries: [], byKey: new Map() };
    const properties = { key: 'properties', keyLoc: map.loc, value: map };
    owner.entries.push(properties);
    owner.byKey.set('properties', properties);
    const findings = this.compiler.compile(schema, { node: owner, path: where, skipSegments: 1 });
    this.report(findings);
    return findings.length === 0;
  }

  /** Follows `#/resources/X` references to the resource's schema (for shape checks such as "is an object"). */
  deref(schema: JsonSchema | undefined): JsonSchema | undefined {
    let current = schema;
    for (let hops = 0; hops < 32; hops++) {
      if (typeof current !== 'object' || typeof current.$ref !== 'string') return current;
      const name = current.$ref.slice('#/resources/'.length);
      current = this.resources.get(name)?.schema;
    }
    return undefined;
  }
}

export function entry(map: MapNode | undefined, key: string): Node | undefined {
  return map?.byKey.get(key)?.value;
}

export function asMap(node: Node | undefined): MapNode | undefined {
  return node?.kind === 'map' ? node : undefined;
}

export function asString(node: Node | undefined): string | undefined {
  return node?.kind === 'scalar' && !node.broken && typeof node.value === 'string' ? node.value : undefined;
}

export function asScalar(node: Node | undefined): ScalarNode | undefined {
  return node?.kind === 'scalar' && !node.broken ? node : undefined;
}
