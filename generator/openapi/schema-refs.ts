// Resource references inside spec schemas (`{ $ref: '#/resources/Note' }`): rewriting them for the
// document a schema is copied into (OpenAPI components, an MCP tool's $defs) and finding what they reach.
import {
  RESOURCE_REF_PREFIX,
  type JsonSchema,
  type JsonSchemaObject,
  type ResourceIR,
} from '../../shared/ir.js';

/** A deep copy of `schema` with every `$ref` string passed through `rewrite`. */
export function mapRefs(schema: JsonSchema, rewrite: (ref: string) => string): JsonSchema {
  return copy(schema, rewrite) as JsonSchema;
}

function copy(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => copy(item, rewrite));
  if (value === null || typeof value !== 'object') return value;
  const result: JsonSchemaObject = {};
  for (const [key, child] of Object.entries(value)) {
    result[key] = key === '$ref' && typeof child === 'string' ? rewrite(child) : copy(child, rewrite);
  }
  return result;
}

/** `#/resources/Note/properties/id` → `<prefix>Note/properties/id`; other refs stay as written. */
export function resourceRefRewriter(prefix: string): (ref: string) => string {
  return (ref) =>
    ref.startsWith(RESOURCE_REF_PREFIX) ? prefix + ref.slice(RESOURCE_REF_PREFIX.length) : ref;
}

/** The resource a ref points into (`#/resources/Note/...` → 'Note'), or undefined for any other ref. */
export function referencedResource(ref: string): string | undefined {
  if (!ref.startsWith(RESOURCE_REF_PREFIX)) return undefined;
  const name = ref.slice(RESOURCE_REF_PREFIX.length).split('/')[0];
  return name ? decodePointerToken(name) : undefined;
}

/** Every resource `schema` reaches, directly or through other resources, in first-reached order. */
export function reachableResources(schema: JsonSchema, resources: readonly ResourceIR[]): string[] {
  const found: string[] = [];
  const visit = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(visit);
    if (value === null || typeof value !== 'object') return;
    for (const [key, child] of Object.entries(value)) {
      const name = key === '$ref' && typeof child === 'string' ? referencedResource(child) : undefined;
      if (name === undefined) {
        visit(child);
        continue;
      }
      if (found.includes(name)) continue;
      found.push(name);
      const resource = resources.find((candidate) => candidate.name === name);
      if (resource) visit(resource.schema);
    }
  };
  visit(schema);
  return found;
}

/**
 * Follows `$ref`s at the root of `schema` to the schema they name (`{ $ref: '#/resources/NoteInput' }` →
 * NoteInput's schema). A schema that is not a bare resource ref is returned as is.
 */
export function resolveRootRef(schema: JsonSchema, resources: readonly ResourceIR[]): JsonSchema {
  let current = schema;
  for (let hops = 0; hops < 16; hops++) {
    if (typeof current !== 'object' || typeof current.$ref !== 'string') return current;
    const ref = current.$ref;
    const name = referencedResource(ref);
    if (name === undefined || ref !== RESOURCE_REF_PREFIX + name) return current;
    const resource = resources.find((candidate) => candidate.name === name);
    if (!resource) return current;
    current = resource.schema;
  }
  return current;
}

function decodePointerToken(token: string): string {
  return token.replace(/~1/g, '/').replace(/~0/g, '~');
}
