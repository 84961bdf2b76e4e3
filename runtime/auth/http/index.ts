export { authPlugin, type AuthPluginOptions } from './plugin.js';
export {
  authRoutes,
  ACCOUNT_META,
  type AuthRoutesOptions,
  type AuthHandlers,
  type AuthRouteId,
} from './routes.js';
export { readCookie, sessionCookie, type SessionCookie, type SessionCookieOptions } from './cookie.js';
export { API_KEY_BEARER_PREFIX, SESSION_ID_HEADER } from './enricher.js';
export { noStore } from './no-store.js';
export type { Credential } from './credentials.js';
export { passkeyDemoPlugin, type PasskeyDemoPluginOptions } from './passkey-demo-plugin.js';
export { PASSKEY_DEMO_CSP, passkeyDemoPage } from './passkey-demo-page.js';
export { PASSKEY_ROUTE_IDS, type PasskeyRouteId } from './passkey-routes.js';
export { apiKeyPlugin, DEFAULT_API_KEY_HEADER, type ApiKeyPluginOptions } from './apikey-plugin.js';
export { API_KEY_ROUTE_IDS, type ApiKeyRouteId } from './apikey-routes.js';
export { apiKeyOf, type RequestApiKey } from './apikey-rules.js';
export { apiKeysUiRoutes, DEFAULT_API_KEYS_UI_PATH, type ApiKeysUiOptions } from './apikeys-ui-routes.js';
export {
  API_KEYS_PAGE_IDS,
  API_KEYS_ROW_CLASSES,
  apiKeysPageCsp,
  apiKeysPageHtml,
  type ApiKeysPageOptions,
} from './apikeys-page.js';
export { oauthPlugin, type OAuthPluginOptions } from './oauth-plugin.js';
export { OAUTH_ROUTE_IDS, type OAuthRouteId } from './oauth-routes.js';
