// The second half of checking an embedded schema: ajv's 2020-12 meta-schema (wrong keyword values) and a
// strict-mode compile with the same ajv configuration the generated validators use (createAjv), so a spec
// that loads is a spec whose validators compile. Errors are mapped back onto the YAML positions.
import type { ErrorObject } from 'ajv';
import type { JsonSchema } from '../../shared/ir.js';
import { RESOURCE_REF_PREFIX } from '../../shared/ir.js';
import { createAjv } from '../../shared/validation/ajv.js';
import { at, describeNode, TYPE_WORDS } from './describe.js';
import { SUBSCHEMA_LISTS, SUBSCHEMA_MAPS, SUBSCHEMA_SINGLES } from './subschema-keywords.js';
import type { Finding } from './structure.js';
import { nodeAtPointer, type Node } from './yaml-tree.js';

type Path = (string | number)[];

// Checking against the meta-schema needs no resources, so one instance serves every load (compiling the
// 2020-12 meta-schema is the slow part).
let sharedMetaAjv: ReturnType<typeof createAjv> | undefined;
export function metaAjv(): ReturnType<typeof createAjv> {
  sharedMetaAjv ??= createAjv();
  return sharedMetaAjv;
}

/** ajv refuses `#/resources/X` (a pointer into a document it never sees); resources get these ids instead. */
const RESOURCE_ID_PREFIX = 'svc:resources/';

interface Owner {
  node: Node;
  path: Path;
  /** Leading pointer segments that exist only in an assembled schema, not in the spec's path. */
  skipSegments?: number;
}

const WHOLE_NUMBER = [
  'minLength',
  'maxLength',
  'minItems',
  'maxItems',
  'minProperties',
  'maxProperties',
  'minContains',
  'maxContains',
];
const NUMBER = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'];
const SCHEMA_MAP = [...SUBSCHEMA_MAPS, '$defs'];
const SCHEMA_LIST = SUBSCHEMA_LISTS;

export class SchemaCompiler {
  // The same configuration as the generated validators; the code optimiser is off because these functions
  // only prove the schema compiles and are never run on requests; meta-schema checks ran before (metaCheck).
  private readonly ajv = createAjv({ code: { optimize: false }, validateSchema: false });
  private readonly owners = new Map<string, Owner>();
  private readonly resourceSchemas = new Map<string, JsonSchema>();
  /** Schemas (as JSON) already compiled: specs repeat the same `id` param and `limit` query many times. */
  private readonly compiled = new Set<string>();

  /** Registers a resource so references to it compile; a schema that failed its checks stands in as `{}`. */
  addResource(name: string, schema: JsonSchema | undefined, owner: Owner): void {
    const id = RESOURCE_ID_PREFIX + name;
    this.owners.set(id, owner);
    if (schema !== undefined) this.resourceSchemas.set(id, schema);
    this.ajv.addSchema(schema === undefined ? {} : (rewriteRefs(schema) as object), id);
  }

  /** Compiles a registered resource (and whatever it references). */
  compileResource(name: string): Finding[] {
    const id = RESOURCE_ID_PREFIX + name;
    const owner = this.owners.get(id)!;
    try {
      this.ajv.getSchema(id);
    } catch (error) {
      return [this.compileFinding(error as Error, owner)];
    }
    const schema = this.resourceSchemas.get(id);
    return schema === undefined ? [] : this.defaultFindings(schema, owner);
  }

  /** Meta-schema findings of a schema, located inside its YAML node. */
  metaCheck(schema: JsonSchema, owner: Owner): Finding[] {
    const ajv = metaAjv();
    if (ajv.validateSchema(schema as object) === true) return [];
    return selectErrors(ajv.errors ?? []).map((error) => metaFinding(error, owner));
  }

  /** Strict compile of a schema that passed its other checks. */
  compile(schema: JsonSchema, owner: Owner): Finding[] {
    if (isResourceRef(schema)) return []; // the resource itself was compiled
    const rewritten = rewriteRefs(schema) as object;
    const key = JSON.stringify(rewritten);
    if (this.compiled.has(key)) return [];
    try {
      this.ajv.compile(rewritten);
    } catch (error) {
      return [this.compileFinding(error as Error, owner)];
    }
    const defaults = this.defaultFindings(schema, owner);
    // A schema with a bad default is reported wherever it is written, not only the first time.
    if (defaults.length === 0) this.compiled.add(key);
    return defaults;
  }

