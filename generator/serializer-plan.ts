// What a response serializer writes for each schema position, decided at build time from the spec's JSON
// Schemas. A plan only ever names properties the schema declares (or allows, where extra properties are
// allowed); what it cannot model exactly (if/then/else, dependentSchemas, unions mixed with their own
// properties...) becomes a `checked` plan: the value must validate strictly and is then written whole.
import type { JsonSchema } from '../shared/ir.js';
import { parseResourceRef, schemaAtPointer } from './schema-walk.js';

/** A JSON value's kind as the serializer tells them apart (`integer` is a `number`). */
export type Kind = 'string' | 'number' | 'boolean' | 'null' | 'object' | 'array';

export const ALL_KINDS: readonly Kind[] = ['string', 'number', 'boolean', 'null', 'object', 'array'];

export type DatePart = 'date-time' | 'date' | 'time';

const DATE_PARTS: readonly unknown[] = ['date-time', 'date', 'time'] satisfies DatePart[];

export interface ObjectPlan {
  /** Declared properties, in the schema's order. */
  properties: { name: string; plan: Plan }[];
  /** patternProperties: an undeclared name matching a pattern is written by that pattern's plan. */
  patterns: { pattern: string; plan: Plan }[];
  /** Undeclared names matching no pattern: false drops them, a plan writes them. */
  additional: Plan | false;
}

export interface ArrayPlan {
  /** prefixItems, by position. */
  prefix: Plan[];
  /** Items after the prefix: false drops them. */
  items: Plan | false;
}

export type Plan =
  /** Anything goes: written as JSON.stringify writes it. */
  | { type: 'any' }
  /** The `false` schema: no value is allowed, so none is written (omitted; `null` in an array). */
  | { type: 'never' }
  /** A `$ref` to a resource (or a part of one): one shared function per target. */
  | { type: 'ref'; target: string }
  | {
      type: 'value';
      kinds: readonly Kind[];
      /** `format: date-time`, `date` or `time`: a Date is written as (that part of) its ISO form. */
      datePart?: DatePart;
      object?: ObjectPlan;
      array?: ArrayPlan;
    }
  /**
   * anyOf / oneOf. `byKind` when the branches take distinct JSON kinds (dispatch on the value's kind);
   * otherwise the first branch the value validates against strictly, else leniently (undeclared properties
   * ignored, so `{ ...note, extra }` still finds the Note branch), writes it.
   */
  | { type: 'union'; branches: { schema: JsonSchema; plan: Plan }[]; byKind?: Partial<Record<Kind, number>> }
  /** A schema the plans cannot model: the value must validate strictly and is written whole. */
  | { type: 'checked'; schema: JsonSchema };

type SchemaObject = { readonly [keyword: string]: unknown };

/** Keywords that only constrain or annotate: they never change which properties or items may be written. */
const INERT_KEYWORDS = new Set([
  'title',
  'description',
  'default',
  'deprecated',
  'readOnly',
  'writeOnly',
  'examples',
  'example',
  '$comment',
  'x-hint',
  'multipleOf',
  'maximum',
  'exclusiveMaximum',
  'minimum',
  'exclusiveMinimum',
  'maxLength',
  'minLength',
  'pattern',
  'format',
  'maxItems',
  'minItems',
  'uniqueItems',
  'contains',
  'maxContains',
  'minContains',
  'maxProperties',
  'minProperties',
  'required',
  'dependentRequired',
  'contentEncoding',
  'contentMediaType',
  'contentSchema',
  'discriminator',
  'not',
]);

/** Keywords the value plans model directly. */
const VALUE_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'properties',
  'patternProperties',
  'additionalProperties',
  'items',
  'prefixItems',
]);

/** Keywords that take the schema to a `checked` plan when the plans cannot fold them in. */
const UNMODELLED = new Set([
  'if',
  'then',
  'else',
  'dependentSchemas',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
]);

const MAX_MERGE_DEPTH = 32;

function isSchemaObject(schema: unknown): schema is SchemaObject {
  return schema !== null && typeof schema === 'object' && !Array.isArray(schema);
}

/** The keywords of `schema` that decide what may be written (everything but constraints and annotations). */
function structuralKeys(schema: SchemaObject): string[] {
  return Object.keys(schema).filter((key) => !INERT_KEYWORDS.has(key));
}

