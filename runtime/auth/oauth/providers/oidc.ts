// OpenID Connect providers: `oidcProvider` with endpoints given, `discoverOidcProvider` with endpoints read from
// the issuer's discovery document (lazily, cached). Both verify the ID token against the provider's JWKS
// (id-token.ts) and read the profile from its claims; only when the token carries no `email` do they ask the
// userinfo endpoint (JSON replies only), whose `sub` must then be the token's. An `oidcProvider` must be given
// `jwksUrl`: an ID token is never accepted on the strength of TLS alone with its signature unchecked (a
// misrouted or proxied token endpoint would then decide who signs in), so a provider that publishes no keys
// cannot be configured.
import { optionKeys, rejectUnknownOptions } from '../../../config/known-options.js';
import { authorizationUrlOf } from '../authorize-url.js';
import { Discovery } from '../discovery.js';
import { OAuthExchangeError } from '../exchange-error.js';
import { callProvider, jsonObject } from '../http.js';
import { verifyIdToken } from '../id-token.js';
import { ProviderKeys } from '../jwks.js';
import { profileFrom } from '../profile.js';
import { requestTokens } from '../token.js';
import { providerConfigError } from '../config-error.js';
import {
  checkedClient,
  checkedDomainRule,
  checkedEndpoint,
  checkedFlag,
  checkedName,
  checkedScopes,
  type DomainRule,
} from '../provider-options.js';
import type { TokenEndpointAuthMethod } from '../token.js';
import type { CodeExchange, OAuthProfile, OAuthProvider, ProviderContext } from '../types.js';

export const DEFAULT_OIDC_SCOPES: readonly string[] = Object.freeze(['openid', 'email', 'profile']);

interface SharedOidcOptions {
  name: string;
  clientId: string;
  clientSecret: string;
  /** Default openid email profile. */
  scopes?: readonly string[];
  /** Exact email domains it may sign in; required beside other providers unless `allowAnyEmailDomain`. */
  allowedEmailDomains?: readonly string[];
  /** True: any email domain, on purpose. */
  allowAnyEmailDomain?: boolean;
  /** A company's single sign-on rather than a public provider. */
  enterprise?: boolean;
  /**
   * How the client authenticates at the token endpoint, as it was registered there. Default HTTP Basic
   * (`client_secret_basic`, OIDC's default), or the body when a discovery document offers only that.
   */
  tokenEndpointAuthMethod?: TokenEndpointAuthMethod;
}

export interface OidcProviderOptions extends SharedOidcOptions {
  authorizeUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  /** The `iss` its ID tokens must carry; checked when given. */
  issuer?: string;
  /** Its signing keys; required (ID tokens are always checked against them). */
  jwksUrl?: string;
}

export interface DiscoveredOidcProviderOptions extends SharedOidcOptions {
  /** Its issuer identifier: the discovery document is read from `<issuer>/.well-known/openid-configuration`. */
  issuer: string;
}

const SHARED_KEYS = {
  name: true,
  clientId: true,
  clientSecret: true,
  scopes: true,
  allowedEmailDomains: true,
  allowAnyEmailDomain: true,
  enterprise: true,
  tokenEndpointAuthMethod: true,
} as const;
const OIDC_KEYS = optionKeys<OidcProviderOptions>({
  ...SHARED_KEYS,
  authorizeUrl: true,
  tokenUrl: true,
  userInfoUrl: true,
  issuer: true,
  jwksUrl: true,
});
const DISCOVERED_KEYS = optionKeys<DiscoveredOidcProviderOptions>({ ...SHARED_KEYS, issuer: true });

interface Endpoints {
  authorize: string;
  token: string;
  userInfo: string | undefined;
  issuer: string | undefined;
  jwks: string;
  tokenAuth: TokenEndpointAuthMethod;
}

interface OidcSettings extends DomainRule {
  name: string;
  client: { id: string; secret: string };
  scopes: readonly string[];
  enterprise: boolean | undefined;
  /** The configured method; undefined: the endpoints' own default. */
  tokenAuth: TokenEndpointAuthMethod | undefined;
  endpoints: (context: ProviderContext) => Promise<Endpoints>;
}

/** An OpenID Connect provider whose endpoints are given. */
export function oidcProvider(options: OidcProviderOptions): OAuthProvider {
  const owner = `oidcProvider(${JSON.stringify(options?.name)})`;
  if (options === null || typeof options !== 'object') {
    throw providerConfigError('oidcProvider()', 'options must be an object');
  }
  rejectUnknownOptions(options, OIDC_KEYS, owner);
  if (options.jwksUrl === undefined) {
    throw providerConfigError(
      owner,
      'jwksUrl is required: ID tokens are verified against the provider’s keys',
    );
  }
  const issuer = options.issuer === undefined ? undefined : checkedIssuer(owner, options.issuer);
  const endpoints: Endpoints = {
    authorize: checkedEndpoint(owner, 'authorizeUrl', options.authorizeUrl, issuer),
    token: checkedEndpoint(owner, 'tokenUrl', options.tokenUrl, issuer),
    userInfo: checkedEndpoint(owner, 'userInfoUrl', options.userInfoUrl, issuer),
    issuer,
    jwks: checkedEndpoint(owner, 'jwksUrl', options.jwksUrl, issuer),
    tokenAuth: 'client_secret_basic',
  };
  return makeOidcProvider({ ...shared(owner, options), endpoints: async () => endpoints });
}

