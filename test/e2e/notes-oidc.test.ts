// The reference service signs a person in through a real OpenID provider (`oidc-provider` on loopback) with
// nothing but SVC_OIDC_ISSUER, SVC_OIDC_CLIENT_ID and SVC_OIDC_CLIENT_SECRET set: the provider named `oidc`
// is discovered from the issuer, the redirect URI is built on the URL the service listens at, and the tokens
// the callback answers work with the generated client (the account and its link). Without the variables the
// provider is left out.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createClient } from '../../generated/client.js';
import { loadConfig } from '../../generated/config.js';
import type { App } from '../../runtime/app/app.js';
import { buildApp } from '../../src/app.js';
import { createDatabase, type TestDatabase } from '../backends.js';
import { startOidcProvider, type OidcTestProvider } from '../helpers/oidc-provider.js';

const SECRET = 'e2e-notes-oidc-secret-0123456789abcdef';
const CLIENT_ID = 'notes-api';
const CLIENT_SECRET = randomBytes(24).toString('base64url');

let oidc: OidcTestProvider;
let database: TestDatabase;
let app: App;
let url: string;

function environment(extra: Record<string, string>) {
  return {
    ...process.env,
    NODE_ENV: 'test',
    SVC_SECRET: SECRET,
    DATABASE_URL: database.url,
    REDIS_URL: '',
    RATE_LIMIT: '100000',
    SVC_PUBLIC_URL: '',
    SVC_OIDC_ISSUER: '',
    SVC_OIDC_CLIENT_ID: '',
    SVC_OIDC_CLIENT_SECRET: '',
    ...extra,
  };
}

beforeAll(async () => {
  oidc = await startOidcProvider({
    accounts: [{ sub: 'ada-at-provider', email: 'Ada@Example.com', emailVerified: true }],
  });
  database = await createDatabase();
  const env = environment({
    SVC_OIDC_ISSUER: oidc.issuer,
    SVC_OIDC_CLIENT_ID: CLIENT_ID,
    SVC_OIDC_CLIENT_SECRET: CLIENT_SECRET,
  });
  app = await buildApp(loadConfig(env), { env });
  ({ url } = await app.listen({ port: 0, host: '127.0.0.1' }));
  oidc.addClient({
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    redirectUris: [`${url}/auth/oauth/oidc/callback`],
  });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await database?.drop();
  await oidc?.close();
});

describe('the reference service with an OpenID provider', () => {
  test('signs a person in end to end, and the tokens work with the generated client', async () => {
    const started = await fetch(`${url}/auth/oauth/oidc`, { redirect: 'manual' });
    expect(started.status).toBe(302);
    const location = new URL(started.headers.get('location') as string);
    expect(location.origin).toBe(oidc.issuer);
    expect(location.searchParams.get('redirect_uri')).toBe(`${url}/auth/oauth/oidc/callback`);
    expect(location.searchParams.get('code_challenge_method')).toBe('S256');
    const binding = started.headers
      .getSetCookie()
      .map((line) => line.split(';')[0] as string)
      .find((pair) => pair.startsWith('svc_oauth='));
    expect(binding).toBeDefined();

    const back = await oidc.signIn(location, 'ada-at-provider');
    const answer = await fetch(back, { headers: { cookie: binding as string }, redirect: 'manual' });
    expect(answer.status, await answer.clone().text()).toBe(200);
    const signedIn = (await answer.json()) as { user: { id: string; email: string }; accessToken: string };
    expect(signedIn.user).toMatchObject({ email: 'ada@example.com', emailVerified: true });

    const ada = createClient({
      baseUrl: url,
      headers: { authorization: `Bearer ${signedIn.accessToken}` },
      retry: false,
    });
    const me = await ada.me();
    expect(me.ok && me.data.user.id).toBe(signedIn.user.id);
    const links = await ada.accountLinkList();
    expect(links.ok && links.data.links.map((link) => [link.provider, link.subject])).toEqual([
      ['oidc', 'ada-at-provider'],
    ]);
    const created = await ada.createNote({ body: { title: 'from the provider' } });
    expect(created.status).toBe(201);
  });

  test('leaves the provider out when the variables are unset', async () => {
    const env = environment({});
    const plain = await buildApp(loadConfig(env), { env });
    try {
      const { url: plainUrl } = await plain.listen({ port: 0, host: '127.0.0.1' });
      const answer = await fetch(`${plainUrl}/auth/oauth/oidc`, { redirect: 'manual' });
      expect(answer.status).toBe(404);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe(
        'AUTH_OAUTH_UNKNOWN_PROVIDER',
      );
    } finally {
      await plain.close();
    }
  });
});
