// Routes: each one normalised into a RouteIR, then the checks that need all of them (cross-checks.ts).
import type { HttpMethod, RouteIR } from '../../shared/ir.js';
import { asMap, asScalar, asString, entry, type LoadContext } from './context.js';
import { loadMeta } from './meta.js';
import { loadBody, loadParams, loadQuery, loadResponses, loadRouteErrors } from './route-parts.js';
import { checkPath } from './route-path.js';
import type { MapNode } from './yaml-tree.js';

/** Routes whose method or path could not be read (already reported): cross-checks leave them out. */
export const INCOMPLETE = new WeakSet<RouteIR>();

export const HTTP_METHODS: readonly HttpMethod[] = [
  'GET',
  'POST',
  'PUT',
  'PATCH',
  'DELETE',
  'HEAD',
  'OPTIONS',
];

/** Routes in declaration order; a route with problems is still checked as far as possible. */
export function loadRoutes(ctx: LoadContext, node: MapNode | undefined): RouteIR[] {
  const routes: RouteIR[] = [];
  for (const item of node?.entries ?? []) {
    if (!/^[a-z][A-Za-z0-9]*$/.test(item.key)) continue; // reported by the structure check
    const map = asMap(item.value);
    if (!map) continue;
    const where = ['routes', item.key];
    const methodText = asString(entry(map, 'method'));
    const method = HTTP_METHODS.find((candidate) => candidate === methodText);
    const pathNode = asScalar(entry(map, 'path'));
    const path =
      typeof pathNode?.value === 'string' && pathNode.value.startsWith('/') ? pathNode.value : undefined;
    const pathParams =
      path !== undefined && pathNode ? checkPath(ctx, pathNode, path, [...where, 'path']) : [];
    // Without a readable path its parameters are unknown; checking params against none would only add noise.
    const params =
      path === undefined ? undefined : loadParams(ctx, entry(map, 'params'), pathParams, pathNode, where);
    const query = loadQuery(ctx, entry(map, 'query'), where);
    const body = loadBody(ctx, entry(map, 'body'), method, map.byKey.get('body')?.keyLoc, where);
    const responses = loadResponses(ctx, entry(map, 'response'), where);
    const errors = loadRouteErrors(ctx, entry(map, 'errors'), where);
    const meta = loadMeta(ctx, item.key, entry(map, 'meta'), [...where, 'meta']);
    const route: RouteIR = {
      id: item.key,
      method: method ?? 'GET',
      path: path ?? '/',
      pathParams: pathParams.map((param) => param.name),
      ...(params && { params }),
      ...(query && { query }),
      ...(body && { body }),
      responses,
      errors,
      meta,
      loc: item.keyLoc,
    };
    if (method === undefined || path === undefined) INCOMPLETE.add(route);
    routes.push(route);
  }
  return routes;
}
