// routes.ts: the Handlers interface (one typed handler per route id), the route definitions bound to the
// precompiled validators, coercion plans computed here at build time, and routes(handlers).
import type { JsonSchemaObject, RouteIR, SpecIR } from '../spec/ir.js';
import { coercionPlan } from '../runtime/http/validation/coercion-plan.js';
import { docComment } from './emit-types.js';
import { validatorName } from './emit-validators.js';
import { toJsLiteral } from './js-literal.js';
import { routeTypeNames } from './names.js';
import { resourceResolver } from './schema-walk.js';
import { renderTemplate } from './templates.js';
import { isSuccess } from './type-plan.js';

export interface EmitRoutesInput {
  ir: SpecIR;
  header: string;
  /** Module that exports bindRoutes and the route types ('svckit'). */
  runtimeImport: string;
  /** Named in doc comments, e.g. 'svc.config.yaml'. */
  source: string;
}

const ABSENT_PART = 'Record<string, never>';

export function emitRoutes({ ir, header, runtimeImport, source }: EmitRoutesInput): string {
  const resolve = resourceResolver(ir);
  return renderTemplate('generated/routes.ts.hbs', {
    header,
    runtimeImport,
    source,
    handlers: ir.routes.map((route) => handlerEntry(route)),
    guardedMetaKeys: toJsLiteral(ir.metaKeys.filter((key) => key.guarded).map((key) => key.name)),
    definitions: ir.routes.map((route) => definitionLiteral(route, resolve)),
  });
}

function handlerEntry(route: RouteIR) {
  const names = routeTypeNames(route.id);
  const summary = route.meta.summary ?? route.meta.description;
  const body = route.body ? `T.${names.body}${route.body.required ? '' : ' | undefined'}` : 'undefined';
  return {
    id: route.id,
    doc: docComment(`${route.method} ${route.path}${typeof summary === 'string' ? `: ${summary}` : ''}`),
    params: route.params ? `T.${names.params}` : ABSENT_PART,
    query: route.query ? `T.${names.query}` : ABSENT_PART,
    body,
    result: `T.${names.result}`,
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
  if (route.body) {
    const validate = `validate: validators.${validatorName(route.id, 'body')}`;
    fields.push(`body: { kind: 'json', ${validate}${route.body.required ? '' : ', required: false'} }`);
  }
  fields.push(`successStatus: ${successStatus(route)}`);
  fields.push(`meta: ${toJsLiteral(route.meta)}`);
  return `{ ${fields.join(', ')} }`;
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

/** The route's only 2xx status; with several, the lowest; with none, 200. */
export function successStatus(route: Pick<RouteIR, 'responses'>): number {
  const statuses = Object.keys(route.responses).filter(isSuccess).map(Number);
  return statuses.length === 0 ? 200 : Math.min(...statuses);
}