function kindsOfType(type: unknown): Kind[] | undefined {
  if (type === undefined) return undefined;
  const names = Array.isArray(type) ? type : [type];
  const kinds = new Set<Kind>();
  for (const name of names) {
    if (name === 'integer' || name === 'number') kinds.add('number');
    else if (typeof name === 'string' && (ALL_KINDS as readonly string[]).includes(name))
      kinds.add(name as Kind);
  }
  return ALL_KINDS.filter((kind) => kinds.has(kind));
}

function kindOfValue(value: unknown): Kind {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  const type = typeof value;
  if (type === 'string' || type === 'number' || type === 'boolean') return type;
  return 'object';
}

/** Resolves `#/resources/...` references to the schema they name. */
export type RefResolver = (ref: string) => JsonSchema | undefined;

export function resourceRefResolver(resources: ReadonlyMap<string, JsonSchema>): RefResolver {
  return (ref) => {
    const parsed = parseResourceRef(ref);
    const schema = parsed && resources.get(parsed.name);
    return schema === undefined || !parsed ? undefined : schemaAtPointer(schema, parsed.pointer);
  };
}

/**
 * Plans schemas; every `$ref` target is planned once (`targets`), which also ends recursion through
 * resources that contain themselves.
 */
export class SerializerPlanner {
  /** `#/resources/...` → its plan, in the order first referred to. */
  readonly targets = new Map<string, Plan>();
  private readonly pending = new Set<string>();

  constructor(private readonly resolve: RefResolver) {}

  plan(schema: JsonSchema): Plan {
    if (schema === true) return { type: 'any' };
    if (schema === false) return { type: 'never' };
    if (!isSchemaObject(schema)) return { type: 'checked', schema };
    const keys = structuralKeys(schema);
    if (keys.length === 0) return { type: 'any' };
    if (typeof schema.$ref === 'string') {
      if (keys.length === 1) return this.refPlan(schema.$ref);
      // A $ref beside other keywords applies both, as allOf does.
      const rest = without(schema, ['$ref']);
      return this.plan({ allOf: [{ $ref: schema.$ref }, rest] });
    }
    if (Array.isArray(schema.allOf)) {
      const merged = this.mergeAllOf(schema);
      return merged === undefined ? { type: 'checked', schema } : this.plan(merged);
    }
    const hasAnyOf = Array.isArray(schema.anyOf);
    const hasOneOf = Array.isArray(schema.oneOf);
    if (hasAnyOf || hasOneOf) {
      if (hasAnyOf && hasOneOf) return { type: 'checked', schema };
      const branches = (hasAnyOf ? schema.anyOf : schema.oneOf) as JsonSchema[];
      const own = without(schema, ['anyOf', 'oneOf']);
      // Branches that only constrain (`oneOf: [{ required: [a] }, { required: [b] }]`) change nothing written.
      if (branches.every((branch) => isSchemaObject(branch) && structuralKeys(branch).length === 0)) {
        return this.plan(own);
      }
      if (structuralKeys(own).length > 0) return { type: 'checked', schema };
      return this.unionPlan(branches);
    }
    if (keys.some((key) => UNMODELLED.has(key) || !VALUE_KEYWORDS.has(key))) {
      // unevaluatedProperties: false beside plain properties means what additionalProperties: false means.
      if (
        keys.every((key) => VALUE_KEYWORDS.has(key) || key === 'unevaluatedProperties') &&
        schema.unevaluatedProperties === false &&
        schema.additionalProperties === undefined
      ) {
        return this.plan({ ...without(schema, ['unevaluatedProperties']), additionalProperties: false });
      }
      return { type: 'checked', schema };
    }
    return this.valuePlan(schema);
  }

  private refPlan(ref: string): Plan {
    if (!this.targets.has(ref) && !this.pending.has(ref)) {
      const target = this.resolve(ref);
      if (target === undefined) return { type: 'checked', schema: { $ref: ref } };
      this.pending.add(ref);
      const plan = this.plan(target);
      this.pending.delete(ref);
      this.targets.set(ref, plan);
    }
    return { type: 'ref', target: ref };
  }