  /**
   * Every `default` must satisfy the schema it sits in: ajv fills it in before validating (useDefaults), so
   * one that does not would refuse every request that leaves the value out.
   */
  private defaultFindings(schema: JsonSchema, owner: Owner): Finding[] {
    const findings: Finding[] = [];
    for (const { pointer, subschema } of schemasWithDefault(schema, '')) {
      const { default: value, ...rest } = subschema;
      let validate;
      try {
        validate = this.ajv.compile(rewriteRefs(rest) as object);
      } catch {
        continue; // a subschema that only compiles in its context (local refs): the whole compiled above
      }
      if (validate(value) === true) continue;
      const located = nodeAtPointer(owner.node, `${pointer}/default`);
      const segments = `${pointer}/default`.split('/').slice(1 + (owner.skipSegments ?? 0));
      const path = [...owner.path, ...segments];
      const [error] = selectErrors(validate.errors ?? []);
      const reason = error === undefined ? 'does not match' : dataMessage(error, located.node);
      findings.push({
        loc: located.node.loc,
        path,
        message: `${at(path)}the default does not satisfy its own schema: ${reason}`,
        hint: 'change the default to a value the schema accepts, or remove it',
      });
    }
    return findings;
  }

  /** A validator for values of a checked schema (custom meta keys), reporting at the value's positions. */
  validator(schema: JsonSchema): (data: unknown, node: Node, path: Path, key: string) => Finding[] {
    const validate = this.ajv.compile(rewriteRefs(schema) as object);
    return (data, node, path, key) => {
      if (validate(data) === true) return [];
      return selectErrors(validate.errors ?? []).map((error) => {
        const located = nodeAtPointer(node, error.instancePath);
        const errorPath = [...path, ...error.instancePath.split('/').slice(1)];
        return {
          loc: located.node.loc,
          path: errorPath,
          message: `${at(errorPath)}${dataMessage(error, located.node)}`,
          hint: `write a value that matches metaKeys.${key}.schema`,
        };
      });
    };
  }

  private compileFinding(error: Error, current: Owner): Finding {
    const raw = error.message;
    const where = / at (?:path )?"([^"]*)"/.exec(raw)?.[1];
    let owner = current;
    let pointer = '';
    if (where !== undefined) {
      const hash = where.indexOf('#');
      const base = hash < 0 ? where : where.slice(0, hash);
      owner = this.owners.get(base) ?? current;
      pointer = hash < 0 ? '' : where.slice(hash + 1);
    }
    const located = nodeAtPointer(owner.node, pointer);
    const segments = pointer.split('/').slice(1 + (owner.skipSegments ?? 0));
    const path = [...owner.path, ...segments];
    const text = raw
      .replace(/^strict mode: /, '')
      .replace(/ at (?:path )?"[^"]*"/, '')
      .replace(/ \(strict\w+\)$/, '');
    const missingType = /missing type "(\w+)" for keyword "(\w+)"/.exec(text);
    if (missingType) {
      return {
        loc: located.node.loc,
        path,
        message: `${at(path)}keyword '${missingType[2]}' needs a type (svc compiles schemas in strict mode)`,
        hint: `add type: ${missingType[1]} next to ${missingType[2]}`,
      };
    }
    if (/allowUnionTypes/.test(text)) {
      return {
        loc: located.node.loc,
        path,
        message: `${at(path)}a value may have one type, or one type and 'null'`,
        hint: 'use anyOf: [{ type: string }, { type: integer }] for other unions',
      };
    }
    if (/default is ignored in the schema root/.test(text)) {
      return {
        loc: located.node.loc,
        path,
        message: `${at(path)}a default at the top of this schema has no effect`,
        hint: 'move default onto the properties it is for, or remove it',
      };
    }
    if (/-tuple/.test(text)) {
      return {
        loc: located.node.loc,
        path,
        message: `${at(path)}${text}`,
        hint: 'give a fixed-length tuple items: false and minItems equal to the number of prefixItems',
      };
    }
    return {
      loc: located.node.loc,
      path,
      message: `${at(path)}schema does not compile: ${text}`,
      hint: 'change the schema as the message says (ajv strict mode, JSON Schema 2020-12)',
    };
  }
}

/** Subschemas ajv validates against, and so where it would apply a default. */
const VALIDATED_SINGLES = SUBSCHEMA_SINGLES.filter((keyword) => keyword !== 'contentSchema');

/** Subschemas (below the root, where ajv honours a default) that carry `default`, with their pointers. */
function schemasWithDefault(
  schema: unknown,
  pointer: string,
): { pointer: string; subschema: Record<string, unknown> }[] {
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) return [];
  const object = schema as Record<string, unknown>;
  const found = pointer !== '' && 'default' in object ? [{ pointer, subschema: object }] : [];
  const escape = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
  for (const [keyword, value] of Object.entries(object)) {
    if (SCHEMA_MAP.includes(keyword) && typeof value === 'object' && value !== null) {
      for (const [name, inner] of Object.entries(value))
        found.push(...schemasWithDefault(inner, `${pointer}/${keyword}/${escape(name)}`));
    } else if (SCHEMA_LIST.includes(keyword) && Array.isArray(value)) {
      value.forEach((inner, index) =>
        found.push(...schemasWithDefault(inner, `${pointer}/${keyword}/${index}`)),
      );
    } else if (VALIDATED_SINGLES.includes(keyword)) {
      found.push(...schemasWithDefault(value, `${pointer}/${keyword}`));
    }
  }
  return found;
}

