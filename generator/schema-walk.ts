// Copies of spec schemas rewritten for one consumer (ajv, json-schema-to-typescript). The spec writes
// references to resources as `#/resources/<Name>`; each consumer needs its own form of them.
import { RESOURCE_REF_PREFIX, type JsonSchema, type SpecIR } from '../shared/ir.js';

// JSON Schema 2020-12 keywords whose values are subschemas; every other keyword's value is plain data.
const SCHEMA_MAP_KEYWORDS = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);
const SCHEMA_LIST_KEYWORDS = new Set(['allOf', 'anyOf', 'oneOf', 'prefixItems']);
const SCHEMA_KEYWORDS = new Set([
  'items',
  'additionalItems',
  'additionalProperties',
  'unevaluatedItems',
  'unevaluatedProperties',
  'propertyNames',
  'contains',
  'not',
  'if',
  'then',
  'else',
]);

export interface ResourceRef {
  /** Resource name. */
  name: string;
  /** JSON pointer inside the resource ('' for the resource itself), e.g. '/properties/id'. */
  pointer: string;
}

/** `#/resources/Note` → { name: 'Note', pointer: '' }; anything else → undefined. */
export function parseResourceRef(ref: string): ResourceRef | undefined {
  if (!ref.startsWith(RESOURCE_REF_PREFIX)) return undefined;
  const rest = ref.slice(RESOURCE_REF_PREFIX.length);
  const slash = rest.indexOf('/');
  const name = slash < 0 ? rest : rest.slice(0, slash);
  if (name === '') return undefined;
  return { name, pointer: slash < 0 ? '' : rest.slice(slash) };
}

/** The ref of a schema that is nothing but a resource reference (`{ $ref: '#/resources/Note' }`). */
export function pureResourceRef(schema: JsonSchema | null | undefined): ResourceRef | undefined {
  if (!schema || typeof schema !== 'object' || typeof schema.$ref !== 'string') return undefined;
  const ref = parseResourceRef(schema.$ref);
  return ref && ref.pointer === '' ? ref : undefined;
}

export type SchemaObject = { [keyword: string]: unknown };
export type SchemaVisitor = (schema: SchemaObject) => JsonSchema;

/**
 * Deep copy of a schema where `visit` may replace each (sub)schema object after its subschemas were copied.
 * Only real subschema positions are visited: a property called `title` or `$ref` is a name, and a
 * `default` holding a `$ref` key is data. Keys are defined, never assigned, so `__proto__` stays a key.
 */
export function mapSchema(schema: JsonSchema, visit: SchemaVisitor): JsonSchema {
  if (typeof schema !== 'object' || schema === null) return schema;
  const copy: SchemaObject = {};
  for (const [key, value] of Object.entries(schema)) {
    let mapped: unknown;
    if (SCHEMA_MAP_KEYWORDS.has(key) && isObject(value)) {
      const map: SchemaObject = {};
      for (const [name, sub] of Object.entries(value)) define(map, name, mapSub(sub, visit));
      mapped = map;
    } else if (SCHEMA_LIST_KEYWORDS.has(key) && Array.isArray(value)) {
      mapped = value.map((sub) => mapSub(sub, visit));
    } else if (SCHEMA_KEYWORDS.has(key)) {
      mapped = Array.isArray(value) ? value.map((sub) => mapSub(sub, visit)) : mapSub(value, visit);
    } else {
      mapped = copyData(value);
    }
    define(copy, key, mapped);
  }
  return visit(copy);
}

function mapSub(value: unknown, visit: SchemaVisitor): unknown {
  return typeof value === 'boolean' || isObject(value)
    ? mapSchema(value as JsonSchema, visit)
    : copyData(value);
}

function isObject(value: unknown): value is SchemaObject {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** A deep copy of JSON data. */
export function copyData(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(copyData);
  if (value === null || typeof value !== 'object') return value;
  const copy: SchemaObject = {};
  for (const [key, item] of Object.entries(value)) define(copy, key, copyData(item));
  return copy;
}

export function define(target: { [key: string]: unknown }, key: string, value: unknown): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

/** Looks a JSON pointer up inside a schema ('' is the schema itself). */
export function schemaAtPointer(schema: JsonSchema, pointer: string): JsonSchema | undefined {
  let current: unknown = schema;
  if (pointer === '') return schema;
  for (const raw of pointer.slice(1).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (current === null || typeof current !== 'object' || !Object.hasOwn(current, key)) return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return typeof current === 'boolean' || (current !== null && typeof current === 'object')
    ? (current as JsonSchema)
    : undefined;
}

/** Resolves a `#/resources/...` reference against the spec's resources (for coercion plans). */
export function resourceResolver(ir: Pick<SpecIR, 'resources'>): (ref: string) => JsonSchema | undefined {
  const byName = new Map(ir.resources.map((resource) => [resource.name, resource.schema]));
  return (ref) => {
    const parsed = parseResourceRef(ref);
    const schema = parsed && byName.get(parsed.name);
    return schema === undefined || !parsed ? undefined : schemaAtPointer(schema, parsed.pointer);
  };
}
