// routes.ts: the Handlers interface (one typed handler per route id), the route definitions bound to the
// precompiled validators, coercion plans computed here at build time, and routes(handlers).
import {
  EVENT_STREAM,
  isStreamResponse,
  type BodyIR,
  type JsonSchemaObject,
  type RouteIR,
  type SpecIR,
} from '../shared/ir.js';
import { successStatusOf } from '../shared/success-status.js';
import { coercionPlan } from '../shared/validation/coercion-plan.js';
import { jsonResponseStatuses, responseValidatorName, serializerName } from './emit-serializers.js';
import { docComment } from './emit-types.js';
import { validatorName } from './emit-validators.js';
import { toJsLiteral } from './js-literal.js';
import { routeTypeNames } from './names.js';
import { resourceResolver } from './schema-walk.js';
import { runtimeImports } from './runtime-imports.js';
import { renderTemplate } from './templates.js';
import { isSuccess } from './type-plan.js';

export interface EmitRoutesInput {
  ir: SpecIR;
  header: string;
  /** 'svckit', or a relative path from the output folder to svckit's runtime/ (see runtime-imports.ts). */
  runtimeImport: string;
  /** Named in doc comments, e.g. 'svc.config.yaml'. */
  source: string;
}

const ABSENT_PART = 'Record<string, never>';

export function emitRoutes({ ir, header, runtimeImport, source }: EmitRoutesInput): string {
  const resolve = resourceResolver(ir);
  const handlers = ir.routes.map((route) => handlerEntry(route));
  // Every routes.ts uses bindRoutes, so there is always a first group.
  const [first, ...others] = importGroups(runtimeNames(ir, handlers), runtimeImport);
  const text = renderTemplate('generated/routes.ts.hbs', {
    header,
    runtimeImport: first?.from ?? runtimeImport,
    imports: first?.specifiers ?? '',
    source,
    handlers,
    guardedMetaKeys: toJsLiteral(ir.metaKeys.filter((key) => key.guarded).map((key) => key.name)),
    // serializers.js holds one serializer per route and JSON response status; imported only when used.
    serializers: ir.routes.some((route) => jsonResponseStatuses(route).length > 0),
    definitions: ir.routes.map((route) => definitionLiteral(route, resolve)),
  });
  if (!first || others.length === 0) return text;
  // The template holds one runtime import; the others go right after it.
  const line = `import { ${first.specifiers} } from '${first.from}';\n`;
  return text.replace(line, `${[first, ...others].map(importLine).join('\n')}\n`);
}

interface ImportGroup {
  from: string;
  specifiers: string;
}

/**
 * One import per runtime module: the package's entry ('svckit') alone, or for relative imports the runtime
 * file defining each name. Groups by module path; in each, values then types, each sorted.
 */
function importGroups(names: readonly RuntimeName[], runtimeImport: string): ImportGroup[] {
  const { routeName } = runtimeImports(runtimeImport);
  const byModule = new Map<string, string[]>();
  for (const { name, type } of names) {
    const { from, imported } = routeName(name);
    const specifier = imported === undefined ? name : `${imported} as ${name}`;
    const list = byModule.get(from) ?? [];
    list.push(type ? `type ${specifier}` : specifier);
    byModule.set(from, list);
  }
  return [...byModule.entries()]
    .sort(([a], [b]) => compare(a, b))
    .map(([from, specifiers]) => ({ from, specifiers: specifiers.join(', ') }));
}

/** `import { a, type B } from 'x';`, or `import type { B, C } from 'x';` when every name is a type. */
function importLine({ from, specifiers }: ImportGroup): string {
  const names = specifiers.split(', ');
  return names.every((name) => name.startsWith('type '))
    ? `import type { ${names.map((name) => name.slice('type '.length)).join(', ')} } from '${from}';`
    : `import { ${specifiers} } from '${from}';`;
}

