// `apiKeyPlugin({ auth, ... })`: API keys on requests. The enricher reads a presented key (apikey-enricher.ts),
// the guard applies the key rules to every route (apikey-rules.ts) and `meta.scopes` to every caller, tool
// listings hide what a key cannot call, and the plugin claims `scopes` and `apiKey`, so a route declaring
// scopes boots only with it. Keys are issued, listed and revoked through the Auth's ApiKeys (the routes of
// authRoutes(), and the page when `page` is set: apiKeysUiRoutes()).
//
// Register it after authPlugin (a key of another user than the session beside it is refused) and before
// tenancyPlugin (membership in a tenant is the key's user's): boot refuses another order.
import { errors } from '../../../generated/modules/errors.js';
import { API_KEY_RESERVED_HEADERS } from '../../../shared/api-key-meta.js';
import { DEFAULT_API_KEY_HEADER } from '../../../shared/module-defaults.js';
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { lowerHeaderName } from '../../http/header-name.js';
import type { Guard, MetaValidator, RouteVisibilityCheck } from '../../http/types.js';
import { Auth } from '../auth.js';
import { API_KEY_ROUTE_IDS } from './apikey-routes.js';
import { apiKeysUiRoutes, DEFAULT_API_KEYS_UI_PATH, type ApiKeysUiOptions } from './apikeys-ui-routes.js';
import { API_KEY_ENRICHER, apiKeyEnricher } from './apikey-enricher.js';
import {
  apiKeyMetaProblems,
  apiKeyOf,
  apiKeyRefusal,
  requiredScopes,
  type ApiKeyRuleSettings,
} from './apikey-rules.js';

export interface ApiKeyPluginOptions {
  /** The Auth whose `apiKeys` issue and verify the keys; its user source gives a key's user. */
  auth: Auth;
  /** The request header a key may be sent in, besides `Authorization: Bearer`. Default x-api-key. */
  header?: string;
  /** Keys of no tenant may act on requests that name one. Default false (403 AUTH_APIKEY_TENANT_MISMATCH). */
  allowTenantlessKeys?: boolean;
  /**
   * Keys without `*` may act on routes with `auth`, `can`, `teamRole` or `audience` that declare no `scopes`.
   * Default false (403 AUTH_SCOPE_REQUIRED): a route says which scopes reach it, or only `*` keys do.
   */
  allowNarrowKeysOnUnscopedRoutes?: boolean;
  /**
   * The key-management page (apiKeysUiRoutes): false (the default) serves none; options serve it, offering the
   * scopes the Auth's ApiKeys offer unless `scopes` says otherwise.
   */
  page?: false | ApiKeysUiOptions;
}

const OPTION_NAMES = optionKeys<ApiKeyPluginOptions>({
  auth: true,
  page: true,
  header: true,
  allowTenantlessKeys: true,
  allowNarrowKeysOnUnscopedRoutes: true,
});

const OWNER = 'apiKeyPlugin()';
export { DEFAULT_API_KEY_HEADER };

