// serializers.js + serializers.d.ts: per route and declared JSON response status, a function writing the
// handler's value as JSON with only the properties the response schema declares (`<routeId>_<status>`),
// and the response's strict validator (`<routeId>_<status>_check`), which the runtime calls outside
// production to report a response that does not match, and to name the fields when a value cannot be
// written at all. Validators come from ajv's standalone code, as in validators.js.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import standaloneModule from 'ajv/dist/standalone/index.js';
import { isStreamResponse, type JsonSchema, type SpecIR } from '../shared/ir.js';
import { createAjv } from '../shared/validation/ajv.js';
import { assertKnownRequires } from './emit-validators.js';
import { define, mapSchema, parseResourceRef, pureResourceRef } from './schema-walk.js';
import { SERIALIZER_HELPERS, SerializerCode } from './serializer-code.js';
import { resourceRefResolver, SerializerPlanner } from './serializer-plan.js';

type StandaloneCode = (ajv: Ajv2020, refsOrFunc: Record<string, string>) => string;
// ajv's standalone entry is CommonJS; depending on the loader its function arrives as the module or `.default`.
const standaloneCode: StandaloneCode =
  (standaloneModule as unknown as { default?: StandaloneCode }).default ??
  (standaloneModule as unknown as StandaloneCode);

export interface SerializerExport {
  /** `listNotes_200`: the serializer; the validator is `${name}_check`. */
  name: string;
  routeId: string;
  status: number;
}

export interface EmitSerializersInput {
  ir: Pick<SpecIR, 'resources' | 'routes'>;
  header: string;
  /** Module that exports requireRuntime ('svckit/validation-runtime'). */
  validationRuntimeImport: string;
  /** Module that exports the CompiledValidator and ResponseSerializer types ('svckit/core'). */
  typesImport: string;
}

export interface EmittedSerializers {
  js: string;
  dts: string;
  /** The same module as TypeScript (`@ts-nocheck`), for svckit's own generated/modules (see validators.ts). */
  ts: string;
  exports: SerializerExport[];
}

export function serializerName(routeId: string, status: number | string): string {
  return `${routeId}_${status}`;
}

export function responseValidatorName(routeId: string, status: number | string): string {
  return `${serializerName(routeId, status)}_check`;
}

/** The statuses of a route answered with a JSON schema (not `null`, not a stream), in declaration order. */
export function jsonResponseStatuses(route: SpecIR['routes'][number]): number[] {
  return Object.entries(route.responses)
    .filter(([, response]) => response !== null && !isStreamResponse(response))
    .map(([status]) => Number(status));
}

const RESOURCE_ID = (name: string) => `svc:resources/${name}`;
const LENIENT_RESOURCE_ID = (name: string) => `svc:lenient-resources/${name}`;
const SCHEMA_ID = (index: number) => `svc:serializers/${index}`;

/** The ajv validators the serializers call, each compiled once. */
class Validators {
  // No defaults: a validator never changes the value it checks. Referenced resources stay functions of their
  // own rather than being inlined into every route's validator: the module is a third of the size.
  readonly ajv = createAjv({ code: { source: true, esm: true }, useDefaults: false, inlineRefs: false });
  /** Internal name → schema id, in the order first asked for. */
  readonly used = new Map<string, string>();
  private readonly byKey = new Map<string, string>();

  constructor(resources: SpecIR['resources']) {
    for (const resource of resources) {
      this.ajv.addSchema(withId(forAjv(resource.schema, false), RESOURCE_ID(resource.name)));
      this.ajv.addSchema(withId(forAjv(resource.schema, true), LENIENT_RESOURCE_ID(resource.name)));
    }
  }

  /** The internal name of the validator of `schema`; `lenient` ignores additionalProperties: false. */
  nameFor(schema: JsonSchema, lenient: boolean): string {
    const key = `${lenient ? 'lenient' : 'strict'}:${JSON.stringify(schema)}`;
    let name = this.byKey.get(key);
    if (name !== undefined) return name;
    const ref = pureResourceRef(schema);
    let id: string;
    if (ref) id = lenient ? LENIENT_RESOURCE_ID(ref.name) : RESOURCE_ID(ref.name);
    else {
      id = SCHEMA_ID(this.byKey.size);
      this.ajv.addSchema(withId(forAjv(schema, lenient), id));
    }
    name = `$valid${this.used.size}`;
    this.used.set(name, id);
    this.byKey.set(key, name);
    return name;
  }

