// Checks a located YAML tree against the published JSON Schema (spec/svc.schema.json, catalog.schema.json).
// The schema stays the single source of truth for the document's shape; this walker interprets the small
// subset of keywords those files use and turns each failure into a located problem with a hint.
// Definitions listed in `delegated` (embedded schemas, body, query, meta) are left to the semantic checks.
import type { SourceLocation } from '../../shared/ir.js';
import { at, describeNode, inWhere, inlineYaml, nodeTypes, quoteList } from './describe.js';
import { describeValue, SchemaDocs, type Located, type Schema, type SchemaObject } from './schema-docs.js';
import { closest, suggestionHint } from './suggest.js';
import { getOwn, type MapNode, type Node, type ScalarNode } from './yaml-tree.js';

export type { Schema, SchemaObject } from './schema-docs.js';
type Path = (string | number)[];

export interface Finding {
  loc: SourceLocation;
  path: Path;
  message: string;
  hint?: string;
}

/**
 * The keywords this walker checks values against. The published schemas may use no other validating
 * keyword, and the walker applies each one (test/spec/schema-one-source.test.ts): the schema stays the
 * one source of the shape.
 */
export const CHECKED_KEYWORDS: readonly string[] = [
  '$ref',
  'anyOf',
  'const',
  'enum',
  'type',
  'minLength',
  'maxLength',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'uniqueItems',
  'items',
  'properties',
  'required',
  'propertyNames',
  'additionalProperties',
];

/** Keywords that describe without constraining (docs, editor completion, hints), which the walker reads as text. */
export const DESCRIBING_KEYWORDS: readonly string[] = [
  '$schema',
  '$id',
  '$defs',
  '$comment',
  'title',
  'description',
  'default',
  'examples',
  'x-hint',
];

export class StructureChecker {
  private readonly schemas: SchemaDocs;

  constructor(
    /** Schema documents by file name ('svc.schema.json'). */
    docs: ReadonlyMap<string, SchemaObject>,
    /** `<doc>#<pointer>` of definitions checked elsewhere (embedded schemas, body, query, meta). */
    delegated: ReadonlySet<string>,
    /** `<doc>#<pointer>` of definitions only editors need (see SchemaDocs). */
    editorOnly: ReadonlySet<string> = new Set(),
  ) {
    this.schemas = new SchemaDocs(docs, delegated, editorOnly);
  }

  check(node: Node, doc: string, pointer: string, path: Path): Finding[] {
    return this.validate(node, this.schemas.resolve(`${doc}#${pointer}`, doc), path);
  }

  /** The schema at `<doc>#<pointer>` (for callers that check single properties themselves). */
  schemaAt(doc: string, pointer: string): Schema {
    return this.schemas.resolve(`${doc}#${pointer}`, doc).schema;
  }

  checkWith(node: Node, schema: Schema, doc: string, path: Path): Finding[] {
    return this.validate(node, { schema, doc }, path);
  }

  private validate(node: Node, located: Located, path: Path): Finding[] {
    const { schema, doc } = located;
    if (schema === true) return [];
    if (node.kind === 'scalar' && node.broken) return [];
    if (node.kind === 'scalar' && node.reread) this.settleReference(node, located);
    if (schema === false)
      return [{ loc: node.loc, path, message: `${at(path)}this key is not allowed`, hint: 'remove it' }];
    if (typeof schema.$ref === 'string') {
      const target = this.schemas.resolve(schema.$ref, doc);
      if (this.schemas.isDelegated(target.key)) return [];
      const findings = this.validate(node, target, path);
      if (findings.length > 0) return findings;
    }
    if (Array.isArray(schema.anyOf)) {
      const findings = this.anyOf(node, schema.anyOf as Schema[], located, path);
      if (findings.length > 0) return findings;
    }
    if ('const' in schema && !sameValue(node, schema.const)) {
      return [
        this.mismatch(
          node,
          located,
          path,
          `expected ${describeValue(schema.const)} but got ${describeNode(node)}`,
        ),
      ];
    }
    if (Array.isArray(schema.enum)) {
      if (!schema.enum.some((value) => sameValue(node, value)))
        return [this.enumFinding(node, schema.enum, path)];
      return [];
    }
    if (schema.type !== undefined) {
      const wanted = Array.isArray(schema.type) ? (schema.type as string[]) : [schema.type as string];
      const actual = nodeTypes(node);
      if (!wanted.some((type) => actual.includes(type))) {
        return [
          this.mismatch(
            node,
            located,
            path,
            `${at(path)}expected ${this.schemas.describe(located)} but got ${describeNode(node)}`,
          ),
        ];
      }
    }
    if (node.kind === 'scalar') return this.scalar(node, schema, path);
    if (node.kind === 'seq') return this.sequence(node.items, node.loc, schema, doc, path);
    return this.mapping(node, schema, doc, path);
  }

