// OpenID Connect sign-in against the loopback fake provider (discovered): the ID token is refused for a wrong
// issuer or audience, a missing or other nonce, expiry, an `azp` that is not the client, or a signature by a
// key the provider does not publish; a token reply that is not JSON, a 500 or a reply past `timeoutMs` fails
// the exchange; the profile rules (sub, one `@`, email_verified the boolean) and the email domains apply. Every
// such failure is 502 with the catalog's neutral message, its detail in a warn line only.
import { SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { discoverOidcProvider } from '../../../runtime/auth/oauth/providers/oidc.js';
import type { OAuthServiceOptions } from '../../../runtime/auth/oauth/service.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  signingKey,
  startFakeProvider,
  type Claims,
  type FakeProvider,
} from './fake-provider.js';
import { EXCHANGE_FAILED, harness, signIn, T0 } from './helpers.js';

let fake: FakeProvider;
let now = T0;

beforeAll(async () => {
  fake = await startFakeProvider({ now: () => now });
});
afterAll(() => fake.close());
beforeEach(() => {
  now = T0;
  fake.claims = (base) => base;
  fake.userinfo = (base) => base;
  fake.tokenMode = 'ok';
  fake.tokenDelayMs = 0;
  fake.signer = fake.published[0]!;
  fake.encode = undefined;
});

function setUp(rule: { allowedEmailDomains?: string[] } = {}, options: Partial<OAuthServiceOptions> = {}) {
  const provider = discoverOidcProvider({
    name: 'corp',
    issuer: fake.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    ...(rule.allowedEmailDomains === undefined ? { allowAnyEmailDomain: true } : rule),
  });
  return harness([provider], options);
}

