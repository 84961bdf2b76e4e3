// What the OAuth service and its providers refuse at construction (AUTH_OAUTH_PROVIDER_CONFIG, naming the
// problem): providers not a list, a name used twice or not a lower-case path segment, a domain entry that is
// not an exact domain, both domain rules at once, and beside other providers an OIDC or enterprise one
// without a domain rule (alone, it needs none); an OIDC provider without keys or with a plain-http endpoint;
// unknown options; and the service's own options (secret, timeoutMs and stateTtlMs within their ranges,
// subjectConflict, mfa), which it exposes.
import { describe, expect, it } from 'vitest';
import { githubProvider } from '../../../runtime/auth/oauth/providers/github.js';
import { googleProvider } from '../../../runtime/auth/oauth/providers/google.js';
import {
  discoverOidcProvider,
  oidcProvider,
  type OidcProviderOptions,
} from '../../../runtime/auth/oauth/providers/oidc.js';
import { OAuthService } from '../../../runtime/auth/oauth/service.js';
import type { OAuthProvider } from '../../../runtime/auth/oauth/types.js';
import { collectingLogger } from '../../../runtime/log/collecting-logger.js';
import { SECRET } from './helpers.js';

const CONFIG = { code: 'AUTH_OAUTH_PROVIDER_CONFIG' };

function corp(overrides: Partial<OidcProviderOptions> = {}): OidcProviderOptions {
  return {
    name: 'corp',
    clientId: 'id',
    clientSecret: 'secret',
    authorizeUrl: 'https://idp.example.com/authorize',
    tokenUrl: 'https://idp.example.com/token',
    userInfoUrl: 'https://idp.example.com/userinfo',
    jwksUrl: 'https://idp.example.com/jwks',
    issuer: 'https://idp.example.com',
    ...overrides,
  };
}

const github = () => githubProvider({ clientId: 'gh', clientSecret: 'gh-secret' });
const service = (providers: OAuthProvider[], extra: Record<string, unknown> = {}) =>
  new OAuthService({ secret: SECRET, providers, ...extra });

/** A provider implemented outside svckit, as an application may write one. */
function custom(fields: Partial<OAuthProvider>): OAuthProvider {
  return {
    name: 'custom',
    kind: 'oauth2',
    authorizationUrl: async () => new URL('https://custom.example.com/authorize'),
    exchange: async () => ({
      provider: 'custom',
      subject: '1',
      email: 'a@custom.example.com',
      emailVerified: true,
    }),
    ...fields,
  };
}