  /**
   * A value that is exactly one `${VAR}` reference takes the type its key expects: where only text is
   * accepted (`host`, `database`) it stays the substituted text, even if that looks like a number; elsewhere
   * it keeps its YAML reading (`port: ${PORT:-3000}` is 3000). The config template records the choice.
   */
  private settleReference(node: ScalarNode, located: Located): void {
    const textOnly =
      this.schemas.accepts(['string'], located) &&
      !this.schemas.accepts(['integer', 'number'], located) &&
      !this.schemas.accepts(['boolean'], located) &&
      !this.schemas.accepts(['null'], located);
    if (!textOnly || node.resolvedText === undefined) return;
    node.value = node.resolvedText;
    node.reread = false;
  }

  private anyOf(node: Node, all: Schema[], located: Located, path: Path): Finding[] {
    const branches = this.schemas.withoutEditorOnly(all, located.doc);
    const compatible = branches.filter((branch) =>
      this.schemas.accepts(nodeTypes(node), { schema: branch, doc: located.doc }),
    );
    if (compatible.length === 0) {
      return [
        this.mismatch(
          node,
          located,
          path,
          `${at(path)}expected ${this.schemas.describe(located)} but got ${describeNode(node)}`,
        ),
      ];
    }
    let first: Finding[] | undefined;
    for (const branch of compatible) {
      const findings = this.validate(node, { schema: branch, doc: located.doc }, path);
      if (findings.length === 0) return [];
      first ??= findings;
    }
    return first ?? [];
  }

  private scalar(node: ScalarNode, schema: SchemaObject, path: Path): Finding[] {
    const value = node.value;
    const hint = typeof schema['x-hint'] === 'string' ? schema['x-hint'] : undefined;
    if (typeof value === 'string') {
      if (typeof schema.minLength === 'number' && value.length < schema.minLength) {
        return [
          {
            loc: node.loc,
            path,
            message: `${at(path)}must not be empty`,
            hint: hint ?? 'write a value, or remove the key',
          },
        ];
      }
      if (typeof schema.maxLength === 'number' && value.length > schema.maxLength) {
        const message = `${at(path)}is ${value.length} characters long; at most ${schema.maxLength} are allowed`;
        return [
          { loc: node.loc, path, message, hint: hint ?? `shorten it to ${schema.maxLength} characters` },
        ];
      }
      if (typeof schema.pattern === 'string' && !new RegExp(schema.pattern, 'u').test(value)) {
        const what =
          typeof schema.title === 'string'
            ? `a valid ${schema.title.replace(/^an? /, '')}`
            : `matching ${schema.pattern}`;
        return [
          {
            loc: node.loc,
            path,
            message: `${at(path)}'${value}' is not ${what}`,
            hint: hint ?? `write a value matching ${schema.pattern}`,
          },
        ];
      }
    }
    if (typeof value === 'number') {
      const above = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum : undefined;
      const below = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum : undefined;
      if ((above !== undefined && value <= above) || (below !== undefined && value >= below)) {
        const noun = schema.type === 'integer' ? 'an integer' : 'a number';
        const range = [
          ...(above === undefined ? [] : [`greater than ${above}`]),
          ...(below === undefined ? [] : [`less than ${below}`]),
        ].join(' and ');
        return [
          {
            loc: node.loc,
            path,
            message: `${at(path)}expected ${noun} ${range} but got ${value}`,
            hint: hint ?? `write ${noun} ${range}`,
          },
        ];
      }
      const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      if ((min !== undefined && value < min) || (max !== undefined && value > max)) {
        const noun = schema.type === 'integer' ? 'an integer' : 'a number';
        const range =
          min !== undefined && max !== undefined
            ? `between ${min} and ${max}`
            : min !== undefined
              ? `of at least ${min}`
              : `of at most ${max}`;
        return [
          {
            loc: node.loc,
            path,
            message: `${at(path)}expected ${noun} ${range} but got ${value}`,
            hint: hint ?? `write ${noun} ${range}`,
          },
        ];
      }
    }
    return [];
  }

  private sequence(
    items: Node[],
    loc: SourceLocation,
    schema: SchemaObject,
    doc: string,
    path: Path,
  ): Finding[] {
    const findings: Finding[] = [];
    if (typeof schema.minItems === 'number' && items.length < schema.minItems) {
      findings.push({
        loc,
        path,
        message: `${at(path)}must list at least ${schema.minItems} item(s)`,
        hint: 'add an item, or remove the key',
      });
    }
    if (schema.uniqueItems === true) {
      const seen = new Set<string>();
      for (const item of items) {
        if (item.kind !== 'scalar') continue;
        const key = JSON.stringify(item.value);
        if (seen.has(key)) {
          findings.push({
            loc: item.loc,
            path,
            message: `${at(path)}${describeNode(item)} is listed twice`,
            hint: `remove the repeated ${describeNode(item)}`,
          });
        }
        seen.add(key);
      }
    }
    if (schema.items !== undefined) {
      items.forEach((item, index) =>
        findings.push(...this.validate(item, { schema: schema.items as Schema, doc }, [...path, index])),
      );
    }
    return findings;
  }

