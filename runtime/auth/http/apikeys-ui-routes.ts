// Serves the API-key page (apikeys-page.ts) at one path, as an HTML page route (html-page-route.ts) under the
// page's own Content-Security-Policy, one given, or none; the page itself signs in and calls the key routes.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { literalRoutePath } from '../../http/literal-path.js';
import type { Route } from '../../http/types.js';
import { htmlPageRoute } from './html-page-route.js';
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
  return [htmlPageRoute(path, page.html, csp)];
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