  private valuePlan(schema: SchemaObject): Plan {
    let kinds = kindsOfType(schema.type) ?? [...ALL_KINDS];
    const values = 'const' in schema ? [schema.const] : Array.isArray(schema.enum) ? schema.enum : undefined;
    if (values !== undefined) {
      const valueKinds = new Set(values.map(kindOfValue));
      // An enum of objects or arrays: the value must be one of them, which only a validator can tell.
      if (valueKinds.has('object') || valueKinds.has('array')) return { type: 'checked', schema };
      kinds = kinds.filter((kind) => valueKinds.has(kind));
    }
    const plan: Extract<Plan, { type: 'value' }> = { type: 'value', kinds };
    if (kinds.includes('string') && DATE_PARTS.includes(schema.format))
      plan.datePart = schema.format as DatePart;
    if (kinds.includes('object')) plan.object = this.objectPlan(schema);
    if (kinds.includes('array')) plan.array = this.arrayPlan(schema);
    return plan;
  }

  private objectPlan(schema: SchemaObject): ObjectPlan {
    const properties = isSchemaObject(schema.properties) ? schema.properties : {};
    const patterns = isSchemaObject(schema.patternProperties) ? schema.patternProperties : {};
    const additional = schema.additionalProperties;
    return {
      properties: Object.entries(properties).map(([name, sub]) => ({
        name,
        plan: this.plan(sub as JsonSchema),
      })),
      patterns: Object.entries(patterns).map(([pattern, sub]) => ({
        pattern,
        plan: this.plan(sub as JsonSchema),
      })),
      additional: additional === false ? false : this.plan((additional ?? true) as JsonSchema),
    };
  }

  private arrayPlan(schema: SchemaObject): ArrayPlan {
    const prefix = Array.isArray(schema.prefixItems) ? (schema.prefixItems as JsonSchema[]) : [];
    const items = schema.items;
    return {
      prefix: prefix.map((sub) => this.plan(sub)),
      items: items === false ? false : this.plan((items ?? true) as JsonSchema),
    };
  }

  private unionPlan(branches: readonly JsonSchema[]): Plan {
    const planned = branches.map((schema) => ({ schema, plan: this.plan(schema) }));
    const byKind: Partial<Record<Kind, number>> = {};
    let distinct = true;
    planned.forEach(({ plan }, index) => {
      const kinds = this.kindsOf(plan);
      if (kinds === undefined) distinct = false;
      for (const kind of kinds ?? []) {
        if (byKind[kind] !== undefined) distinct = false;
        byKind[kind] = index;
      }
    });
    return distinct ? { type: 'union', branches: planned, byKind } : { type: 'union', branches: planned };
  }

  /** The kinds a plan writes natively; undefined when only a validator can tell. */
  private kindsOf(plan: Plan, seen = new Set<string>()): readonly Kind[] | undefined {
    switch (plan.type) {
      case 'any':
        return ALL_KINDS;
      case 'never':
        return [];
      case 'value':
        return plan.kinds;
      case 'ref': {
        const target = this.targets.get(plan.target);
        if (target === undefined || seen.has(plan.target)) return undefined;
        seen.add(plan.target);
        return this.kindsOf(target, seen);
      }
      case 'union': {
        const kinds = new Set<Kind>();
        for (const branch of plan.branches) {
          const branchKinds = this.kindsOf(branch.plan, seen);
          if (branchKinds === undefined) return undefined;
          for (const kind of branchKinds) kinds.add(kind);
        }
        return ALL_KINDS.filter((kind) => kinds.has(kind));
      }
      case 'checked':
        return undefined;
    }
  }

