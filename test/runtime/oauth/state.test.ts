// The state of a sign-in, on the loopback fake provider: a tampered, expired, other provider's or unbound
// state (binding missing or another browser's) is 400 AUTH_OAUTH_STATE_INVALID; a state is spent by its first
// finish, even one whose exchange failed; an unknown provider is 404 before any state check. The verifier sent
// with the code is the one whose S256 challenge went to the consent screen, the nonce sent there is the one
// the ID token must carry, and the redirect URI is the same characters both times.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChallengeStore, WebauthnChallenge } from '../../../runtime/auth/passkeys/store.js';
import { callbackUrl } from '../../../runtime/auth/oauth/service.js';
import { checkedBaseUrl } from '../../../runtime/auth/oauth/callback-url.js';
import { oidcProvider } from '../../../runtime/auth/oauth/providers/oidc.js';
import { CLIENT_ID, CLIENT_SECRET, startFakeProvider, type FakeProvider } from './fake-provider.js';
import { BASE, EXCHANGE_FAILED, harness, STATE_INVALID, started, T0, UNKNOWN_PROVIDER } from './helpers.js';

let fake: FakeProvider;
let now = T0;

beforeAll(async () => {
  fake = await startFakeProvider({ now: () => now });
});
afterAll(() => fake.close());

function provider(name: string) {
  return oidcProvider({
    name,
    clientId: CLIENT_ID,
    clientSecret: CLIENT_SECRET,
    issuer: fake.issuer,
    authorizeUrl: `${fake.issuer}/authorize`,
    tokenUrl: `${fake.issuer}/token`,
    userInfoUrl: `${fake.issuer}/userinfo`,
    jwksUrl: `${fake.issuer}/jwks`,
    allowAnyEmailDomain: true,
  });
}

function setUp() {
  const h = harness([provider('corp'), provider('other')]);
  now = T0;
  fake.claims = (base) => base;
  fake.tokenMode = 'ok';
  return h;
}

