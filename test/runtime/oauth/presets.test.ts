// The Google and GitHub presets, whose real endpoints tests cannot reach: an injected fetch answers as they
// do (the one edge the tests stand in for). GitHub: the code exchanged with JSON asked for, the subject the
// numeric id, the email the primary one with GitHub's `verified`, no primary email or an `error` in a 200
// reply a failed exchange. Google: discovered from accounts.google.com, its authorization URL carries the
// S256 challenge and the nonce, and its ID token is verified like any OIDC provider's.
import { createHash } from 'node:crypto';
import { exportJWK, generateKeyPair, SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { githubProvider } from '../../../runtime/auth/oauth/providers/github.js';
import { googleProvider } from '../../../runtime/auth/oauth/providers/google.js';
import { EXCHANGE_FAILED, harness, T0 } from './helpers.js';

const BASE = 'https://app.example.com';

interface Call {
  method: string;
  url: string;
  headers: Headers;
  body: string;
}

/** A fetch answering `routes` (by method and URL), recording every call; any other URL fails as offline. */
function cannedFetch(routes: Record<string, () => unknown>) {
  const calls: Call[] = [];
  const fetch = async (input: string | URL | Request, init: RequestInit = {}): Promise<Response> => {
    const url = String(input);
    const method = init.method ?? 'GET';
    calls.push({ method, url, headers: new Headers(init.headers), body: String(init.body ?? '') });
    const route = routes[`${method} ${url}`];
    if (route === undefined) throw new TypeError(`fetch failed: offline (${method} ${url})`);
    const answer = route();
    if (answer instanceof Response) return answer;
    return Response.json(answer, { headers: { 'cache-control': 'max-age=3600' } });
  };
  return { fetch: fetch as typeof globalThis.fetch, calls };
}

async function githubSignIn(
  emails: unknown,
  token: unknown = { access_token: 'gho_abc', token_type: 'bearer' },
) {
  const canned = cannedFetch({
    'POST https://github.com/login/oauth/access_token': () => token,
    'GET https://api.github.com/user': () => ({ id: 583231, login: 'octocat' }),
    'GET https://api.github.com/user/emails': () => emails,
  });
  const h = harness([githubProvider({ clientId: 'gh-id', clientSecret: 'gh-secret' })], {
    fetch: canned.fetch,
  });
  const { url, binding } = await h.service.start('github', { callbackBaseUrl: BASE });
  const state = url.searchParams.get('state') ?? undefined;
  const result = h.service.finish('github', { callbackBaseUrl: BASE, state, code: 'the-code', binding });
  return { result, url, calls: canned.calls, logger: h.logger };
}

describe('githubProvider', () => {
  it('signs in with the primary verified email and the numeric id as subject', async () => {
    const { result, url, calls } = await githubSignIn([
      { email: 'other@example.com', primary: false, verified: true },
      { email: 'Octo@GitHub.com', primary: true, verified: true },
    ]);
    await expect(result).resolves.toEqual({
      provider: 'github',
      subject: '583231',
      email: 'octo@github.com',
      emailVerified: true,
    });
    expect(`${url.origin}${url.pathname}`).toBe('https://github.com/login/oauth/authorize');
    expect(url.searchParams.get('scope')).toBe('read:user user:email');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.has('nonce')).toBe(false);
    const [token, user, emails] = calls;
    expect(token!.headers.get('accept')).toBe('application/json');
    const form = new URLSearchParams(token!.body);
    expect(Object.fromEntries(form)).toMatchObject({
      grant_type: 'authorization_code',
      code: 'the-code',
      client_id: 'gh-id',
      client_secret: 'gh-secret',
      redirect_uri: `${BASE}/auth/oauth/github/callback`,
    });
    expect(createHash('sha256').update(form.get('code_verifier')!).digest('base64url')).toBe(
      url.searchParams.get('code_challenge'),
    );
    for (const call of [user!, emails!]) {
      expect(call.headers.get('authorization')).toBe('Bearer gho_abc');
      expect(call.headers.get('user-agent')).toBeTruthy();
    }
  });

  it('answers emailVerified false for an unverified primary email', async () => {
    const { result } = await githubSignIn([{ email: 'octo@github.com', primary: true, verified: false }]);
    await expect(result).resolves.toMatchObject({ email: 'octo@github.com', emailVerified: false });
  });

  it('fails without a primary email', async () => {
    const { result, logger } = await githubSignIn([
      { email: 'octo@github.com', primary: false, verified: true },
    ]);
    await expect(result).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/primary email/);
  });

  it('fails on an error in a 200 token reply', async () => {
    const { result, logger } = await githubSignIn([], {
      error: 'bad_verification_code',
      error_description: 'x',
    });
    await expect(result).rejects.toMatchObject(EXCHANGE_FAILED);
    expect(String(logger.at('warn')[0]!.fields.reason)).toMatch(/bad_verification_code/);
  });
});

