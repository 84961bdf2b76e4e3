// Serves the passkey demo page (passkey-demo-page.ts) at one path, with the page's own Content-Security-Policy
// in place of the API's (which allows no script at all) and the headers browsers apply to documents. An edge
// route: no auth, no validation, nothing of the API pipeline; the page itself talks to the auth routes.
import type { App, Plugin } from '../../app/app.js';
import { invalidOptions } from '../../config/option-errors.js';
import { literalRoutePath } from '../../http/literal-path.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import type { Route } from '../../http/types.js';
import { PASSKEY_DEMO_CSP, passkeyDemoPage } from './passkey-demo-page.js';

export interface PasskeyDemoPluginOptions {
  /** Where the page is served. Default `/auth/passkeys/demo`. */
  path?: string;
}

const OWNER = 'passkeyDemoPlugin';

export function passkeyDemoPlugin(options: PasskeyDemoPluginOptions = {}): Plugin {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(OWNER);
  rejectUnknownOptions(options, ['path'], OWNER);
  const path = literalRoutePath(OWNER, options.path ?? '/auth/passkeys/demo');
  const page = passkeyDemoPage();
  const route: Route = {
    method: 'GET',
    url: path,
    edge: true,
    meta: { documentHeaders: true },
    handler: (({ reply }: { reply: { header(name: string, value: string): unknown } }) => {
      reply.header('content-type', 'text/html; charset=utf-8');
      reply.header('content-security-policy', PASSKEY_DEMO_CSP);
      reply.header('cache-control', 'no-store');
      return page;
    }) as Route['handler'],
  };
  return {
    name: 'svc:passkey-demo',
    setup(app: App) {
      app.metadata.add('http:routes', route);
      app.metadata.add('app:urls', { label: 'Passkey demo', path });
    },
  };
}