interface RuntimeName {
  name: string;
  type: boolean;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The runtime's names routes.ts uses: values, then types, each sorted (as prettier leaves them). */
function runtimeNames(ir: SpecIR, handlers: readonly HandlerEntry[]): RuntimeName[] {
  const values = new Set(['bindRoutes']);
  const types = new Set(['Route', 'RouteDefinition', 'RouteHandler']);
  for (const route of ir.routes) {
    if (route.body?.kind === 'upload') values.add('upload');
    if (route.body?.kind === 'raw') values.add('rawBody');
  }
  for (const handler of handlers) for (const name of handler.runtimeTypes) types.add(name);
  const sorted = (names: Set<string>) => [...names].sort(compare);
  return [
    ...sorted(values).map((name) => ({ name, type: false })),
    ...sorted(types).map((name) => ({ name, type: true })),
  ];
}

interface HandlerEntry {
  id: string;
  doc: string;
  params: string;
  query: string;
  body: string;
  result: string;
  /** Types routes.ts imports from the runtime for this handler. */
  runtimeTypes: string[];
}

/** The handler's `body`: the validated JSON body, or what the runtime hands an upload or raw route. */
const BODY_INPUT = { upload: 'UploadInput', raw: 'RawBodyInput' } as const;

function handlerEntry(route: RouteIR): HandlerEntry {
  const names = routeTypeNames(route.id);
  const summary = route.meta.summary ?? route.meta.description;
  const runtimeTypes: string[] = [];
  let body = 'undefined';
  if (route.body?.kind === 'json') body = `T.${names.body}${route.body.required ? '' : ' | undefined'}`;
  else if (route.body) {
    body = BODY_INPUT[route.body.kind];
    runtimeTypes.push(body);
  }
  // A streamed status is answered with what stream() or sse() returns, beside the JSON results.
  const streams = new Set<string>();
  for (const [status, response] of Object.entries(route.responses)) {
    if (isSuccess(status) && isStreamResponse(response))
      streams.add(response.stream === EVENT_STREAM ? 'SseResult' : 'StreamResult');
  }
  runtimeTypes.push(...streams);
  return {
    id: route.id,
    doc: docComment(`${route.method} ${route.path}${typeof summary === 'string' ? `: ${summary}` : ''}`),
    params: route.params ? `T.${names.params}` : ABSENT_PART,
    query: route.query ? `T.${names.query}` : ABSENT_PART,
    body,
    result: [`T.${names.result}`, ...[...streams].sort()].join(' | '),
    runtimeTypes,
  };
}

function definitionLiteral(route: RouteIR, resolve: Parameters<typeof coercionPlan>[1]): string {
  const fields = [
    `id: ${toJsLiteral(route.id)}`,
    `method: ${toJsLiteral(route.method)}`,
    `url: ${toJsLiteral(route.path)}`,
  ];
  if (route.params) fields.push(`params: ${partLiteral(route.id, 'params', route.params, resolve)}`);
  if (route.query) fields.push(`query: ${partLiteral(route.id, 'query', route.query, resolve)}`);
  if (route.body) fields.push(`body: ${bodyLiteral(route.id, route.body)}`);
  fields.push(`successStatus: ${successStatus(route)}`);
  const statuses = jsonResponseStatuses(route);
  if (statuses.length > 0) {
    const byStatus = (name: (routeId: string, status: number) => string) =>
      `{ ${statuses.map((status) => `${status}: serializers.${name(route.id, status)}`).join(', ')} }`;
    fields.push(`serializers: ${byStatus(serializerName)}`);
    fields.push(`responseValidators: ${byStatus(responseValidatorName)}`);
  }
  // The spec's `errors:` (empty included): answering another application code logs a warning at runtime.
  fields.push(`errors: ${toJsLiteral(route.errors)}`);
  fields.push(`meta: ${toJsLiteral(route.meta)}`);
  return `{ ${fields.join(', ')} }`;
}

/** A JSON body bound to its validator, or the runtime's upload()/rawBody() with the limits in bytes. */
function bodyLiteral(routeId: string, body: BodyIR): string {
  switch (body.kind) {
    case 'json': {
      const validate = `validate: validators.${validatorName(routeId, 'body')}`;
      return `{ kind: 'json', ${validate}${body.required ? '' : ', required: false'} }`;
    }
    case 'upload':
      return `upload(${toJsLiteral(body.limits)})`;
    case 'raw':
      return body.maxBytes === undefined
        ? 'rawBody()'
        : `rawBody(${toJsLiteral({ maxBytes: body.maxBytes })})`;
  }
}

function partLiteral(
  routeId: string,
  part: 'params' | 'query',
  schema: JsonSchemaObject,
  resolve: Parameters<typeof coercionPlan>[1],
): string {
  const plan = coercionPlan(schema, resolve);
  const validate = `validate: validators.${validatorName(routeId, part)}`;
  return Object.keys(plan).length === 0 ? `{ ${validate} }` : `{ ${validate}, coerce: ${toJsLiteral(plan)} }`;
}

/** The status the route's returned value answers with (shared/success-status.ts, route() reads it too). */
export function successStatus(route: Pick<RouteIR, 'responses'>): number {
  return successStatusOf(Object.keys(route.responses));
}
