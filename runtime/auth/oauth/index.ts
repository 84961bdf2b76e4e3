// Social and enterprise sign-in (OAuth 2.0 / OpenID Connect): the service running the authorization-code flow,
// the providers (any OIDC one, given or discovered, and the Google and GitHub presets), and the shared types.
export { OAuthService, callbackUrl, type OAuthServiceOptions } from './service.js';
export {
  DEFAULT_OIDC_SCOPES,
  discoverOidcProvider,
  oidcProvider,
  type DiscoveredOidcProviderOptions,
  type OidcProviderOptions,
} from './providers/oidc.js';
export { googleProvider, type GoogleProviderOptions } from './providers/google.js';
export { githubProvider, type GithubProviderOptions } from './providers/github.js';
export { OAuthExchangeError } from './exchange-error.js';
export type { TokenEndpointAuthMethod } from './token.js';
export type {
  AuthorizationRequest,
  CodeExchange,
  OAuthProfile,
  OAuthProvider,
  ProviderContext,
} from './types.js';
