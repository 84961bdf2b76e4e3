// The OpenID Provider harness behaves like the real provider it is: discovery on 127.0.0.1, the authorization
// code flow with PKCE and a nonce, ID tokens that verify against its JWKS and carry the account's email, a
// userinfo endpoint that agrees, and refusals where a provider refuses. Only fetch and jose talk to it, as a
// relying party would.
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRemoteJWKSet, jwtVerify, type JWTPayload } from 'jose';
import { startOidcProvider, type OidcTestClient, type OidcTestProvider } from '../helpers/oidc-provider.js';

const CLIENT: OidcTestClient = {
  clientId: 'svc-web',
  clientSecret: 'a-client-secret-for-the-tests',
  redirectUris: ['http://127.0.0.1:9/auth/callback'],
};
const POST_CLIENT: OidcTestClient = {
  clientId: 'svc-post',
  clientSecret: 'another-client-secret',
  redirectUris: ['http://127.0.0.1:9/post/callback'],
  tokenEndpointAuthMethod: 'client_secret_post',
};

interface Discovery {
  issuer: string;
  authorization_endpoint: string;
  token_endpoint: string;
  userinfo_endpoint: string;
  jwks_uri: string;
  code_challenge_methods_supported: string[];
  scopes_supported: string[];
}

interface TokenResponse {
  id_token: string;
  access_token: string;
  refresh_token?: string;
  error?: string;
}

const base64url = (bytes: Buffer) => bytes.toString('base64url');

/** The relying party's half of one authorization request: what it keeps to check the answer. */
function authorizationRequest(discovery: Discovery, client: OidcTestClient) {
  const verifier = base64url(randomBytes(32));
  const state = base64url(randomBytes(16));
  const nonce = base64url(randomBytes(16));
  const url = new URL(discovery.authorization_endpoint);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUris[0] ?? '',
    scope: 'openid email profile',
    state,
    nonce,
    code_challenge: base64url(createHash('sha256').update(verifier).digest()),
    code_challenge_method: 'S256',
  }).toString();
  return { url, verifier, state, nonce };
}

async function exchange(
  discovery: Discovery,
  client: OidcTestClient,
  code: string,
  verifier: string,
): Promise<{ status: number; body: TokenResponse }> {
  const form = new URLSearchParams({
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUris[0] ?? '',
    code_verifier: verifier,
  });
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded' };
  if (client.tokenEndpointAuthMethod === 'client_secret_post') {
    form.set('client_id', client.clientId);
    form.set('client_secret', client.clientSecret);
  } else {
    const encode = (value: string) => encodeURIComponent(value);
    const credentials = `${encode(client.clientId)}:${encode(client.clientSecret)}`;
    headers.authorization = `Basic ${Buffer.from(credentials).toString('base64')}`;
  }
  const response = await fetch(discovery.token_endpoint, { method: 'POST', headers, body: form });
  return { status: response.status, body: (await response.json()) as TokenResponse };
}

