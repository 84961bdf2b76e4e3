// Serves the passkey demo page (passkey-demo-page.ts) at one path, as an HTML page route (html-page-route.ts)
// under the page's own Content-Security-Policy; the page itself talks to the auth routes.
import type { App, Plugin } from '../../app/app.js';
import { invalidOptions } from '../../config/option-errors.js';
import { literalRoutePath } from '../../http/literal-path.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { htmlPageRoute } from './html-page-route.js';
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
  const route = htmlPageRoute(path, passkeyDemoPage(), PASSKEY_DEMO_CSP);
  return {
    name: 'svc:passkey-demo',
    setup(app: App) {
      app.metadata.add('http:routes', route);
      app.metadata.add('app:urls', { label: 'Passkey demo', path });
    },
  };
}