  /**
   * allOf as one schema: properties of every member (a name some member forbids is dropped), the kinds all
   * members allow, undeclared names only where every member allows them. undefined when a member uses what
   * a merge cannot express (unions, conditionals, two tuples...).
   */
  private mergeAllOf(schema: SchemaObject): SchemaObject | undefined {
    const own = without(schema, ['allOf']);
    const members: SchemaObject[] = [];
    const collect = (candidate: unknown, depth: number): boolean => {
      if (depth > MAX_MERGE_DEPTH) return false;
      if (candidate === true) return true;
      if (!isSchemaObject(candidate)) return false;
      if (typeof candidate.$ref === 'string') {
        const target = this.resolve(candidate.$ref);
        if (target === undefined || !collect(target, depth + 1)) return false;
        return collect(without(candidate, ['$ref']), depth + 1);
      }
      if (Array.isArray(candidate.allOf)) {
        if (!candidate.allOf.every((member) => collect(member, depth + 1))) return false;
        return collect(without(candidate, ['allOf']), depth + 1);
      }
      members.push(candidate);
      return true;
    };
    const ownUnevaluated = own.unevaluatedProperties;
    if (!collect(without(own, ['unevaluatedProperties']), 0)) return undefined;
    if (!(schema.allOf as unknown[]).every((member) => collect(member, 1))) return undefined;
    if (ownUnevaluated !== undefined && ownUnevaluated !== false) return undefined;
    for (const member of members) {
      if (structuralKeys(member).some((key) => !VALUE_KEYWORDS.has(key))) return undefined;
      if ('const' in member || 'enum' in member) return undefined;
    }
    if (members.filter((member) => member.prefixItems !== undefined).length > 1) return undefined;

    const merged: Record<string, unknown> = {};
    const types = members.map((member) => kindsOfType(member.type)).filter((kinds) => kinds !== undefined);
    if (types.length > 0)
      merged.type = ALL_KINDS.filter((kind) => types.every((kinds) => kinds.includes(kind)));
    const format = members.find((member) => typeof member.format === 'string')?.format;
    if (format !== undefined) merged.format = format;

    const allows = (member: SchemaObject, name: string): boolean => {
      if (isSchemaObject(member.properties) && Object.hasOwn(member.properties, name)) return true;
      if (isSchemaObject(member.patternProperties)) {
        for (const pattern of Object.keys(member.patternProperties)) {
          if (new RegExp(pattern, 'u').test(name)) return true;
        }
      }
      return member.additionalProperties !== false;
    };
    const propertySchemas = new Map<string, JsonSchema[]>();
    const patternSchemas = new Map<string, JsonSchema[]>();
    const additional: JsonSchema[] = [];
    let closed = ownUnevaluated === false;
    for (const member of members) {
      if (isSchemaObject(member.properties)) {
        for (const [name, sub] of Object.entries(member.properties)) {
          propertySchemas.set(name, [...(propertySchemas.get(name) ?? []), sub as JsonSchema]);
        }
      }
      if (isSchemaObject(member.patternProperties)) {
        for (const [pattern, sub] of Object.entries(member.patternProperties)) {
          patternSchemas.set(pattern, [...(patternSchemas.get(pattern) ?? []), sub as JsonSchema]);
        }
      }
      if (member.additionalProperties === false) closed = true;
      else if (member.additionalProperties !== undefined) {
        additional.push(member.additionalProperties as JsonSchema);
      }
    }
    const properties: Record<string, JsonSchema> = {};
    for (const [name, subs] of propertySchemas) {
      if (!members.every((member) => allows(member, name))) continue;
      Object.defineProperty(properties, name, {
        value: combine(subs),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    if (propertySchemas.size > 0) merged.properties = properties;
    if (patternSchemas.size > 0) {
      // A pattern of one member is only safe when every other member lets those names through too.
      if (
        closed &&
        members.some((member) => member.additionalProperties === false && !member.patternProperties)
      ) {
        return undefined;
      }
      merged.patternProperties = Object.fromEntries(
        [...patternSchemas].map(([pattern, subs]) => [pattern, combine(subs)]),
      );
    }
    if (closed) merged.additionalProperties = false;
    else if (additional.length > 0) merged.additionalProperties = combine(additional);
    const items = members.map((member) => member.items).filter((sub) => sub !== undefined) as JsonSchema[];
    if (items.length > 0) merged.items = combine(items);
    const prefix = members.find((member) => member.prefixItems !== undefined)?.prefixItems;
    if (prefix !== undefined) merged.prefixItems = prefix;
    return merged;
  }
}

function combine(schemas: readonly JsonSchema[]): JsonSchema {
  return schemas.length === 1 ? (schemas[0] as JsonSchema) : { allOf: [...schemas] };
}

function without(schema: SchemaObject, keys: readonly string[]): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(schema)) {
    if (keys.includes(key)) continue;
    Object.defineProperty(copy, key, { value, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}