  /** Ajv's standalone code for every validator asked for, each bound to its internal name. */
  code(): string {
    if (this.used.size === 0) return '';
    const mapping: Record<string, string> = {};
    for (const [name, id] of this.used) define(mapping, name, id);
    let code = standaloneCode(this.ajv, mapping).replace(/^"use strict";/, '');
    assertKnownRequires(code);
    for (const name of this.used.keys()) code = code.replace(`export const ${name} =`, `const ${name} =`);
    return code;
  }
}

export function emitSerializers(input: EmitSerializersInput): EmittedSerializers {
  const { ir } = input;
  const resources = new Map(ir.resources.map((resource) => [resource.name, resource.schema]));
  const planner = new SerializerPlanner(resourceRefResolver(resources));
  const validators = new Validators(ir.resources);
  const writer = new SerializerCode(planner.targets, (schema, lenient) =>
    validators.nameFor(schema, lenient),
  );

  const exports: SerializerExport[] = [];
  const exportLines: string[] = [];
  for (const route of ir.routes) {
    for (const status of jsonResponseStatuses(route)) {
      const schema = route.responses[String(status)] as JsonSchema;
      const name = serializerName(route.id, status);
      const write = writer.functionFor(planner.plan(schema));
      exportLines.push(
        `export const ${name} = (value) => $root(${write}(value, '', 0));`,
        `export const ${responseValidatorName(route.id, status)} = ${validators.nameFor(schema, false)};`,
      );
      exports.push({ name, routeId: route.id, status });
    }
  }
  // Validators first asked for while writing the functions above; their code comes last so all are known.
  const functions = writer.code();
  const validatorCode = validators.code();
  const needsRuntime = /\brequire\(/.test(validatorCode);
  const requireLine = `import { requireRuntime as require } from '${input.validationRuntimeImport}';`;
  const body = [
    ...(exports.length > 0 ? [SERIALIZER_HELPERS, functions, validatorCode] : []),
    '// One serializer and one validator per route and JSON response status.',
    ...exportLines,
  ];
  const js = [input.header, ...(needsRuntime ? [requireLine] : []), '', ...body];
  const ts = [
    input.header,
    '// @ts-nocheck: generated serializers and ajv standalone code, both untyped; the exports are declared below.',
    ...(needsRuntime ? [requireLine] : []),
    `import type { CompiledValidator, ResponseSerializer } from '${input.typesImport}';`,
    '',
    ...body.map((text) =>
      text.replace(/^(export const \w+) = /gm, (line, head: string) => declaredAs(head, line)),
    ),
    ...(exports.length === 0 ? ['export {};'] : []),
  ];
  return {
    js: `${js.join('\n').replace(/\n{3,}/g, '\n\n')}\n`,
    dts: `${declarations(input, exports)}\n`,
    ts: `${ts.join('\n').replace(/\n{3,}/g, '\n\n')}\n`,
    exports,
  };
}

/** `export const x_200 = ` → `export const x_200: ResponseSerializer = ` (and CompiledValidator for checks). */
function declaredAs(head: string, line: string): string {
  const type = head.endsWith('_check') ? 'CompiledValidator' : 'ResponseSerializer';
  return `${head}: ${type} = ${line.slice(head.length + ' = '.length)}`;
}

function declarations(input: EmitSerializersInput, exports: readonly SerializerExport[]): string {
  return [
    input.header,
    `import type { CompiledValidator, ResponseSerializer } from '${input.typesImport}';`,
    '',
    ...exports.flatMap(({ routeId, status, name }) => [
      `export declare const ${name}: ResponseSerializer;`,
      `export declare const ${responseValidatorName(routeId, status)}: CompiledValidator;`,
    ]),
    ...(exports.length === 0 ? ['export {};'] : []),
  ].join('\n');
}

/**
 * The schema as the serializers' ajv sees it: resource refs point at the resources' ids; a lenient copy
 * lets undeclared properties through (additionalProperties/unevaluatedProperties: false dropped), so a
 * value carrying extra fields still finds its union branch, whose serializer then drops them.
 */
function forAjv(schema: JsonSchema, lenient: boolean): JsonSchema {
  return mapSchema(schema, (node) => {
    if (typeof node.$ref === 'string') {
      const ref = parseResourceRef(node.$ref);
      if (ref) {
        const id = lenient ? LENIENT_RESOURCE_ID(ref.name) : RESOURCE_ID(ref.name);
        node.$ref = id + (ref.pointer === '' ? '' : `#${ref.pointer}`);
      }
    }
    if (lenient) {
      if (node.additionalProperties === false) delete node.additionalProperties;
      if (node.unevaluatedProperties === false) delete node.unevaluatedProperties;
    }
    return node;
  });
}

function withId(schema: JsonSchema, id: string): { [keyword: string]: unknown } {
  if (schema === true) return { $id: id };
  if (schema === false) return { $id: id, not: {} };
  return { $id: id, ...schema };
}
