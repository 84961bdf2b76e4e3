// Label values for the HTTP metrics. Every value comes from a small fixed set or from the registered route
// templates, never from the raw URL or an arbitrary method, so a client cannot create new time series.
import { HTTP_METHODS } from '../../http/types.js';
import type { Route } from '../../http/types.js';

/** `route` label of requests no route matched (404, 405): one series however many paths are probed. */
export const UNMATCHED_ROUTE_LABEL = 'unmatched';
/** `method` label of any method outside the standard set. */
export const OTHER_METHOD_LABEL = 'OTHER';

const KNOWN_METHODS: ReadonlySet<string> = new Set(HTTP_METHODS);

export function methodLabel(method: string): string {
  if (KNOWN_METHODS.has(method)) return method;
  const upper = typeof method === 'string' ? method.toUpperCase() : '';
  return KNOWN_METHODS.has(upper) ? upper : OTHER_METHOD_LABEL;
}

/** The route template (`/notes/:id`); the request's own path is never used. */
export function routeLabel(route: Route | undefined): string {
  return route === undefined ? UNMATCHED_ROUTE_LABEL : route.url;
}

/** `status` label of any code outside 100-599 (a broken adapter): one value for all of them. */
export const INVALID_STATUS_LABEL = 'invalid';

export function isStatusCode(status: number): boolean {
  return Number.isInteger(status) && status >= 100 && status <= 599;
}

export function statusLabel(status: number): string {
  return isStatusCode(status) ? String(status) : INVALID_STATUS_LABEL;
}