describe('OAuth provider configuration', () => {
  it('refuses two providers with one name', () => {
    expect(() => service([github(), githubProvider({ clientId: 'x', clientSecret: 'y' })])).toThrow(
      expect.objectContaining({
        ...CONFIG,
        message: expect.stringMatching(/two providers are named "github"/),
      }),
    );
  });

  it('refuses names that are not lower-case path segments', () => {
    for (const name of ['Corp', 'corp/x', '', 'corp sso', '..']) {
      expect(() => oidcProvider(corp({ name })), name).toThrow(expect.objectContaining(CONFIG));
      expect(() => service([custom({ name })]), name).toThrow(expect.objectContaining(CONFIG));
    }
  });

  it('refuses domain entries that are not exact domains', () => {
    for (const entry of [
      '*.example.com',
      '@example.com',
      'a@example.com',
      'example',
      '',
      'exa mple.com',
      'example.com.',
      '-x.com',
    ]) {
      expect(() => oidcProvider(corp({ allowedEmailDomains: [entry] })), entry).toThrow(
        expect.objectContaining({ ...CONFIG, message: expect.stringMatching(/allowedEmailDomains/) }),
      );
      expect(() => service([custom({ allowedEmailDomains: [entry] })]), entry).toThrow(
        expect.objectContaining(CONFIG),
      );
    }
    expect(() => oidcProvider(corp({ allowedEmailDomains: [] }))).toThrow(expect.objectContaining(CONFIG));
    expect(
      oidcProvider(corp({ allowedEmailDomains: ['Example.COM', 'sub.example.com'] })).allowedEmailDomains,
    ).toEqual(['example.com', 'sub.example.com']);
  });

  it('refuses a domain list together with allowAnyEmailDomain: true', () => {
    expect(() =>
      oidcProvider(corp({ allowedEmailDomains: ['example.com'], allowAnyEmailDomain: true })),
    ).toThrow(expect.objectContaining(CONFIG));
    expect(() =>
      service([custom({ allowedEmailDomains: ['example.com'], allowAnyEmailDomain: true })]),
    ).toThrow(expect.objectContaining(CONFIG));
  });

  it('needs a domain rule on every OIDC or enterprise provider beside others', () => {
    expect(() => service([github(), oidcProvider(corp())])).toThrow(
      expect.objectContaining({ ...CONFIG, message: expect.stringMatching(/"corp".*allowedEmailDomains/) }),
    );
    expect(() => service([github(), custom({ enterprise: true })])).toThrow(expect.objectContaining(CONFIG));
    expect(() =>
      service([
        github(),
        discoverOidcProvider({
          name: 'okta',
          issuer: 'https://okta.example.com',
          clientId: 'a',
          clientSecret: 'b',
        }),
      ]),
    ).toThrow(expect.objectContaining(CONFIG));
    // With a rule, or alone, it is accepted; Google's preset declares it may sign in any domain.
    expect(
      service([github(), oidcProvider(corp({ allowedEmailDomains: ['example.com'] }))]).providerNames(),
    ).toEqual(['github', 'corp']);
    expect(
      service([github(), oidcProvider(corp({ allowAnyEmailDomain: true }))]).providerNames(),
    ).toHaveLength(2);
    expect(service([oidcProvider(corp())]).providerNames()).toEqual(['corp']);
    expect(service([custom({ enterprise: true })]).providerNames()).toEqual(['custom']);
    expect(service([github(), googleProvider({ clientId: 'g', clientSecret: 's' })]).providerNames()).toEqual(
      ['github', 'google'],
    );
  });

  it('runs with no providers (every sign-in unknown), and refuses entries that are not providers', async () => {
    const none = service([]);
    expect(none.providerNames()).toEqual([]);
    await expect(none.start('github', { callbackBaseUrl: 'https://app.example.com' })).rejects.toMatchObject({
      code: 'AUTH_OAUTH_UNKNOWN_PROVIDER',
    });
    expect(() => service('github' as never)).toThrow(expect.objectContaining(CONFIG));
    expect(() => service([{ name: 'x' } as unknown as OAuthProvider])).toThrow(
      expect.objectContaining(CONFIG),
    );
  });

  it('refuses an OIDC provider without keys, with a plain-http or bad endpoint, or without client credentials', () => {
    expect(() => oidcProvider(corp({ jwksUrl: undefined }))).toThrow(
      expect.objectContaining({ ...CONFIG, message: expect.stringMatching(/jwksUrl/) }),
    );
    for (const option of ['authorizeUrl', 'tokenUrl', 'userInfoUrl', 'jwksUrl', 'issuer'] as const) {
      expect(() => oidcProvider(corp({ [option]: 'http://idp.example.com/x' })), option).toThrow(
        expect.objectContaining({ ...CONFIG, message: expect.stringContaining(option) }),
      );
    }
    expect(() => oidcProvider(corp({ tokenUrl: 'not a url' }))).toThrow(expect.objectContaining(CONFIG));
    // Loopback endpoints of a provider given no issuer (a public issuer's are refused: endpoints.test.ts).
    for (const tokenUrl of [
      'http://127.0.0.1:8080/token',
      'http://localhost:8080/token',
      'http://[::1]:8080/token',
    ]) {
      expect(oidcProvider(corp({ issuer: undefined, tokenUrl })).kind).toBe('oidc');
    }
    expect(() => oidcProvider(corp({ clientSecret: '' }))).toThrow(expect.objectContaining(CONFIG));
    expect(() => githubProvider({ clientId: 'a' } as never)).toThrow(expect.objectContaining(CONFIG));
    expect(() =>
      discoverOidcProvider({ name: 'x', issuer: 'http://idp.example.com', clientId: 'a', clientSecret: 'b' }),
    ).toThrow(expect.objectContaining(CONFIG));
    expect(() => oidcProvider(corp({ scopes: ['openid email'] }))).toThrow(expect.objectContaining(CONFIG));
  });

  it('refuses unknown options of every provider', () => {
    const unknown = { code: 'OPTION_UNKNOWN' };
    expect(() => oidcProvider({ ...corp(), jwks: 'x' } as never)).toThrow(expect.objectContaining(unknown));
    expect(() =>
      discoverOidcProvider({
        name: 'x',
        issuer: 'https://a.example',
        clientId: 'a',
        clientSecret: 'b',
        authorizeUrl: 'x',
      } as never),
    ).toThrow(expect.objectContaining(unknown));
    expect(() =>
      googleProvider({ clientId: 'a', clientSecret: 'b', allowAnyEmailDomain: false } as never),
    ).toThrow(expect.objectContaining(unknown));
    expect(() => githubProvider({ clientId: 'a', clientSecret: 'b', enterprise: true } as never)).toThrow(
      expect.objectContaining(unknown),
    );
  });
});