function isResourceRef(schema: JsonSchema): boolean {
  return (
    typeof schema === 'object' &&
    Object.keys(schema).length === 1 &&
    typeof schema.$ref === 'string' &&
    schema.$ref.startsWith(RESOURCE_REF_PREFIX)
  );
}

/** Deep copy with `#/resources/X` references pointed at the ids the resources were registered under. */
export function rewriteRefs(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(rewriteRefs);
  if (schema === null || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    const rewritten =
      key === '$ref' && typeof value === 'string' && value.startsWith(RESOURCE_REF_PREFIX)
        ? RESOURCE_ID_PREFIX + value.slice(RESOURCE_REF_PREFIX.length)
        : rewriteRefs(value);
    Object.defineProperty(out, key, {
      value: rewritten,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return out;
}

/** One error per place, the most specific: anyOf summaries and errors on an ancestor of another are dropped. */
function selectErrors(errors: readonly ErrorObject[]): ErrorObject[] {
  const byPath = new Map<string, ErrorObject>();
  for (const error of errors) {
    if (['anyOf', 'oneOf', '$dynamicRef', 'if'].includes(error.keyword)) continue;
    if (!byPath.has(error.instancePath)) byPath.set(error.instancePath, error);
  }
  const paths = [...byPath.keys()];
  return paths
    .filter((path) => !paths.some((other) => other !== path && other.startsWith(`${path}/`)))
    .map((path) => byPath.get(path)!);
}

function metaFinding(error: ErrorObject, owner: Owner): Finding {
  const located = nodeAtPointer(owner.node, error.instancePath);
  const segments = error.instancePath.split('/').slice(1);
  const path = [...owner.path, ...segments];
  const last = segments[segments.length - 1] ?? '';
  const parent = segments[segments.length - 2] ?? '';
  const node = located.node;
  let message = `${at(path)}${error.message ?? 'is invalid'}`;
  if (error.keyword === 'type') {
    const types = String((error.params as { type?: unknown }).type).split(',');
    const wanted =
      types.join() === 'object,boolean'
        ? 'a schema'
        : types.map((type) => TYPE_WORDS[type] ?? type).join(' or ');
    message = `${at(path)}expected ${wanted} but got ${describeNode(node)}`;
  }
  return { loc: node.loc, path, message, hint: metaHint(last, parent) };
}

/** ajv's message for a data error, with the value that was written. */
export function dataMessage(error: ErrorObject, node: Node): string {
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'type':
      return `expected ${String(params.type)
        .split(',')
        .map((type) => TYPE_WORDS[type] ?? type)
        .join(' or ')} but got ${describeNode(node)}`;
    case 'enum':
      return `expected one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')} but got ${describeNode(node)}`;
    case 'required':
      return `missing required key '${String(params.missingProperty)}'`;
    case 'additionalProperties':
      return `unknown key '${String(params.additionalProperty)}'`;
    default:
      return `${error.message ?? 'is invalid'} (got ${describeNode(node)})`;
  }
}

function metaHint(keyword: string, parent: string): string {
  if (SCHEMA_MAP.includes(parent) || SCHEMA_LIST.includes(parent))
    return `write a schema, e.g. { type: string }`;
  if (WHOLE_NUMBER.includes(keyword)) return `write a whole number of 0 or more, e.g. ${keyword}: 1`;
  if (NUMBER.includes(keyword)) return `write a number, e.g. ${keyword}: 0`;
  if (keyword === 'required') return 'write a list of property names, e.g. required: [id, title]';
  if (keyword === 'enum') return 'write a list of allowed values, e.g. enum: [draft, published]';
  if (SCHEMA_MAP.includes(keyword))
    return `write a mapping of names to schemas, e.g. ${keyword}: { id: { type: string } }`;
  if (SCHEMA_LIST.includes(keyword)) return `write a list of schemas, e.g. ${keyword}: [{ type: string }]`;
  if (['uniqueItems', 'readOnly', 'writeOnly', 'deprecated'].includes(keyword))
    return `write ${keyword}: true or false`;
  if (
    [
      'title',
      'description',
      'pattern',
      'format',
      '$comment',
      '$ref',
      'contentEncoding',
      'contentMediaType',
    ].includes(keyword)
  ) {
    return `write ${keyword} as a string`;
  }
  if (keyword === 'examples') return 'write a list of example values';
  if (keyword === 'type')
    return 'write one of string, number, integer, boolean, object, array, null (or a list of them)';
  return `write ${keyword} as JSON Schema 2020-12 defines it, e.g. ${keyword}: { type: string }`;
}
