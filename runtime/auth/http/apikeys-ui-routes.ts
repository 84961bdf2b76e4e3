// Serves the API-key page (apikeys-page.ts) at one path, with the page's own Content-Security-Policy in place
// of the API's (which allows no script at all) and the headers browsers apply to documents. An edge route: no
// auth, no validation, nothing of the API pipeline; the page itself signs in and calls the API-key routes.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { literalRoutePath } from '../../http/literal-path.js';
import type { Route } from '../../http/types.js';
import { apiKeysPage, type ApiKeysPageOptions } from './apikeys-page.js';

export interface ApiKeysUiOptions extends ApiKeysPageOptions {
  /** Where the page is served. Default `/apikeys/ui`. */
  path?: string;
  /**
   * The page's Content-Security-Policy header: default the page's own (apiKeysPageCsp()); a policy string
   * replaces it (it must still allow the page's script and style); false sends none, for a proxy that sets it.
   */
  csp?: string | false;
}

const OPTION_KEYS = optionKeys<ApiKeysUiOptions>({
  path: true,
  csp: true,
  apiBase: true,
  title: true,
  scopes: true,
});

const OWNER = 'apiKeysUiRoutes()';
export const DEFAULT_API_KEYS_UI_PATH = '/apikeys/ui';

/** The page's one GET route, built once: every request answers the same HTML. */
export function apiKeysUiRoutes(options: ApiKeysUiOptions = {}): Route[] {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(OWNER);
  rejectUnknownOptions(options, OPTION_KEYS, OWNER);
  const { path: givenPath, csp: givenCsp, ...pageOptions } = options;
  const path = literalRoutePath(OWNER, givenPath ?? DEFAULT_API_KEYS_UI_PATH);
  const page = apiKeysPage(pageOptions, OWNER);
  const csp = policy(givenCsp, page.csp);
  const route: Route = {
    method: 'GET',
    url: path,
    edge: true,
    meta: { documentHeaders: true },
    handler: (({ reply }: { reply: { header(name: string, value: string): unknown } }) => {
      reply.header('content-type', 'text/html; charset=utf-8');
      if (csp !== undefined) reply.header('content-security-policy', csp);
      reply.header('cache-control', 'no-store');
      return page.html;
    }) as Route['handler'],
  };
  return [route];
}

/** The header to send: the page's own, the one given, or none (undefined). */
function policy(given: unknown, own: string): string | undefined {
  if (given === undefined) return own;
  if (given === false) return undefined;
  // A header value: one line of visible characters, or the header would be split or refused.
  if (typeof given !== 'string' || given.trim() === '' || /[^\x20-\x7e]/.test(given)) {
    throw invalidOption(OWNER, 'csp', 'a Content-Security-Policy (one line of text) or false');
  }
  return given;
}
