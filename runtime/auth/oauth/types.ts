// What social sign-in passes between its parts: a provider (how to send the browser to it and how to turn the
// code it returns into a checked profile) and the profile the account rules act on.

/** What a provider asserts about the person who signed in, once every check on its reply has passed. */
export interface OAuthProfile {
  /** The provider's name, as configured (`google`, `github`, `oidc`, …). */
  provider: string;
  /** The provider's stable id of the person (`sub`); never reused for another person. */
  subject: string;
  /** The email the provider gives, trimmed and lower-cased; exactly one `@`. */
  email: string;
  /** True only when the provider says it verified the email. */
  emailVerified: boolean;
}

/** What the authorization step needs to send the browser to the provider. */
export interface AuthorizationRequest {
  /** `<callbackBaseUrl>/auth/oauth/<provider>/callback`, character for character. */
  redirectUri: string;
  /** The signed state. */
  state: string;
  /** The PKCE S256 challenge of the verifier derived for this state. */
  codeChallenge: string;
  /** The OIDC nonce derived for this state (sent by OIDC providers, ignored by plain OAuth 2.0 ones). */
  nonce: string;
}

/** What every call to a provider is made with, from the service. */
export interface ProviderContext {
  /** The fetch to use (tests and proxies); default the global one. */
  fetch: typeof fetch;
  /** The deadline of each call to the provider (discovery, JWKS, token, userinfo), in ms. */
  timeoutMs: number;
  /** Unix ms now: ID-token times and the discovery and JWKS caches read it. */
  clock: () => number;
}

/** What the callback step needs to exchange the code. */
export interface CodeExchange extends ProviderContext {
  code: string;
  redirectUri: string;
  codeVerifier: string;
  /** The nonce the ID token must carry (OIDC providers). */
  nonce: string;
}

export interface OAuthProvider {
  readonly name: string;
  /** 'oidc' providers return an ID token that is verified; 'oauth2' ones are read through their user API. */
  readonly kind: 'oidc' | 'oauth2';
  /** Exact, lower-case email domains allowed to sign in with it; undefined when not restricted. */
  readonly allowedEmailDomains?: readonly string[] | undefined;
  /** True when the provider is declared open to any email domain on purpose. */
  readonly allowAnyEmailDomain?: boolean | undefined;
  /** An enterprise (single sign-on) provider: needs a domain rule among several providers, like OIDC ones. */
  readonly enterprise?: boolean | undefined;
  /** The provider's consent-screen URL for this request. */
  authorizationUrl(request: AuthorizationRequest, context: ProviderContext): Promise<URL>;
  /**
   * Exchanges the code and checks everything the provider returns: the profile, or an OAuthExchangeError
   * saying why not (for the log; the client only ever sees a neutral message).
   */
  exchange(exchange: CodeExchange): Promise<OAuthProfile>;
}