export function apiKeyPlugin(options: ApiKeyPluginOptions): Plugin {
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const { auth } = options;
  if (!(auth instanceof Auth)) throw invalidOption(OWNER, 'auth', 'an Auth (new Auth({ secret, apiKeys }))');
  const keys = auth.apiKeys;
  if (keys === undefined) throw invalidOption(OWNER, 'auth', 'an Auth with API keys (new Auth({ apiKeys }))');
  const header = options.header ?? DEFAULT_API_KEY_HEADER;
  if (typeof header !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(header)) {
    throw invalidOption(OWNER, 'header', 'a header name of letters, digits and "-"');
  }
  if (API_KEY_RESERVED_HEADERS.includes(header.toLowerCase())) {
    throw invalidOption(OWNER, 'header', 'a header of its own', `"${header}" already means something else`);
  }
  const settings: ApiKeyRuleSettings = {
    allowTenantlessKeys: flag(options.allowTenantlessKeys, 'allowTenantlessKeys'),
    allowNarrowKeysOnUnscopedRoutes: flag(
      options.allowNarrowKeysOnUnscopedRoutes,
      'allowNarrowKeysOnUnscopedRoutes',
    ),
  };
  const keyHeader = lowerHeaderName(header);
  const page = options.page ?? false;
  if (page !== false && (typeof page !== 'object' || page === null || Array.isArray(page))) {
    throw invalidOption(OWNER, 'page', 'false or the page options ({} for the defaults)');
  }
  // Built now, so a bad page option refuses the plugin rather than the boot.
  const pageRoutes = page === false ? [] : apiKeysUiRoutes({ scopes: keys.scopes, ...page });

  const guard: Guard = {
    name: 'svc:api-keys',
    check({ route, context }) {
      const key = apiKeyOf(context);
      if (key === undefined) {
        // `scopes` says what a key must hold; a signed-in user acts by their own rights, nobody else at all.
        if (context.user === undefined && requiredScopes(route) !== undefined) throw errors.AUTH_REQUIRED();
        return;
      }
      const refusal = apiKeyRefusal(route, key, context, settings);
      if (refusal !== undefined) throw errors[refusal]();
    },
  };

  const visibility: RouteVisibilityCheck = {
    name: 'svc:api-keys',
    isVisible(route, context) {
      const key = apiKeyOf(context);
      if (key === undefined) return context.user !== undefined || requiredScopes(route) === undefined;
      return apiKeyRefusal(route, key, context, settings) === undefined;
    },
  };

  const validator: MetaValidator = {
    name: 'svc:api-keys-meta',
    validate: (route) => apiKeyMetaProblems(route, keys.scopes),
  };

  return {
    name: 'svc:api-keys',
    setup(app: App) {
      keys.logTo(app.logger);
      app.metadata.add('http:enrichers', apiKeyEnricher(keys, auth.users, keyHeader));
      app.metadata.add('http:guards', guard);
      app.metadata.add('http:route-visibility', visibility);
      app.metadata.add('http:meta-validators', validator);
      app.metadata.add(
        'http:guarded-meta',
        { key: 'scopes', plugin: 'svc:api-keys' },
        { key: 'apiKey', plugin: 'svc:api-keys' },
      );
      // Agent tool calls carry the caller's key, and idempotency keys are scoped by it, like any credential.
      app.metadata.add('http:identity-headers', keyHeader);
      app.metadata.add('http:credential-headers', keyHeader);
      // For documents: which codes every route may now answer (a key in the wrong tenant, two keys, ...).
      app.metadata.add('http:route-error-modules', { auth: { apiKeys: true } });
      if (page !== false) {
        app.metadata.add('http:routes', ...pageRoutes);
        app.metadata.add('app:urls', { label: 'API keys', path: page.path ?? DEFAULT_API_KEYS_UI_PATH });
      }
    },
    boot(app: App) {
      checkEnricherOrder(app.metadata.list('http:enrichers').map((enricher) => enricher.name));
      checkHeaderOfItsOwn(app, keyHeader);
      if (page !== false) checkKeyRoutes(app);
    },
  };
}

/**
 * The key header must be one no other plugin reads (the tenant's, the idempotency key's): every request naming
 * a tenant would otherwise be read as presenting a key, and a key be read as a tenant id.
 */
function checkHeaderOfItsOwn(app: App, keyHeader: string): void {
  // The plugin published its own header once among the identity headers; any other copy is another plugin's.
  const readers = [...app.metadata.list('http:identity-headers'), ...app.metadata.list('idempotency:header')]
    .map((name) => name.toLowerCase())
    .filter((name) => name === keyHeader);
  if (readers.length > 1) {
    throw invalidOption(
      OWNER,
      'header',
      'a header of its own',
      `another plugin reads "${keyHeader}" already`,
    );
  }
}

/** The page creates, lists and revokes keys through the key routes: without them it would only fail. */
function checkKeyRoutes(app: App): void {
  const mounted = new Set(app.metadata.list('http:routes').map((route) => route.id));
  const missing = API_KEY_ROUTE_IDS.filter((id) => !mounted.has(id));
  if (missing.length > 0) {
    throw invalidOption(OWNER, 'page', 'served with the key routes', `${missing.join(', ')} not mounted`);
  }
}

/** The key must be read after the user's own credential and before the tenant's membership. */
function checkEnricherOrder(names: readonly string[]): void {
  const own = names.indexOf(API_KEY_ENRICHER);
  const auth = names.indexOf('svc:auth');
  const tenancy = names.indexOf('svc:tenancy');
  if ((auth !== -1 && auth > own) || (tenancy !== -1 && tenancy < own)) {
    throw invalidOption(
      OWNER,
      'registration order',
      'apiKeyPlugin registered after authPlugin and before tenancyPlugin',
      `the enrichers run in the order ${names.join(', ')}`,
    );
  }
}

function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidOption(OWNER, name, 'true or false');
  return value;
}
