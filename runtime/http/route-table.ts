// Which route answers which method, decided once for every adapter: a GET route answers HEAD too unless the
// application defines a HEAD route of the same shape, and a request no route matched answers 404, or 405
// METHOD_NOT_ALLOWED with `Allow` when the path exists for other methods. The table is only consulted when
// the router found no route, so its cost never touches matched requests.
import { errors } from '../../generated/modules/errors.js';
import { pathShape, pathTemplatePattern } from '../../shared/path-template.js';
import type { SvcError } from './errors.js';
import { HTTP_METHODS, type HttpMethod, type Route } from './types.js';

type RouteKey = Pick<Route, 'method' | 'url'>;

interface PathEntry {
  pattern: RegExp;
  methods: Set<HttpMethod>;
}

/**
 * Whether a route answers HEAD as well as its own method: GET routes do, unless some HEAD route of the same
 * shape (`/items/:id` ≡ `/items/:itemId`) exists, which then wins whatever the registration order.
 */
export function headFromGet(routes: readonly RouteKey[]): (route: RouteKey) => boolean {
  const explicitHead = new Set(routes.filter((r) => r.method === 'HEAD').map((r) => pathShape(r.url)));
  return (route) => route.method === 'GET' && !explicitHead.has(pathShape(route.url));
}

export class RouteTable {
  private readonly entries = new Map<string, PathEntry>();

  constructor(routes: readonly RouteKey[]) {
    for (const route of routes) {
      let entry = this.entries.get(route.url);
      if (!entry)
        this.entries.set(
          route.url,
          (entry = { pattern: pathTemplatePattern(route.url), methods: new Set() }),
        );
      entry.methods.add(route.method);
      if (route.method === 'GET') entry.methods.add('HEAD');
    }
  }

  /** The methods some route answers on this path (no query string), in a stable order; empty when none. */
  allowedMethods(path: string): HttpMethod[] {
    const found = new Set<HttpMethod>();
    for (const entry of this.entries.values()) {
      if (entry.pattern.test(path)) for (const method of entry.methods) found.add(method);
    }
    return HTTP_METHODS.filter((method) => found.has(method));
  }

  /**
   * The answer to a request no route matched on `path` (no query string): 404 NOT_FOUND, or 405
   * METHOD_NOT_ALLOWED after setting `Allow` on `reply` when other methods answer the path.
   */
  unroutedError(path: string, reply: { header(name: string, value: string): unknown }): SvcError {
    const allowed = this.allowedMethods(path);
    if (allowed.length === 0) return errors.NOT_FOUND();
    reply.header('allow', allowed.join(', '));
    return errors.METHOD_NOT_ALLOWED();
  }
}