/** Signs in with the ID token's claims changed by `change`; answers the harness to inspect the log. */
async function refusedWith(change: (claims: Claims) => Claims, detail: RegExp) {
  const h = setUp();
  fake.claims = change;
  await expect(signIn(h.service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
  const warn = h.logger.at('warn');
  expect(warn).toHaveLength(1);
  expect(warn[0]!.fields).toMatchObject({ provider: 'corp' });
  expect(String(warn[0]!.fields.reason)).toMatch(detail);
  return h;
}

describe('OpenID Connect sign-in', () => {
  it('answers the profile from a verified ID token, email trimmed and lower-cased, without userinfo', async () => {
    const { service } = setUp();
    const before = fake.hits.get('/userinfo') ?? 0;
    await expect(signIn(service, 'corp', fake)).resolves.toEqual({
      provider: 'corp',
      subject: 'user-1',
      email: 'alice@example.com',
      emailVerified: true,
    });
    expect(fake.hits.get('/userinfo') ?? 0).toBe(before);
    // Client authentication by HTTP Basic, the OIDC default.
    expect(fake.tokenAuthorizations.at(-1)).toBe(
      `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`,
    );
  });

  it('reads userinfo when the token has no email, and refuses a userinfo of another subject', async () => {
    const { service } = setUp();
    fake.claims = ({ email: _email, email_verified: _verified, ...rest }) => rest;
    fake.userinfo = () => ({ sub: 'user-1', email: 'Bob@Example.com', email_verified: false });
    await expect(signIn(service, 'corp', fake)).resolves.toMatchObject({
      email: 'bob@example.com',
      emailVerified: false,
    });
    fake.userinfo = () => ({ sub: 'user-2', email: 'bob@example.com', email_verified: true });
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
  });

  it('refuses an ID token of another issuer', async () => {
    await refusedWith((claims) => ({ ...claims, iss: 'https://evil.example' }), /iss/);
  });

  it('refuses an ID token for another audience', async () => {
    await refusedWith((claims) => ({ ...claims, aud: 'someone-else' }), /aud/);
  });

  it('refuses an ID token with several audiences unless azp is the client', async () => {
    await refusedWith((claims) => ({ ...claims, aud: [CLIENT_ID, 'other'] }), /azp/);
    await refusedWith((claims) => ({ ...claims, aud: [CLIENT_ID, 'other'], azp: 'other' }), /azp/);
    const { service } = setUp();
    fake.claims = (claims) => ({ ...claims, aud: [CLIENT_ID, 'other'], azp: CLIENT_ID });
    await expect(signIn(service, 'corp', fake)).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('refuses an ID token without the nonce, or with another one', async () => {
    await refusedWith(({ nonce: _nonce, ...claims }) => claims, /nonce/);
    await refusedWith((claims) => ({ ...claims, nonce: 'another-nonce' }), /nonce/);
  });

  it('refuses an expired ID token, and one issued in the future', async () => {
    const past = Math.floor(T0 / 1000) - 600;
    await refusedWith((claims) => ({ ...claims, iat: past, exp: past + 300 }), /exp/);
    await refusedWith((claims) => ({ ...claims, iat: Math.floor(T0 / 1000) + 3600 }), /iat/);
  });

  it('refuses an ID token signed by a key the provider does not publish', async () => {
    fake.signer = await signingKey('key-1');
    const h = await refusedWith((claims) => claims, /signature/);
    expect(h.logger.entries).toHaveLength(1);
  });

  it('refuses an unsigned ID token, and one signed with the client secret as a MAC key', async () => {
    fake.encode = async (claims) => new UnsecuredJWT(claims).encode();
    await refusedWith((claims) => claims, /alg|algorithm/i);
    fake.encode = (claims) =>
      new SignJWT(claims).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(CLIENT_SECRET));
    await refusedWith((claims) => claims, /alg|algorithm/i);
  });

  it('fails when the token endpoint answers something that is not JSON', async () => {
    const { service, logger } = setUp();
    fake.tokenMode = 'not-json';
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/not JSON/);
  });

  it('fails when the token endpoint answers 500', async () => {
    const { service, logger } = setUp();
    fake.tokenMode = 'status-500';
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/HTTP 500/);
  });

  it('gives up on a token endpoint slower than timeoutMs', async () => {
    const { service, logger } = setUp({}, { timeoutMs: 200 });
    fake.tokenDelayMs = 2_000;
    const started = Date.now();
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(Date.now() - started).toBeLessThan(1_500);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/within 200 ms/);
  });

  it('refuses a profile without a subject, or whose email has two @', async () => {
    await refusedWith(({ sub: _sub, ...claims }) => claims, /sub/);
    await refusedWith((claims) => ({ ...claims, email: 'alice@evil@example.com' }), /email/);
  });

  it('takes email_verified only as the boolean true', async () => {
    const { service } = setUp();
    fake.claims = (claims) => ({ ...claims, email_verified: 'true' });
    await expect(signIn(service, 'corp', fake)).resolves.toMatchObject({ emailVerified: false });
  });

  it('refuses an email outside the allowed domains, matching them exactly and without case', async () => {
    const { service, logger } = setUp({ allowedEmailDomains: ['Example.com'] });
    await expect(signIn(service, 'corp', fake)).resolves.toMatchObject({ email: 'alice@example.com' });
    for (const email of ['alice@sub.example.com', 'alice@example.com.evil.test', 'alice@notexample.com']) {
      fake.claims = (claims) => ({ ...claims, email });
      await expect(signIn(service, 'corp', fake), email).rejects.toMatchObject(EXCHANGE_FAILED);
    }
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/domain sub\.example\.com is not allowed/);
  });

  it('keeps the detail in the log, never in the error', async () => {
    const { service, logger } = setUp();
    fake.claims = (claims) => ({ ...claims, iss: 'https://evil.example' });
    const error = (await signIn(service, 'corp', fake).then(
      () => expect.unreachable(),
      (caught: unknown) => caught,
    )) as Error & Record<string, unknown>;
    expect(error.message).toBe('Sign-in with the provider failed.');
    expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/iss|evil/);
    expect(error.cause).toBeUndefined();
    expect(JSON.stringify(logger.at('warn'))).toMatch(/iss/);
  });
});
