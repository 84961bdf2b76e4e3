// OpenID Connect discovery: a provider's endpoints read from `<issuer>/.well-known/openid-configuration` at
// first use, and kept per the reply's cache headers. The document is refused unless its `issuer` is the
// configured one exactly (a document served for another issuer would send codes and trust keys elsewhere),
// every endpoint is https: (http: on loopback only, and only when the issuer is on loopback too), it names an
// authorization, token and JWKS endpoint, and it offers PKCE S256 when it lists PKCE methods at all.
import { CachedJson } from './cached-json.js';
import { OAuthExchangeError } from './exchange-error.js';
import { jsonObject } from './http.js';
import { endpointRule, endpointUrl } from './loopback.js';
import type { TokenEndpointAuthMethod } from './token.js';
import type { ProviderContext } from './types.js';

export interface DiscoveredEndpoints {
  issuer: string;
  authorize: string;
  token: string;
  jwks: string;
  userInfo: string | undefined;
  /** How the client authenticates at the token endpoint: Basic unless the document offers only the body. */
  tokenAuth: TokenEndpointAuthMethod;
}

/** Where the discovery document of `issuer` lives (one trailing slash of the issuer dropped). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.endsWith('/') ? issuer.slice(0, -1) : issuer}/.well-known/openid-configuration`;
}

export class Discovery {
  private readonly document: CachedJson<DiscoveredEndpoints>;

  constructor(readonly issuer: string) {
    this.document = new CachedJson('discovery document', (json) => readDocument(issuer, json));
  }

  endpoints(context: ProviderContext): Promise<DiscoveredEndpoints> {
    return this.document.get(context, discoveryUrl(this.issuer));
  }
}

function readDocument(issuer: string, json: unknown): DiscoveredEndpoints {
  const document = jsonObject(json, 'discovery document');
  if (document.issuer !== issuer) {
    throw new OAuthExchangeError(
      `discovery document names issuer ${JSON.stringify(document.issuer)}, not the configured ${JSON.stringify(issuer)}`,
    );
  }
  const endpoint = (field: string, required: boolean): string | undefined => {
    const value = document[field];
    if (value === undefined && !required) return undefined;
    const url = endpointUrl(value, issuer);
    if (url === undefined) {
      throw new OAuthExchangeError(
        `discovery document's ${field} is not ${endpointRule(issuer)}: ${JSON.stringify(value)}`,
      );
    }
    return url.href;
  };
  const methods = document.code_challenge_methods_supported;
  if (Array.isArray(methods) && !methods.includes('S256')) {
    throw new OAuthExchangeError('discovery document does not offer PKCE S256');
  }
  const auth = document.token_endpoint_auth_methods_supported;
  const basic =
    !Array.isArray(auth) || auth.includes('client_secret_basic') || !auth.includes('client_secret_post');
  return {
    issuer,
    authorize: endpoint('authorization_endpoint', true)!,
    token: endpoint('token_endpoint', true)!,
    jwks: endpoint('jwks_uri', true)!,
    userInfo: endpoint('userinfo_endpoint', false),
    tokenAuth: basic ? 'client_secret_basic' : 'client_secret_post',
  };
}
