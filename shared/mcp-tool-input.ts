// The one rule for an MCP tool's input: a tool takes one flat object, so a route's params, query and JSON body
// properties are merged into a single object schema. The spec loader (a located problem), the generator
// (mcp-tools.json) and the runtime (tools of handwritten routes) all read it, so a property that two parts
// share is refused everywhere instead of one part silently overwriting the other.

export type ToolInputPartName = 'params' | 'query' | 'body';

/** One part of a route's input, its root schema already resolved (a `$ref` to a resource followed). */
export interface ToolInputPart {
  name: ToolInputPartName;
  schema: unknown;
  /** Whether the part's `required` carries over (false for an optional body, which may be left out). */
  requiredCounts: boolean;
}

/** A property declared by two parts of the same route. */
export interface ToolInputClash {
  property: string;
  first: ToolInputPartName;
  second: ToolInputPartName;
}

export interface ToolInputSchemaObject {
  type: 'object';
  properties: Record<string, unknown>;
  required?: string[];
  /** Set when every part refuses unknown properties (or there is no part): then so does the tool. */
  additionalProperties?: false;
}

/** Two parts declare the same property: thrown by toolInputSchema, naming the route. */
export class ToolInputClashError extends Error {
  constructor(
    readonly route: string,
    readonly clash: ToolInputClash,
  ) {
    super(
      `route ${route}: property '${clash.property}' is in both ${clash.first} and ${clash.second}; an MCP tool takes one flat object`,
    );
    this.name = 'ToolInputClashError';
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  return isObject(schema) && isObject(schema.properties) ? schema.properties : {};
}

function requiredOf(schema: unknown): string[] {
  return isObject(schema) && Array.isArray(schema.required)
    ? schema.required.filter((name): name is string => typeof name === 'string')
    : [];
}

/** A part accepts no property outside its `properties`. */
function isClosed(schema: unknown): boolean {
  return (
    isObject(schema) && (schema.additionalProperties === false || schema.unevaluatedProperties === false)
  );
}

/** Every property two parts both declare, in part order. */
export function toolInputClashes(parts: readonly ToolInputPart[]): ToolInputClash[] {
  const owners = new Map<string, ToolInputPartName>();
  const clashes: ToolInputClash[] = [];
  for (const part of parts) {
    for (const property of Object.keys(propertiesOf(part.schema))) {
      const first = owners.get(property);
      if (first === undefined) owners.set(property, part.name);
      else clashes.push({ property, first, second: part.name });
    }
  }
  return clashes;
}

/**
 * The tool's input schema: every part's properties (through `mapProperty`, e.g. to point resource refs at
 * `$defs`), the required names of parts whose `required` counts, path parameters the params schema leaves
 * out as required strings, and `additionalProperties: false` when every part is closed. Throws
 * ToolInputClashError when two parts declare one property.
 */
export function toolInputSchema(
  route: string,
  parts: readonly ToolInputPart[],
  pathParams: readonly string[],
  mapProperty: (schema: unknown) => unknown = (schema) => schema,
): ToolInputSchemaObject {
  const complete = withPathParameters(parts, pathParams);
  const [clash] = toolInputClashes(complete);
  if (clash !== undefined) throw new ToolInputClashError(route, clash);
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  for (const part of complete) {
    for (const [name, schema] of Object.entries(propertiesOf(part.schema)))
      properties[name] = mapProperty(schema);
    if (part.requiredCounts) required.push(...requiredOf(part.schema));
  }
  const schema: ToolInputSchemaObject = { type: 'object', properties };
  if (required.length > 0) schema.required = [...new Set(required)];
  // A route that takes no input at all is closed too: a tool without parameters accepts none.
  if (complete.every((part) => isClosed(part.schema))) schema.additionalProperties = false;
  return schema;
}

/**
 * Path parameters always fill the path, so each is a required property of params: one the params schema
 * leaves out (or a route with no params schema) is a string, as the path gives it.
 */
function withPathParameters(parts: readonly ToolInputPart[], pathParams: readonly string[]): ToolInputPart[] {
  if (pathParams.length === 0) return [...parts];
  const params = parts.find((part) => part.name === 'params');
  const schema = isObject(params?.schema) ? params.schema : { type: 'object', additionalProperties: false };
  const properties: Record<string, unknown> = { ...propertiesOf(schema) };
  for (const name of pathParams) if (!Object.hasOwn(properties, name)) properties[name] = { type: 'string' };
  const required = [...new Set([...requiredOf(schema), ...pathParams])];
  const complete: ToolInputPart = {
    name: 'params',
    schema: { ...schema, properties, required },
    requiredCounts: true,
  };
  return params === undefined
    ? [complete, ...parts]
    : parts.map((part) => (part === params ? complete : part));
}