describe('googleProvider', () => {
  it('is discovered from accounts.google.com, sends the S256 challenge and the nonce, and verifies the ID token', async () => {
    const { privateKey, publicKey } = await generateKeyPair('RS256');
    const jwk = { ...(await exportJWK(publicKey)), kid: 'g1', alg: 'RS256', use: 'sig' };
    let nonce = '';
    const canned = cannedFetch({
      'GET https://accounts.google.com/.well-known/openid-configuration': () => ({
        issuer: 'https://accounts.google.com',
        authorization_endpoint: 'https://accounts.google.com/o/oauth2/v2/auth',
        token_endpoint: 'https://oauth2.googleapis.com/token',
        userinfo_endpoint: 'https://openidconnect.googleapis.com/v1/userinfo',
        jwks_uri: 'https://www.googleapis.com/oauth2/v3/certs',
        code_challenge_methods_supported: ['plain', 'S256'],
        token_endpoint_auth_methods_supported: ['client_secret_post', 'client_secret_basic'],
      }),
      'GET https://www.googleapis.com/oauth2/v3/certs': () => ({ keys: [jwk] }),
      'POST https://oauth2.googleapis.com/token': () => ({}),
    });
    const h = harness(
      [googleProvider({ clientId: 'g-id.apps.googleusercontent.com', clientSecret: 'g-secret' })],
      {
        fetch: async (input, init) => {
          if (String(input) === 'https://oauth2.googleapis.com/token') {
            await canned.fetch(input, init);
            const iat = Math.floor(T0 / 1000);
            const idToken = await new SignJWT({
              iss: 'https://accounts.google.com',
              aud: 'g-id.apps.googleusercontent.com',
              azp: 'g-id.apps.googleusercontent.com',
              sub: '10769150350006150715113082367',
              email: 'jane@gmail.com',
              email_verified: true,
              nonce,
              iat,
              exp: iat + 3600,
            })
              .setProtectedHeader({ alg: 'RS256', kid: 'g1' })
              .sign(privateKey);
            return Response.json({ access_token: 'ya29.x', id_token: idToken, token_type: 'Bearer' });
          }
          return canned.fetch(input, init);
        },
      },
    );
    const { url, binding } = await h.service.start('google', { callbackBaseUrl: BASE });
    expect(`${url.origin}${url.pathname}`).toBe('https://accounts.google.com/o/oauth2/v2/auth');
    expect(url.searchParams.get('code_challenge_method')).toBe('S256');
    expect(url.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('nonce')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(url.searchParams.get('scope')).toBe('openid email profile');
    expect(url.searchParams.get('redirect_uri')).toBe(`${BASE}/auth/oauth/google/callback`);
    nonce = url.searchParams.get('nonce')!;
    const state = url.searchParams.get('state') ?? undefined;
    await expect(
      h.service.finish('google', { callbackBaseUrl: BASE, state, code: 'c', binding }),
    ).resolves.toEqual({
      provider: 'google',
      subject: '10769150350006150715113082367',
      email: 'jane@gmail.com',
      emailVerified: true,
    });
    const token = canned.calls.find((call) => call.url === 'https://oauth2.googleapis.com/token')!;
    expect(token.headers.get('authorization')).toMatch(/^Basic /);
    expect(
      createHash('sha256').update(new URLSearchParams(token.body).get('code_verifier')!).digest('base64url'),
    ).toBe(url.searchParams.get('code_challenge'));
  });
});
