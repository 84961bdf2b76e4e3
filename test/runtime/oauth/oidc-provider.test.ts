// The OAuth service against a real OpenID Provider (the `oidc-provider` package on loopback, through the
// shared test harness), as a deployment would meet one: discovered, PKCE S256 required by the provider, the
// ID token verified against its JWKS, the client authenticated by Basic or, when registered so, in the body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discoverOidcProvider } from '../../../runtime/auth/oauth/providers/oidc.js';
import type { OAuthService } from '../../../runtime/auth/oauth/service.js';
import { startOidcProvider, type OidcTestProvider } from '../../helpers/oidc-provider.js';
import { BASE, EXCHANGE_FAILED, harness, STATE_INVALID } from './helpers.js';

const REDIRECT = `${BASE}/auth/oauth/corp/callback`;
const BASIC = { clientId: 'svc-basic', clientSecret: 'basic-client-secret', redirectUris: [REDIRECT] };
const POST = {
  clientId: 'svc-post',
  clientSecret: 'post-client-secret',
  redirectUris: [REDIRECT],
  tokenEndpointAuthMethod: 'client_secret_post' as const,
};

let idp: OidcTestProvider;

beforeAll(async () => {
  idp = await startOidcProvider({
    accounts: [
      { sub: 'alice', email: 'Alice@Example.com', emailVerified: true },
      { sub: 'bob', email: 'bob@example.com', emailVerified: false },
    ],
    clients: [BASIC, POST],
  });
});
afterAll(() => idp?.close());

function service(client: { clientId: string; clientSecret: string }) {
  const provider = discoverOidcProvider({
    name: 'corp',
    issuer: idp.issuer,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
  });
  return harness([provider], { clock: Date.now });
}

/** Start, sign in at the provider as `sub`, and the callback's finish input. */
async function callback(oauth: OAuthService, sub: string) {
  const { url, binding } = await oauth.start('corp', { callbackBaseUrl: BASE });
  const back = await idp.signIn(url, sub);
  expect(`${back.origin}${back.pathname}`).toBe(REDIRECT);
  const param = (name: string) => back.searchParams.get(name) ?? undefined;
  return {
    callbackBaseUrl: BASE,
    state: param('state'),
    code: param('code'),
    error: param('error'),
    binding,
  };
}

describe('OAuthService with oidc-provider', () => {
  it('signs in through discovery, PKCE and a verified ID token', async () => {
    const { service: oauth } = service(BASIC);
    const input = await callback(oauth, 'alice');
    await expect(oauth.finish('corp', input)).resolves.toEqual({
      provider: 'corp',
      subject: 'alice',
      email: 'alice@example.com',
      emailVerified: true,
    });
    await expect(oauth.finish('corp', input)).rejects.toMatchObject(STATE_INVALID);
    const bob = await callback(oauth, 'bob');
    await expect(oauth.finish('corp', bob)).resolves.toMatchObject({ subject: 'bob', emailVerified: false });
  });

  it('authenticates in the body when the client is registered so', async () => {
    const sent: { url: string; headers: Headers; body: string }[] = [];
    const recording: typeof fetch = (input, init) => {
      sent.push({ url: String(input), headers: new Headers(init?.headers), body: String(init?.body ?? '') });
      return fetch(input, init);
    };
    const provider = discoverOidcProvider({
      name: 'corp',
      issuer: idp.issuer,
      clientId: POST.clientId,
      clientSecret: POST.clientSecret,
      tokenEndpointAuthMethod: 'client_secret_post',
    });
    const { service: oauth } = harness([provider], { clock: Date.now, fetch: recording });
    await expect(oauth.finish('corp', await callback(oauth, 'alice'))).resolves.toMatchObject({
      subject: 'alice',
    });
    const token = sent.find((call) => call.url.endsWith('/token'))!;
    expect(token.headers.get('authorization')).toBeNull();
    expect(new URLSearchParams(token.body).get('client_secret')).toBe(POST.clientSecret);
  });

  it('fails the exchange with a wrong client secret', async () => {
    const { service: oauth, logger } = service({ ...BASIC, clientSecret: 'not-the-secret' });
    await expect(oauth.finish('corp', await callback(oauth, 'alice'))).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/invalid_client/);
  });
});