  private mapping(node: MapNode, schema: SchemaObject, doc: string, path: Path): Finding[] {
    const findings: Finding[] = [];
    const properties = (schema.properties ?? {}) as Record<string, Schema>;
    const allowed = Object.keys(properties).filter((key) => getOwn(properties, key) !== false);
    // A required key written with a typo is reported once, as the unknown key with its did-you-mean.
    const misspelt = new Set(
      node.entries
        .filter((item) => getOwn(properties, item.key) === undefined)
        .map((item) => closest(item.key, allowed)),
    );
    if (Array.isArray(schema.required)) {
      for (const key of schema.required as string[]) {
        if (node.byKey.has(key) || (schema.additionalProperties === false && misspelt.has(key))) continue;
        findings.push({
          loc: node.loc,
          path,
          message: `missing required key '${key}' ${inWhere(path)}`,
          hint: this.addHint(key, getOwn(properties, key), doc),
        });
      }
    }
    for (const entry of node.entries) {
      const entryPath = [...path, entry.key];
      if (schema.propertyNames !== undefined) {
        const keyNode: ScalarNode = {
          kind: 'scalar',
          loc: entry.keyLoc,
          value: entry.key,
          style: 'plain',
          raw: entry.key,
        };
        const keyFindings = this.validate(
          keyNode,
          { schema: schema.propertyNames as Schema, doc },
          entryPath,
        );
        findings.push(...keyFindings);
        if (keyFindings.length > 0) continue;
      }
      const property = getOwn(properties, entry.key);
      if (property !== undefined) {
        findings.push(...this.validate(entry.value, { schema: property, doc }, entryPath));
      } else if (schema.additionalProperties === false) {
        const hint =
          entry.key === '<<'
            ? 'YAML merge keys (<<) are not supported; write the keys out'
            : allowed.length === 0
              ? `${path.join('.') || 'this mapping'} takes no keys in this version; remove '${entry.key}'`
              : suggestionHint(entry.key, allowed, 'allowed keys');
        findings.push({
          loc: entry.keyLoc,
          path: entryPath,
          message: `unknown key '${entry.key}' ${inWhere(path)}`,
          hint,
        });
      } else if (schema.additionalProperties !== undefined && schema.additionalProperties !== true) {
        findings.push(
          ...this.validate(entry.value, { schema: schema.additionalProperties as Schema, doc }, entryPath),
        );
      }
    }
    return findings;
  }

  private enumFinding(node: Node, values: unknown[], path: Path): Finding {
    const message = `${at(path)}expected one of ${quoteList(values)} but got ${describeNode(node)}`;
    const written = node.kind === 'scalar' && typeof node.value === 'string' ? node.value : undefined;
    const match =
      written === undefined
        ? undefined
        : closest(
            written,
            values.filter((v): v is string => typeof v === 'string'),
          );
    return {
      loc: node.loc,
      path,
      message,
      hint: match ? `did you mean '${match}'?` : `write one of ${quoteList(values)}`,
    };
  }

  private mismatch(node: Node, located: Located, path: Path, message: string): Finding {
    return { loc: node.loc, path, message, hint: this.typeHint(node, located, path) };
  }

  /** A concrete fix for a value of the wrong type, from what was written and what is wanted. */
  private typeHint(node: Node, located: Located, path: Path): string {
    const schema = typeof located.schema === 'object' ? located.schema : {};
    const key = String(path[path.length - 1] ?? 'value');
    const wanted = this.schemas.describe(located);
    if (node.kind === 'scalar' && node.template !== undefined) {
      const names = node.template
        .filter((part) => typeof part === 'object')
        .map((part) => (part as { env: string }).env);
      return `${names.join(', ')} must give ${wanted}: set it, or change the default in ${node.raw.trim()}`;
    }
    if (typeof schema['x-hint'] === 'string') return schema['x-hint'];
    if (node.kind === 'scalar') {
      const wantsString =
        this.schemas.accepts(['string'], located) && !this.schemas.accepts(nodeTypes(node), located);
      if (wantsString && (typeof node.value === 'number' || typeof node.value === 'boolean'))
        return `quote it: ${key}: "${node.raw}"`;
      if (
        /integer|number/.test(wanted) &&
        typeof node.value === 'string' &&
        /^-?\d+(\.\d+)?$/.test(node.value)
      ) {
        return `write it without quotes: ${key}: ${node.value}`;
      }
      if (wanted === 'a mapping' && node.value === null)
        return `add the keys of ${key} on the lines below it, indented`;
      if (/^a list/.test(wanted) && typeof node.value === 'string')
        return `write a list: ${key}: [${node.raw}]`;
    }
    const example = this.schemas.example(located);
    return example !== undefined ? `write ${wanted}, e.g. ${key}: ${inlineYaml(example)}` : `write ${wanted}`;
  }

  private addHint(key: string, property: Schema | undefined, doc: string): string {
    const example = property === undefined ? undefined : this.schemas.example({ schema: property, doc });
    if (example !== undefined) return `add ${key}: ${inlineYaml(example)}`;
    return `add ${key}: <${property === undefined ? 'value' : this.schemas.describe({ schema: property, doc })}>`;
  }
}

function sameValue(node: Node, value: unknown): boolean {
  return node.kind === 'scalar' && node.value === value;
}
