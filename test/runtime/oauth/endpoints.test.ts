// Where a provider's endpoints may be, given where its issuer is. A provider whose issuer is away from this
// machine has every endpoint on https: away from it too: its discovery document naming a plain-http loopback
// endpoint (a local key-value store, say), or an https: one on this machine, is refused before any call is
// made to it, and so is an `oidcProvider` configured that way. Plain http: on loopback stays open to a
// provider whose issuer is itself on loopback (a test or development provider), or one given no issuer.
// The public issuer's document is answered by an injected fetch: no traffic leaves the process.
import { describe, expect, it } from 'vitest';
import { discoverOidcProvider, oidcProvider } from '../../../runtime/auth/oauth/providers/oidc.js';
import { EXCHANGE_FAILED, harness } from './helpers.js';

const ISSUER = 'https://idp.example.com';
const BASE = 'https://app.example.com';
const CONFIG = { code: 'AUTH_OAUTH_PROVIDER_CONFIG' };

const FIELDS = ['authorization_endpoint', 'token_endpoint', 'jwks_uri', 'userinfo_endpoint'] as const;
/** Endpoints on this machine, in the spellings a document could use. */
const LOCAL = [
  'http://127.0.0.1:8500/v1/kv/secret',
  'http://localhost:2379/v2/keys',
  'http://[::1]:6379/',
  'http://127.8.9.10/x',
  'https://127.0.0.1/token',
  'https://localhost/token',
  'https://localhost./token',
  'https://metadata.localhost/token',
  'https://0.0.0.0/token',
  'https://[::ffff:127.0.0.1]/token',
  'https://[::]/token',
];

function document(overrides: Record<string, unknown> = {}) {
  return {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/authorize`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/jwks`,
    userinfo_endpoint: `${ISSUER}/userinfo`,
    code_challenge_methods_supported: ['S256'],
    ...overrides,
  };
}

/** A service with one provider discovered from ISSUER, whose document the fetch answers from memory. */
function discovered(doc: Record<string, unknown>) {
  const calls: string[] = [];
  const fetch = (async (input: string | URL | Request) => {
    const url = String(input);
    calls.push(url);
    if (url !== `${ISSUER}/.well-known/openid-configuration`) {
      throw new TypeError(`fetch failed: offline (${url})`);
    }
    return Response.json(doc);
  }) as typeof globalThis.fetch;
  const provider = discoverOidcProvider({
    name: 'corp',
    issuer: ISSUER,
    clientId: 'id',
    clientSecret: 'secret',
  });
  return { ...harness([provider], { fetch }), calls };
}

describe('endpoints of a provider whose issuer is away from this machine', () => {
  it('uses a discovered document whose endpoints are all https: away from this machine', async () => {
    const { service } = discovered(document());
    const { url } = await service.start('corp', { callbackBaseUrl: BASE });
    expect(`${url.origin}${url.pathname}`).toBe(`${ISSUER}/authorize`);
  });

  it('refuses a discovered document naming an endpoint on this machine, calling nothing there', async () => {
    for (const field of FIELDS) {
      for (const local of LOCAL) {
        const { service, logger, calls } = discovered(document({ [field]: local }));
        await expect(
          service.start('corp', { callbackBaseUrl: BASE }),
          `${field} ${local}`,
        ).rejects.toMatchObject(EXCHANGE_FAILED);
        const reason = String(logger.at('warn')[0]!.fields.reason);
        expect(reason, `${field} ${local}`).toContain(field);
        expect(reason).toContain('away from this machine');
        expect(calls).toEqual([`${ISSUER}/.well-known/openid-configuration`]);
      }
    }
  });

  it('refuses an oidcProvider with an issuer away from this machine and an endpoint on it', () => {
    const options = {
      name: 'corp',
      clientId: 'id',
      clientSecret: 'secret',
      authorizeUrl: `${ISSUER}/authorize`,
      tokenUrl: `${ISSUER}/token`,
      userInfoUrl: `${ISSUER}/userinfo`,
      jwksUrl: `${ISSUER}/jwks`,
      issuer: ISSUER,
    };
    expect(oidcProvider(options).kind).toBe('oidc');
    for (const option of ['authorizeUrl', 'tokenUrl', 'userInfoUrl', 'jwksUrl'] as const) {
      for (const local of LOCAL) {
        expect(() => oidcProvider({ ...options, [option]: local }), `${option} ${local}`).toThrow(
          expect.objectContaining({ ...CONFIG, message: expect.stringContaining(`${option} must be`) }),
        );
      }
      // Without an issuer, or with one on loopback, a loopback endpoint is a development set-up.
      const local = 'http://127.0.0.1:8080/x';
      expect(oidcProvider({ ...options, issuer: undefined, [option]: local }).kind).toBe('oidc');
      expect(oidcProvider({ ...options, issuer: 'http://127.0.0.1:8080', [option]: local }).kind).toBe(
        'oidc',
      );
      expect(oidcProvider({ ...options, issuer: 'https://localhost:8443', [option]: local }).kind).toBe(
        'oidc',
      );
    }
  });
});
