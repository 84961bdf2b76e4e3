// Which type each query or path value must be parsed to. Computed from the part's object schema once:
// by the generator (emitted into routes.ts) or by route() at boot. Unknown shapes stay text ('any').

/** How a text value from a query string or path is turned into the type its schema asks for. */
export type ScalarCoercion = 'integer' | 'number' | 'boolean' | 'string' | 'null' | 'any';
export type FieldCoercion = ScalarCoercion | { items: ScalarCoercion };
/** Property name → coercion; computed once from the schema (by the generator, or by route() at boot). */
export type CoercionPlan = Readonly<Record<string, FieldCoercion>>;

type Schema = boolean | { [keyword: string]: unknown };

const SCALARS: readonly ScalarCoercion[] = ['integer', 'number', 'boolean', 'null', 'string'];

export function coercionPlan(
  schema: Schema,
  resolve: (ref: string) => Schema | undefined = () => undefined,
): CoercionPlan {
  const plan: Record<string, FieldCoercion> = {};
  const properties = typeof schema === 'object' ? schema.properties : undefined;
  if (!properties || typeof properties !== 'object') return plan;
  for (const [name, property] of Object.entries(properties as Record<string, Schema>)) {
    plan[name] = fieldCoercion(deref(property, resolve), resolve);
  }
  return plan;
}

function fieldCoercion(schema: Schema, resolve: (ref: string) => Schema | undefined): FieldCoercion {
  if (typeof schema !== 'object') return 'any';
  const types = typesOf(schema);
  if (types.includes('array')) {
    const items = deref((schema.items as Schema | undefined) ?? true, resolve);
    return { items: scalarOf(typeof items === 'object' ? typesOf(items) : []) };
  }
  return scalarOf(types);
}

/** The most specific scalar the value may be; 'integer' wins over 'number', text values otherwise. */
function scalarOf(types: readonly string[]): ScalarCoercion {
  for (const scalar of SCALARS) if (types.includes(scalar)) return scalar;
  return 'any';
}

function typesOf(schema: { [keyword: string]: unknown }): string[] {
  if (typeof schema.type === 'string') return [schema.type];
  if (Array.isArray(schema.type)) return schema.type.filter((t): t is string => typeof t === 'string');
  if ('const' in schema) return [jsonType(schema.const)];
  if (Array.isArray(schema.enum)) return [...new Set(schema.enum.map(jsonType))];
  return [];
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Number.isInteger(value)) return 'integer';
  return typeof value;
}

function deref(schema: Schema, resolve: (ref: string) => Schema | undefined): Schema {
  let current = schema;
  for (let hops = 0; hops < 16 && typeof current === 'object' && typeof current.$ref === 'string'; hops++) {
    current = resolve(current.$ref) ?? true;
  }
  return current;
}