/** An OpenID Connect provider whose endpoints come from its issuer's discovery document. */
export function discoverOidcProvider(options: DiscoveredOidcProviderOptions): OAuthProvider {
  const owner = `discoverOidcProvider(${JSON.stringify(options?.name)})`;
  if (options === null || typeof options !== 'object') {
    throw providerConfigError('discoverOidcProvider()', 'options must be an object');
  }
  rejectUnknownOptions(options, DISCOVERED_KEYS, owner);
  const discovery = new Discovery(checkedIssuer(owner, options.issuer));
  return makeOidcProvider({
    ...shared(owner, options),
    endpoints: (context) => discovery.endpoints(context),
  });
}

function shared(owner: string, options: SharedOidcOptions): Omit<OidcSettings, 'endpoints'> {
  return {
    name: checkedName(owner, options.name),
    client: checkedClient(owner, options.clientId, options.clientSecret),
    scopes: checkedScopes(owner, options.scopes, DEFAULT_OIDC_SCOPES),
    enterprise: checkedFlag(owner, 'enterprise', options.enterprise),
    tokenAuth: checkedAuthMethod(owner, options.tokenEndpointAuthMethod),
    ...checkedDomainRule(owner, options.allowedEmailDomains, options.allowAnyEmailDomain),
  };
}

function checkedAuthMethod(owner: string, method: unknown): TokenEndpointAuthMethod | undefined {
  if (method !== undefined && method !== 'client_secret_basic' && method !== 'client_secret_post') {
    throw providerConfigError(
      owner,
      "tokenEndpointAuthMethod must be 'client_secret_basic' or 'client_secret_post'",
    );
  }
  return method;
}

/** An issuer: an https: URL (http: on loopback) without query or fragment, kept exactly as written. */
function checkedIssuer(owner: string, issuer: unknown): string {
  checkedEndpoint(owner, 'issuer', issuer);
  if ((issuer as string).includes('?') || (issuer as string).includes('#')) {
    throw providerConfigError(owner, 'issuer must have no query or fragment');
  }
  return issuer as string;
}

function makeOidcProvider(settings: OidcSettings): OAuthProvider {
  const { name, client, scopes } = settings;
  const keys = new ProviderKeys();
  return Object.freeze({
    name,
    kind: 'oidc' as const,
    allowedEmailDomains: settings.allowedEmailDomains,
    allowAnyEmailDomain: settings.allowAnyEmailDomain,
    enterprise: settings.enterprise,
    async authorizationUrl(request, context) {
      const endpoints = await settings.endpoints(context);
      return authorizationUrlOf(endpoints.authorize, client.id, scopes, request, true);
    },
    async exchange(exchange: CodeExchange): Promise<OAuthProfile> {
      const endpoints = await settings.endpoints(exchange);
      const tokens = await requestTokens(
        {
          url: endpoints.token,
          clientId: client.id,
          clientSecret: client.secret,
          auth: settings.tokenAuth ?? endpoints.tokenAuth,
        },
        exchange,
      );
      const claims = await verifyIdToken(
        tokens.id_token,
        keys,
        { jwks: endpoints.jwks, clientId: client.id, issuer: endpoints.issuer, nonce: exchange.nonce },
        exchange,
      );
      if (claims.email !== undefined) {
        return profileFrom(name, {
          subject: claims.sub,
          email: claims.email,
          verified: claims.email_verified,
        });
      }
      return profileFrom(name, await userInfo(endpoints, tokens, claims.sub as string, exchange));
    },
  } satisfies OAuthProvider);
}

/** The profile claims from the userinfo endpoint, whose `sub` must be the ID token's. */
async function userInfo(
  endpoints: Endpoints,
  tokens: Record<string, unknown>,
  subject: string,
  exchange: CodeExchange,
): Promise<{ subject: unknown; email: unknown; verified: unknown }> {
  if (endpoints.userInfo === undefined) {
    throw new OAuthExchangeError('id_token has no email and there is no userinfo endpoint');
  }
  if (typeof tokens.access_token !== 'string' || tokens.access_token === '') {
    throw new OAuthExchangeError('token endpoint answered no access_token for userinfo');
  }
  const reply = await callProvider(exchange, 'userinfo endpoint', endpoints.userInfo, {
    headers: { accept: 'application/json', authorization: `Bearer ${tokens.access_token}` },
  });
  const info = jsonObject(reply.json, 'userinfo endpoint');
  if (info.sub !== subject) throw new OAuthExchangeError('userinfo sub is not the id_token sub');
  return { subject: info.sub, email: info.email, verified: info.email_verified };
}