describe('the test OpenID Provider', () => {
  let provider: OidcTestProvider;
  let discovery: Discovery;

  beforeAll(async () => {
    provider = await startOidcProvider({
      accounts: [
        { sub: 'alice-sub', email: 'alice@example.com', emailVerified: true },
        { sub: 'bob-sub', email: 'bob@example.com', emailVerified: false },
      ],
      clients: [CLIENT],
    });
    const response = await fetch(`${provider.issuer}/.well-known/openid-configuration`);
    discovery = (await response.json()) as Discovery;
  });
  afterAll(() => provider?.close());

  /** Signs in as `sub` and exchanges the code; answers the verified ID token's claims and the access token. */
  async function signInAndExchange(sub: string, client = CLIENT) {
    const request = authorizationRequest(discovery, client);
    const callback = await provider.signIn(request.url, sub);
    expect(callback.origin + callback.pathname).toBe(client.redirectUris[0]);
    expect(callback.searchParams.get('state')).toBe(request.state);
    const code = callback.searchParams.get('code');
    expect(code).toBeTruthy();
    const { status, body } = await exchange(discovery, client, code ?? '', request.verifier);
    expect(status).toBe(200);
    const jwks = createRemoteJWKSet(new URL(discovery.jwks_uri));
    const { payload, protectedHeader } = await jwtVerify(body.id_token, jwks, {
      issuer: provider.issuer,
      audience: client.clientId,
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload.nonce).toBe(request.nonce);
    return { idToken: payload as JWTPayload & Record<string, unknown>, tokens: body };
  }

  it('publishes a discovery document for its own issuer, every endpoint on 127.0.0.1', () => {
    expect(provider.issuer).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(discovery.issuer).toBe(provider.issuer);
    for (const endpoint of [
      'authorization_endpoint',
      'token_endpoint',
      'userinfo_endpoint',
      'jwks_uri',
    ] as const) {
      expect(new URL(discovery[endpoint]).origin).toBe(provider.issuer);
    }
    expect(discovery.code_challenge_methods_supported).toEqual(['S256']);
    expect(discovery.scopes_supported).toEqual(expect.arrayContaining(['openid', 'email', 'profile']));
  });

  it('runs the code flow: an ID token with the nonce and email, and a userinfo that agrees', async () => {
    const { idToken, tokens } = await signInAndExchange('alice-sub');
    expect(idToken.sub).toBe('alice-sub');
    expect(idToken.email).toBe('alice@example.com');
    expect(idToken.email_verified).toBe(true);
    expect(tokens.refresh_token).toBeUndefined();

    const userinfo = await fetch(discovery.userinfo_endpoint, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(userinfo.status).toBe(200);
    expect(await userinfo.json()).toMatchObject({
      sub: 'alice-sub',
      email: 'alice@example.com',
      email_verified: true,
    });
  });

  it('refuses a code exchanged with the wrong code_verifier', async () => {
    const request = authorizationRequest(discovery, CLIENT);
    const callback = await provider.signIn(request.url, 'alice-sub');
    const wrong = base64url(randomBytes(32));
    const { status, body } = await exchange(
      discovery,
      CLIENT,
      callback.searchParams.get('code') ?? '',
      wrong,
    );
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_grant');
  });

  it('requires PKCE: an authorization request without a code_challenge is answered with an error', async () => {
    const request = authorizationRequest(discovery, CLIENT);
    request.url.searchParams.delete('code_challenge');
    request.url.searchParams.delete('code_challenge_method');
    const callback = await provider.signIn(request.url, 'alice-sub');
    expect(callback.searchParams.get('error')).toBe('invalid_request');
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it('shows a changed email in the next sign-in, under the same sub', async () => {
    provider.setAccount({ sub: 'carol-sub', email: 'carol@example.com', emailVerified: true });
    const first = await signInAndExchange('carol-sub');
    expect(first.idToken.email).toBe('carol@example.com');
    provider.setAccount({ sub: 'carol-sub', email: 'carol@new.example.com', emailVerified: true });
    const second = await signInAndExchange('carol-sub');
    expect(second.idToken.sub).toBe('carol-sub');
    expect(second.idToken.email).toBe('carol@new.example.com');
  });

  it('says email_verified false for an account whose email is not verified', async () => {
    const { idToken } = await signInAndExchange('bob-sub');
    expect(idToken.email).toBe('bob@example.com');
    expect(idToken.email_verified).toBe(false);
  });

  it('takes a client added after start, authenticating with client_secret_post', async () => {
    provider.addClient(POST_CLIENT);
    const { idToken } = await signInAndExchange('alice-sub', POST_CLIENT);
    expect(idToken.aud).toBe(POST_CLIENT.clientId);
  });

  it('rejects signing in as an unknown account, and an authorization URL naming an unknown client', async () => {
    const request = authorizationRequest(discovery, CLIENT);
    await expect(provider.signIn(request.url, 'nobody')).rejects.toThrow(/no test account with sub "nobody"/);
    request.url.searchParams.set('client_id', 'no-such-client');
    await expect(provider.signIn(request.url, 'alice-sub')).rejects.toThrow(/400.*invalid_client/);
  });
});

describe('closing the test OpenID Provider', () => {
  it('stops listening', async () => {
    const provider = await startOidcProvider({});
    await provider.close();
    await expect(fetch(`${provider.issuer}/.well-known/openid-configuration`)).rejects.toThrow();
  });
});
