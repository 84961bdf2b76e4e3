// Which types types.ts declares, in which order and under which name. One plan serves the emitter and the
// name-collision check, so a generated name is decided in exactly one place (names come from names.ts).
import {
  isStreamResponse,
  type JsonSchema,
  type RouteIR,
  type SourceLocation,
  type SpecIR,
} from '../shared/ir.js';
import { SpecError, type SpecProblem } from '../spec/loader/problems.js';
import { routeTypeNames } from './names.js';
import { pureResourceRef } from './schema-walk.js';
import { isRedirectStatus } from '../shared/success-status.js';

export type TypeOrigin =
  | { kind: 'resource'; name: string; loc: SourceLocation }
  | { kind: 'route'; routeId: string; part: string; loc: SourceLocation };

export type TypeDeclaration =
  /** Compiled by json-schema-to-typescript. */
  | { kind: 'schema'; name: string; schema: JsonSchema; origin: TypeOrigin }
  /** Written directly: `export type CreateNoteBody = NoteInput;` */
  | { kind: 'alias'; name: string; target: string; description?: string; origin: TypeOrigin };

/** Keywords that only annotate: a schema made of nothing else accepts any value. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  '$comment',
  'examples',
  'example',
  'default',
  'readOnly',
  'writeOnly',
  'deprecated',
  '$id',
  '$schema',
  'x-hint',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Route ids and resource names become identifiers in generated code. The loader already restricts them;
 * this keeps any IR (a module spec, a future loader) from writing code through a name.
 */
export function assertGeneratableNames(ir: SpecIR): void {
  const problems: SpecProblem[] = [];
  const check = (name: string, what: string, path: string, loc: SourceLocation) => {
    if (IDENTIFIER.test(name)) return;
    problems.push({
      ...loc,
      path,
      message: `${what} '${name}' cannot be used as a name in generated code`,
      hint: 'use letters and digits only, starting with a letter',
    });
  };
  for (const resource of ir.resources)
    check(resource.name, 'resource', `resources.${resource.name}`, resource.loc);
  for (const route of ir.routes) check(route.id, 'route id', `routes.${route.id}`, route.loc);
  if (problems.length > 0) throw new SpecError(problems);
}

export function planTypes(ir: SpecIR): TypeDeclaration[] {
  const declarations: TypeDeclaration[] = [];
  for (const resource of ir.resources) {
    declarations.push(
      declare(resource.name, resource.schema, { kind: 'resource', name: resource.name, loc: resource.loc }),
    );
  }
  for (const route of ir.routes) declarations.push(...routeDeclarations(route));
  assertUniqueNames(declarations);
  return declarations;
}

function routeDeclarations(route: RouteIR): TypeDeclaration[] {
  const names = routeTypeNames(route.id);
  const origin = (part: string): TypeOrigin => ({ kind: 'route', routeId: route.id, part, loc: route.loc });
  const out: TypeDeclaration[] = [];
  if (route.params) out.push(declare(names.params, route.params, origin('params')));
  if (route.query) out.push(declare(names.query, route.query, origin('query')));
  if (route.body?.kind === 'json') out.push(declare(names.body, route.body.schema, origin('body')));
  if (route.body?.kind === 'upload' && route.body.fields !== undefined)
    out.push(declare(names.fields, route.body.fields, origin('upload fields')));
  const success: string[] = [];
  let streamed = false;
  for (const [status, response] of Object.entries(route.responses)) {
    // A streamed body has no JSON type; routes.ts types it as the runtime's StreamResult or SseResult.
    if (isStreamResponse(response)) {
      streamed ||= isSuccess(status);
      continue;
    }
    const name = names.response(status);
    out.push(
      response === null
        ? { kind: 'alias', name, target: 'void', origin: origin(`response ${status}`) }
        : declare(name, response, origin(`response ${status}`)),
    );
    // A redirect's handler replies itself and returns nothing: void joins what it may return.
    if (isSuccess(status) || isRedirectStatus(status)) success.push(name);
  }
  out.push({
    kind: 'alias',
    name: names.result,
    target: success.length > 0 ? success.join(' | ') : streamed ? 'never' : 'unknown',
    description: streamed
      ? 'What the handler returns besides stream() or sse(): the body of its JSON success (2xx) responses.'
      : 'What the handler returns: the body of its success (2xx) response (nothing after a redirect).',
    origin: origin('result'),
  });
  return out;
}

export function isSuccess(status: string): boolean {
  return /^2[0-9][0-9]$/.test(status);
}

function declare(name: string, schema: JsonSchema, origin: TypeOrigin): TypeDeclaration {
  if (typeof schema === 'boolean')
    return { kind: 'alias', name, target: schema ? 'unknown' : 'never', origin };
  const description = typeof schema.description === 'string' ? schema.description : undefined;
  const ref = pureResourceRef(schema);
  if (ref) return withDescription({ kind: 'alias', name, target: ref.name, origin }, description);
  if (Object.keys(schema).every((keyword) => ANNOTATIONS.has(keyword))) {
    return withDescription({ kind: 'alias', name, target: 'unknown', origin }, description);
  }
  return { kind: 'schema', name, schema, origin };
}

function withDescription(declaration: TypeDeclaration, description: string | undefined): TypeDeclaration {
  return description === undefined || declaration.kind !== 'alias'
    ? declaration
    : { ...declaration, description };
}

/** Two declarations with one name would silently become `Note1`: refuse with the route and resource named. */
function assertUniqueNames(declarations: readonly TypeDeclaration[]): void {
  const first = new Map<string, TypeOrigin>();
  const problems: SpecProblem[] = [];
  for (const { name, origin } of declarations) {
    const earlier = first.get(name);
    if (!earlier) {
      first.set(name, origin);
      continue;
    }
    const [route, other] = origin.kind === 'route' ? [origin, earlier] : [earlier, origin];
    problems.push({
      file: route.loc.file,
      line: route.loc.line,
      column: route.loc.column,
      path: route.kind === 'route' ? `routes.${route.routeId}` : `resources.${route.name}`,
      message: `generated type name '${name}' of ${describe(route)} collides with ${describe(other)}`,
      hint:
        route.kind === 'route' && other.kind === 'resource'
          ? `rename resource '${other.name}' or route '${route.routeId}'; route types are named <RouteId>Params, <RouteId>Query, <RouteId>Body, <RouteId>Fields, <RouteId>Response<status> and <RouteId>Result`
          : `rename one of them so every generated type name is unique`,
    });
  }
  if (problems.length > 0) throw new SpecError(problems);
}

function describe(origin: TypeOrigin): string {
  return origin.kind === 'resource'
    ? `resource '${origin.name}'`
    : `route '${origin.routeId}' (${origin.part})`;
}