describe('OAuth state', () => {
  it('signs in with a state bound to the browser, checking PKCE, nonce and redirect URI', async () => {
    const { service, clock } = setUp();
    now = clock.now();
    const flow = await started(service, 'corp', fake);
    expect(flow.url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(flow.url.searchParams.get('redirect_uri')).toBe(`${BASE}/auth/oauth/corp/callback`);
    let tokenNonce: unknown;
    fake.claims = (base) => {
      tokenNonce = base.nonce;
      return base;
    };
    const profile = await service.finish('corp', { ...flow });
    expect(profile).toEqual({
      provider: 'corp',
      subject: 'user-1',
      email: 'alice@example.com',
      emailVerified: true,
    });
    const sent = fake.tokenRequests.at(-1)!;
    const verifier = sent.get('code_verifier')!;
    expect(verifier).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(
      flow.url.searchParams.get('code_challenge'),
    );
    expect(sent.get('redirect_uri')).toBe(flow.url.searchParams.get('redirect_uri'));
    expect(tokenNonce).toBe(flow.url.searchParams.get('nonce'));
    expect(flow.url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('gives each sign-in its own state, binding, verifier and nonce', async () => {
    const { service } = setUp();
    const a = await service.start('corp', { callbackBaseUrl: BASE });
    const b = await service.start('corp', { callbackBaseUrl: BASE });
    expect(a.binding).not.toBe(b.binding);
    for (const param of ['state', 'code_challenge', 'nonce']) {
      expect(a.url.searchParams.get(param)).not.toBe(b.url.searchParams.get(param));
    }
    expect(a.expiresAt).toBe(T0 + 10 * 60_000);
  });

  it('refuses a state whose payload or signature was changed', async () => {
    const { service } = setUp();
    const flow = await started(service, 'corp', fake);
    const [payload, mac] = flow.state!.split('.') as [string, string];
    const flip = (text: string, at: number) =>
      text.slice(0, at) + (text[at] === 'A' ? 'B' : 'A') + text.slice(at + 1);
    for (const state of [
      `${flip(payload, 5)}.${mac}`,
      `${payload}.${flip(mac, 10)}`,
      `${payload}.`,
      payload,
      'x'.repeat(2000),
    ]) {
      await expect(service.finish('corp', { ...flow, state })).rejects.toMatchObject(STATE_INVALID);
    }
    await expect(service.finish('corp', { ...flow, state: undefined })).rejects.toMatchObject(STATE_INVALID);
    // None of those spent the real state.
    await expect(service.finish('corp', { ...flow })).resolves.toMatchObject({ subject: 'user-1' });
  });

  it('spends a state once however many callbacks race with it: one exchange, the others 400', async () => {
    const { service } = setUp();
    const flow = await started(service, 'corp', fake);
    const exchangesBefore = fake.tokenRequests.length;
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => service.finish('corp', { ...flow })),
    );
    const signedIn = outcomes.filter((outcome) => outcome.status === 'fulfilled');
    expect(signedIn).toHaveLength(1);
    for (const outcome of outcomes) {
      if (outcome.status === 'rejected') expect(outcome.reason).toMatchObject(STATE_INVALID);
    }
    expect(fake.tokenRequests.length - exchangesBefore).toBe(1);
  });

  it('refuses a state signed with another secret', async () => {
    const { service } = setUp();
    const flow = await started(service, 'corp', fake);
    const other = harness([provider('corp')], { secret: 'another-secret-of-at-least-32-characters' });
    await expect(other.service.finish('corp', { ...flow })).rejects.toMatchObject(STATE_INVALID);
  });

  it('refuses an expired state', async () => {
    const { service, clock } = setUp();
    const flow = await started(service, 'corp', fake);
    clock.advance(10 * 60_000);
    now = clock.now();
    await expect(service.finish('corp', { ...flow })).rejects.toMatchObject(STATE_INVALID);
  });

  it('refuses an expired state even when its single-use mark is still held', async () => {
    // A store that never expires anything: the state's own expiry must refuse it.
    const marks = new Map<string, WebauthnChallenge>();
    const states: ChallengeStore = {
      put: async (key, value) => void marks.set(key, value),
      take: async (key) => {
        const value = marks.get(key);
        marks.delete(key);
        return value;
      },
    };
    const { service, clock } = harness([provider('corp')], { states });
    const flow = await started(service, 'corp', fake);
    expect(marks.size).toBe(1);
    clock.advance(10 * 60_000);
    await expect(service.finish('corp', { ...flow })).rejects.toMatchObject(STATE_INVALID);
  });

  it('honours stateTtlMs', async () => {
    const { service, clock } = harness([provider('corp')], { stateTtlMs: 60_000 });
    const flow = await started(service, 'corp', fake);
    clock.advance(60_000);
    await expect(service.finish('corp', { ...flow })).rejects.toMatchObject(STATE_INVALID);
  });

  it("refuses another provider's state", async () => {
    const { service } = setUp();
    const flow = await started(service, 'corp', fake);
    await expect(service.finish('other', { ...flow })).rejects.toMatchObject(STATE_INVALID);
  });

  it('refuses a state without its binding, or with another browser’s', async () => {
    const { service } = setUp();
    const flow = await started(service, 'corp', fake);
    const another = await service.start('corp', { callbackBaseUrl: BASE });
    for (const binding of [undefined, '', another.binding, `${flow.binding}x`]) {
      await expect(service.finish('corp', { ...flow, binding })).rejects.toMatchObject(STATE_INVALID);
    }
  });

  it('spends a state at its first finish, even when that exchange failed', async () => {
    const { service } = setUp();
    const failed = await started(service, 'corp', fake);
    fake.tokenMode = 'status-500';
    await expect(service.finish('corp', { ...failed })).rejects.toMatchObject(EXCHANGE_FAILED);
    fake.tokenMode = 'ok';
    await expect(service.finish('corp', { ...failed })).rejects.toMatchObject(STATE_INVALID);

    const good = await started(service, 'corp', fake);
    await service.finish('corp', { ...good });
    await expect(service.finish('corp', { ...good })).rejects.toMatchObject(STATE_INVALID);
  });

  it('answers an error from the provider, or no code, with 502 and spends the state', async () => {
    const { service, logger } = setUp();
    const denied = await started(service, 'corp', fake);
    await expect(
      service.finish('corp', { ...denied, code: undefined, error: 'access_denied' }),
    ).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(JSON.stringify(logger.at('warn'))).toContain('access_denied');
    await expect(service.finish('corp', { ...denied })).rejects.toMatchObject(STATE_INVALID);
    const noCode = await started(service, 'corp', fake);
    await expect(service.finish('corp', { ...noCode, code: undefined })).rejects.toMatchObject(
      EXCHANGE_FAILED,
    );
  });

  it('answers 404 for an unknown provider before looking at the state', async () => {
    const { service } = setUp();
    await expect(service.start('nope', { callbackBaseUrl: BASE })).rejects.toMatchObject(UNKNOWN_PROVIDER);
    const flow = await started(service, 'corp', fake);
    await expect(service.finish('nope', { ...flow, state: 'junk' })).rejects.toMatchObject(UNKNOWN_PROVIDER);
    await expect(service.finish('constructor', { ...flow })).rejects.toMatchObject(UNKNOWN_PROVIDER);
  });
});

describe('callbackUrl', () => {
  it('appends the callback path to the base URL, dropping one trailing slash', () => {
    expect(callbackUrl('https://app.example.com', 'google')).toBe(
      'https://app.example.com/auth/oauth/google/callback',
    );
    expect(callbackUrl('https://app.example.com/', 'google')).toBe(
      'https://app.example.com/auth/oauth/google/callback',
    );
    expect(callbackUrl('https://app.example.com/api', 'corp-sso')).toBe(
      'https://app.example.com/api/auth/oauth/corp-sso/callback',
    );
    expect(callbackUrl('http://localhost:3000', 'github')).toBe(
      'http://localhost:3000/auth/oauth/github/callback',
    );
  });

  it('refuses a base with a query, fragment, two trailing slashes, a non-canonical form or another scheme', () => {
    for (const base of [
      'https://app.example.com?x=1',
      'https://app.example.com/#top',
      'https://app.example.com//',
      'https://App.Example.com',
      'https://app.example.com:443',
      'https://user:pw@app.example.com',
      'ftp://app.example.com',
      'https://app.example.com/auth/oauth/google/callback',
      '/relative',
    ]) {
      expect(() => callbackUrl(base, 'google'), base).toThrow(/callbackBaseUrl/);
    }
    expect(() => callbackUrl('https://app.example.com', 'Google')).toThrow(/provider/);
  });

  it('checks a base URL for another owner (a plugin at construction), naming its owner and option', () => {
    expect(checkedBaseUrl('https://app.example.com/', 'oauthPlugin()', 'callbackBaseUrl')).toBe(
      'https://app.example.com',
    );
    const expected = 'an absolute http(s) URL without query, fragment or credentials, in canonical form';
    const refusal = (message: string) =>
      expect.objectContaining({
        name: 'OptionError',
        code: 'OPTION_INVALID',
        owner: 'oauthPlugin()',
        option: 'callbackBaseUrl',
        message: `oauthPlugin(): ${message}.`,
      });
    expect(() => checkedBaseUrl('https://app.example.com?x=1', 'oauthPlugin()', 'callbackBaseUrl')).toThrow(
      refusal(`callbackBaseUrl must be ${expected}; got "https://app.example.com?x=1"`),
    );
    expect(() => checkedBaseUrl(42, 'oauthPlugin()', 'callbackBaseUrl')).toThrow(
      refusal(`callbackBaseUrl must be ${expected}; got a number`),
    );
    expect(() => checkedBaseUrl(undefined, 'oauthPlugin()', 'callbackBaseUrl')).toThrow(
      refusal(`callbackBaseUrl must be ${expected}; got undefined`),
    );
    expect(() =>
      checkedBaseUrl(
        'https://app.example.com/auth/oauth/google/callback',
        'oauthPlugin()',
        'callbackBaseUrl',
      ),
    ).toThrow(
      refusal(
        `callbackBaseUrl must be the app's base URL, not the callback path; got "https://app.example.com/auth/oauth/google/callback"`,
      ),
    );
    // Without an owner, the refusal is callbackUrl()'s.
    expect(() => checkedBaseUrl('ftp://app.example.com')).toThrow(
      expect.objectContaining({ code: 'OPTION_INVALID', owner: 'callbackUrl()', option: 'callbackBaseUrl' }),
    );
  });
});
