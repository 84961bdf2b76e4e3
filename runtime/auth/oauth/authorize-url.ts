// The consent-screen URL of the authorization-code flow: the provider's authorization endpoint (its own query
// kept) with the code request, the redirect URI, the scopes, the signed state, the PKCE S256 challenge and,
// for OpenID Connect, the nonce.
import type { AuthorizationRequest } from './types.js';

export function authorizationUrlOf(
  endpoint: string,
  clientId: string,
  scopes: readonly string[],
  request: AuthorizationRequest,
  withNonce: boolean,
): URL {
  const url = new URL(endpoint);
  const params = url.searchParams;
  params.set('response_type', 'code');
  params.set('client_id', clientId);
  params.set('redirect_uri', request.redirectUri);
  params.set('scope', scopes.join(' '));
  params.set('state', request.state);
  params.set('code_challenge', request.codeChallenge);
  params.set('code_challenge_method', 'S256');
  if (withNonce) params.set('nonce', request.nonce);
  return url;
}
