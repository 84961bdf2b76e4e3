// A self-contained HTML page served by svckit (the passkey demo, the API-key page): one edge route (no auth,
// no validation, nothing of the API pipeline; the page's script calls the API itself) that answers the same
// HTML on every request, with the page's own Content-Security-Policy in place of the API's (which allows no
// script at all), the headers browsers apply to documents (`documentHeaders`), and no caching.
import type { Route } from '../../http/types.js';

/** The route serving `html` at `path`; `csp` undefined sends no policy (whoever serves it sets one). */
export function htmlPageRoute(path: string, html: string, csp: string | undefined): Route {
  return {
    method: 'GET',
    url: path,
    edge: true,
    meta: { documentHeaders: true },
    handler: (({ reply }: { reply: { header(name: string, value: string): unknown } }) => {
      reply.header('content-type', 'text/html; charset=utf-8');
      if (csp !== undefined) reply.header('content-security-policy', csp);
      reply.header('cache-control', 'no-store');
      return html;
    }) as Route['handler'],
  };
}
