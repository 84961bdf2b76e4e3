// Discovery and keys against the loopback fake provider: a document naming another issuer, or an endpoint on
// plain http: away from loopback, is refused (502, detail logged); the document and the JWKS are fetched
// again only when their cache headers say (max-age on a hand-moved clock, no-store at every use, Expires);
// a token signed by a key the held set lacks makes the set be fetched again once (rotation), but not again
// within the cooldown.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { freshnessMs, DEFAULT_CACHE_MS, MAX_CACHE_MS } from '../../../runtime/auth/oauth/http-cache.js';
import { discoverOidcProvider } from '../../../runtime/auth/oauth/providers/oidc.js';
import {
  CLIENT_ID,
  CLIENT_SECRET,
  signingKey,
  startFakeProvider,
  type FakeProvider,
} from './fake-provider.js';
import { BASE, EXCHANGE_FAILED, harness, signIn, T0 } from './helpers.js';

let fake: FakeProvider;
let now = T0;

beforeAll(async () => {
  fake = await startFakeProvider({ now: () => now });
});
afterAll(() => fake.close());
beforeEach(async () => {
  now = T0;
  fake.discovery = (base) => base;
  fake.discoveryHeaders = { 'cache-control': 'max-age=300' };
  fake.jwksHeaders = { 'cache-control': 'max-age=300' };
  fake.published = [await signingKey('key-1')];
  fake.signer = fake.published[0]!;
  fake.hits.clear();
});

function setUp() {
  const provider = discoverOidcProvider({
    name: 'corp',
    issuer: fake.issuer,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
  });
  const h = harness([provider]);
  const advance = (ms: number) => {
    h.clock.advance(ms);
    now = h.clock.now();
  };
  return { ...h, advance };
}

const fetches = () => ({
  discovery: fake.hits.get('/.well-known/openid-configuration') ?? 0,
  jwks: fake.hits.get('/jwks') ?? 0,
});

describe('OIDC discovery', () => {
  it('refuses a document naming another issuer', async () => {
    const { service, logger } = setUp();
    fake.discovery = (base) => ({ ...base, issuer: `${fake.issuer}/` });
    await expect(service.start('corp', { callbackBaseUrl: BASE })).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/issuer/);
  });

  it('fails when the provider cannot be reached', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const provider = discoverOidcProvider({
      name: 'gone',
      issuer: `http://127.0.0.1:${port}`,
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
    });
    const { service, logger } = harness([provider]);
    await expect(service.start('gone', { callbackBaseUrl: BASE })).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(
      /discovery document .* failed: .*ECONNREFUSED/,
    );
  });

  it('refuses an endpoint on plain http: away from loopback', async () => {
    for (const field of ['token_endpoint', 'jwks_uri', 'authorization_endpoint', 'userinfo_endpoint']) {
      const { service, logger } = setUp();
      fake.discovery = (base) => ({ ...base, [field]: 'http://idp.example.com/x' });
      await expect(service.start('corp', { callbackBaseUrl: BASE }), field).rejects.toMatchObject(
        EXCHANGE_FAILED,
      );
      expect(String(logger.at('warn')[0]!.fields.reason)).toContain(field);
    }
  });

  it('refuses a document without PKCE S256 when it lists PKCE methods', async () => {
    const { service } = setUp();
    fake.discovery = (base) => ({ ...base, code_challenge_methods_supported: ['plain'] });
    await expect(service.start('corp', { callbackBaseUrl: BASE })).rejects.toMatchObject(EXCHANGE_FAILED);
  });

  it('sends the browser to the discovered authorization endpoint, fetched at first use', async () => {
    const { service } = setUp();
    expect(fetches().discovery).toBe(0);
    const { url } = await service.start('corp', { callbackBaseUrl: BASE });
    expect(`${url.origin}${url.pathname}`).toBe(`${fake.issuer}/authorize`);
    expect(url.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(fetches().discovery).toBe(1);
  });

  it('reuses the document and the keys for their max-age, then fetches them again', async () => {
    const { service, advance } = setUp();
    await signIn(service, 'corp', fake);
    await signIn(service, 'corp', fake);
    expect(fetches()).toEqual({ discovery: 1, jwks: 1 });
    advance(299_000);
    await signIn(service, 'corp', fake);
    expect(fetches()).toEqual({ discovery: 1, jwks: 1 });
    advance(2_000);
    await signIn(service, 'corp', fake);
    expect(fetches()).toEqual({ discovery: 2, jwks: 2 });
  });

  it('fetches a no-store document and key set at every use', async () => {
    const { service } = setUp();
    fake.discoveryHeaders = { 'cache-control': 'no-store' };
    fake.jwksHeaders = { 'cache-control': 'no-cache' };
    await signIn(service, 'corp', fake);
    await signIn(service, 'corp', fake);
    // Each sign-in reads the document at start and at finish, and the keys once.
    expect(fetches()).toEqual({ discovery: 4, jwks: 2 });
  });

  it('fetches the keys again once when a token names a key the held set lacks, not again within the cooldown', async () => {
    const { service, advance } = setUp();
    await signIn(service, 'corp', fake);
    expect(fetches().jwks).toBe(1);
    // The provider rotates: a new key, published and used.
    const next = await signingKey('key-2');
    fake.published = [...fake.published, next];
    fake.signer = next;
    advance(60_000);
    await expect(signIn(service, 'corp', fake)).resolves.toMatchObject({ subject: 'user-1' });
    expect(fetches().jwks).toBe(2);
    // A token naming a key nobody publishes: refused, and within the cooldown the set is not fetched again.
    fake.signer = await signingKey('key-9');
    advance(1_000);
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(fetches().jwks).toBe(2);
    // After the cooldown one more fetch is allowed.
    advance(30_000);
    await expect(signIn(service, 'corp', fake)).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(fetches().jwks).toBe(3);
  });
});

describe('freshnessMs', () => {
  const at = (headers: Record<string, string>) => freshnessMs(new Headers(headers), T0);

  it('reads Cache-Control and Expires, with a default and a cap', () => {
    expect(at({ 'cache-control': 'public, max-age=120' })).toBe(120_000);
    expect(at({ 'cache-control': 'max-age=120', age: '20' })).toBe(100_000);
    expect(at({ 'cache-control': 'max-age=0' })).toBe(0);
    expect(at({ 'cache-control': 'max-age=60, no-store' })).toBe(0);
    expect(at({ 'cache-control': 'no-cache' })).toBe(0);
    expect(at({ 'cache-control': 'max-age=999999999' })).toBe(MAX_CACHE_MS);
    expect(at({ 'cache-control': 'max-age=100', expires: new Date(T0 + 999_000).toUTCString() })).toBe(
      100_000,
    );
    const date = new Date(T0).toUTCString();
    expect(at({ date, expires: new Date(T0 + 50_000).toUTCString() })).toBe(50_000);
    expect(at({ expires: 'not a date' })).toBe(0);
    expect(at({})).toBe(DEFAULT_CACHE_MS);
  });
});
