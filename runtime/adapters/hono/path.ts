// Hono routes on the path of the web Request's URL, and @hono/node-server builds that URL by WHATWG rules,
// which resolve dot segments: `/x/../notes` and `/auth/%2e%2e/notes` would reach `/notes`, where Fastify and
// Express (and svc's neutral request) see the path as sent and answer 404. On node-server the app therefore
// routes on the node request's own target, decoded as Hono decodes a path; elsewhere (Bun, Deno, Workers,
// app.fetch) the runtime made the URL and Hono's own rule applies.
import type { Hono } from 'hono';
import { getPath, getPathNoStrict } from 'hono/utils/url';
import { IncomingMessage } from 'node:http';
import { originForm, pathOf } from '../../http/url.js';

type GetPath = Hono['getPath'];

/** The routing path of an origin-form or absolute-form target, decoded by Hono's own rules when escaped. */
function routingPathOf(target: string): string {
  const path = pathOf(originForm(target));
  // Hono's decoding of escapes (kept `%25`, malformed escapes) is subtle: let it do that part.
  return path.indexOf('%') === -1 ? path : getPath({ url: `http://h${path}` } as Request);
}

/**
 * Makes `hono` route requests served by @hono/node-server on their target as sent. An app made with its own
 * `getPath` keeps it (and so WHATWG's resolution of dot segments, if it reads the URL).
 */
export function routeOnTargetAsSent(hono: Hono): void {
  const fallback = hono.getPath;
  if (fallback !== getPath && fallback !== getPathNoStrict) return;
  const strict = fallback === getPath;
  const routingPath: GetPath = (request, options) => {
    const incoming = (options?.env as { incoming?: unknown } | undefined)?.incoming;
    if (!(incoming instanceof IncomingMessage)) return fallback(request, options);
    const path = routingPathOf(incoming.url ?? '/');
    // `strict: false` apps alias a trailing slash, as Hono's getPathNoStrict does.
    return strict || path.length < 2 || path.charCodeAt(path.length - 1) !== 0x2f ? path : path.slice(0, -1);
  };
  (hono as { getPath: GetPath }).getPath = routingPath;
}