describe('OAuthService options', () => {
  it('exposes subjectConflict, mfa and timeoutMs, with their defaults', () => {
    const plain = service([github()]);
    expect([plain.subjectConflict, plain.mfa, plain.timeoutMs]).toEqual([undefined, undefined, 10_000]);
    const set = service([github()], { subjectConflict: 'link', mfa: 'skip', timeoutMs: 2_500 });
    expect([set.subjectConflict, set.mfa, set.timeoutMs]).toEqual(['link', 'skip', 2_500]);
  });

  it('refuses bad options', () => {
    const invalid = { code: 'OPTION_INVALID' };
    expect(() => service([github()], { timeoutMs: 0 })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { timeoutMs: 1.5 })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { stateTtlMs: -1 })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { subjectConflict: 'merge' })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { mfa: 'required' })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { states: {} })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { fetch: 'no' })).toThrow(expect.objectContaining(invalid));
    expect(() => service([github()], { stateTTL: 5 })).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
    expect(() => new OAuthService({ secret: '', providers: [github()] })).toThrow(
      expect.objectContaining({ code: 'AUTH_WEAK_SECRET' }),
    );
  });

  it('refuses a timeoutMs above ten minutes and a stateTtlMs above an hour, naming the range', () => {
    expect(service([github()], { timeoutMs: 600_000 }).timeoutMs).toBe(600_000);
    expect(() => service([github()], { stateTtlMs: 3_600_000 })).not.toThrow();
    // Node would fire a timeout above 2^31 - 1 ms at once, failing every provider call.
    for (const timeoutMs of [600_001, 2 ** 31 - 1, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(() => service([github()], { timeoutMs }), String(timeoutMs)).toThrow(
        expect.objectContaining({
          code: 'OPTION_INVALID',
          message: `new OAuthService(): timeoutMs must be a whole number of milliseconds from 1 to 600000; got ${timeoutMs}.`,
        }),
      );
    }
    for (const stateTtlMs of [3_600_001, 2 ** 31, Number.MAX_SAFE_INTEGER]) {
      expect(() => service([github()], { stateTtlMs }), String(stateTtlMs)).toThrow(
        expect.objectContaining({
          code: 'OPTION_INVALID',
          message: `new OAuthService(): stateTtlMs must be a whole number of milliseconds from 1 to 3600000; got ${stateTtlMs}.`,
        }),
      );
    }
  });

  it('logs through the app logger once attached, unless it was given its own', async () => {
    const failing = custom({
      authorizationUrl: async (request) =>
        new URL(`https://custom.example.com/authorize?state=${request.state}`),
      exchange: async () => {
        throw new Error('provider down');
      },
    });
    const attached = collectingLogger();
    const own = collectingLogger();
    const oauth = service([failing]);
    const withOwn = service([failing], { logger: own });
    oauth.logTo(attached);
    withOwn.logTo(attached);
    for (const svc of [oauth, withOwn]) {
      const callbackBaseUrl = 'https://app.example.com';
      const { url, binding } = await svc.start('custom', { callbackBaseUrl });
      const state = url.searchParams.get('state') ?? undefined;
      await expect(
        svc.finish('custom', { callbackBaseUrl, state, code: 'c', binding }),
      ).rejects.toMatchObject({
        code: 'AUTH_OAUTH_EXCHANGE_FAILED',
      });
    }
    expect(attached.entries.map((entry) => entry.fields.reason)).toEqual(['Error: provider down']);
    expect(own.entries.map((entry) => entry.fields.reason)).toEqual(['Error: provider down']);
  });
});
