// Which methods a path answers to, for 405 METHOD_NOT_ALLOWED and its `Allow` header. Only consulted when
// the router found no route, so its cost never touches matched requests.
import { HTTP_METHODS, type HttpMethod, type Route } from './types.js';

interface PathEntry {
  pattern: RegExp;
  methods: Set<HttpMethod>;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `/notes/:id` → /^\/notes\/[^/]+$/ ; a trailing `*` matches the rest. Case-sensitive, no trailing-slash alias. */
export function templatePattern(url: string): RegExp {
  let source = '';
  for (const piece of url.split(/(:[^/]+|\*)/)) {
    if (piece === '') continue;
    if (piece === '*') source += '.*';
    else if (piece.startsWith(':')) source += '[^/]+';
    else source += escapeRegExp(piece);
  }
  return new RegExp(`^${source}$`);
}

export class RouteTable {
  private readonly entries = new Map<string, PathEntry>();

  constructor(routes: readonly Pick<Route, 'method' | 'url'>[]) {
    for (const route of routes) {
      let entry = this.entries.get(route.url);
      if (!entry)
        this.entries.set(route.url, (entry = { pattern: templatePattern(route.url), methods: new Set() }));
      entry.methods.add(route.method);
      // Every adapter answers HEAD for a GET route.
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
}
