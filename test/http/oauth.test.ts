// Sign-in with an OpenID provider over HTTP on every adapter, against the real `oidc-provider` on loopback:
// a new account, the link followed after an email change, a second identity asserting a linked account's
// email (409), an unverified email meeting an account (403), adoption of an account that never verified its
// email (its password, sessions and refresh tokens revoked), the second factor of an MFA account (ticket,
// code) and `mfa: 'skip'`, a replayed state and a state from another browser (400), ID tokens with a wrong
// nonce, audience or issuer or expired (502, through a loopback stand-in that re-signs what the provider
// issued), an email domain not allowed (502 before any account lookup), the boot refusal of several providers
// without domain rules, the link routes and `successRedirect`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Secret, TOTP } from 'otpauth';
import { randomBytes } from 'node:crypto';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Auth,
  authPlugin,
  createApp,
  discoverOidcProvider,
  githubProvider,
  MemoryUserSource,
  OAuthService,
  oauthPlugin,
  route,
  type AuthOptions,
  type AuthUser,
  type OAuthPluginOptions,
  type OAuthServiceOptions,
} from 'svckit';
import { collectingLogger } from '../../runtime/log/collecting-logger.js';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { startOidcProvider, type OidcTestProvider } from '../helpers/oidc-provider.js';
import { FAST_HASH, SECRET, bearer, codeOf, get, post, thrown } from './auth-harness.js';
import { adapters, call, type AdapterUnderTest } from './harness.js';

let oidc: OidcTestProvider;
beforeAll(async () => {
  oidc = await startOidcProvider();
});
afterAll(async () => {
  await oidc.close();
});

/** A user source that counts lookups: a refused domain must not reach it. */
class CountingUsers extends MemoryUserSource {
  lookups = 0;
  override async findByEmail(email: string): Promise<AuthUser | null> {
    this.lookups++;
    return super.findByEmail(email);
  }
  override async findById(id: string): Promise<AuthUser | null> {
    this.lookups++;
    return super.findById(id);
  }
}

interface OAuthServer {
  url: string;
  auth: Auth;
  users: CountingUsers;
  close(): Promise<void>;
}

interface ServerOptions {
  service?: Partial<OAuthServiceOptions>;
  plugin?: Partial<OAuthPluginOptions>;
  auth?: Partial<AuthOptions>;
  /** The issuer the service discovers (a stand-in in front of the provider); default the provider. */
  issuer?: string;
  allowedEmailDomains?: string[];
}

let clients = 0;
let accounts = 0;

/** A fresh identity at the provider. */
function account(email: string, emailVerified = true): { sub: string; email: string } {
  const sub = `person-${++accounts}`;
  oidc.setAccount({ sub, email, emailVerified });
  return { sub, email };
}

const routes = [
  route({
    method: 'GET',
    url: '/private',
    meta: { auth: true },
    handler: ({ context }) => ({ amr: context.amr }),
  }),
];

async function startServer(adapter: AdapterUnderTest, options: ServerOptions = {}): Promise<OAuthServer> {
  const clientId = `client-${++clients}`;
  const clientSecret = randomBytes(16).toString('hex');
  const users = new CountingUsers();
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users, ...options.auth });
  const service = new OAuthService({
    secret: SECRET,
    providers: [
      discoverOidcProvider({
        name: 'oidc',
        issuer: options.issuer ?? oidc.issuer,
        clientId,
        clientSecret,
        ...(options.allowedEmailDomains === undefined
          ? {}
          : { allowedEmailDomains: options.allowedEmailDomains }),
      }),
      ...(options.allowedEmailDomains === undefined
        ? []
        : [githubProvider({ clientId: 'unused', clientSecret: 'unused' })]),
    ],
    ...options.service,
  });
  const server = await adapter.start({
    routes,
    plugins: [authPlugin({ auth }), oauthPlugin({ auth, service, ...options.plugin })],
  });
  oidc.addClient({ clientId, clientSecret, redirectUris: [`${server.url}/auth/oauth/oidc/callback`] });
  return { url: server.url, auth, users, close: () => server.close() };
}

async function withOAuth(
  adapter: AdapterUnderTest,
  options: ServerOptions,
  body: (server: OAuthServer) => Promise<void>,
): Promise<void> {
  const server = await startServer(adapter, options);
  try {
    await body(server);
  } finally {
    await server.close();
  }
}

/** GET /auth/oauth/oidc as a browser: the provider URL it is sent to, and the binding cookie it got. */
async function start(url: string): Promise<{ location: URL; cookie: string }> {
  const response = await fetch(`${url}/auth/oauth/oidc`, { redirect: 'manual' });
  expect(response.status).toBe(302);
  expect(response.headers.get('cache-control')).toBe('no-store');
  const line = response.headers.getSetCookie().find((set) => set.startsWith('svc_oauth='));
  expect(line).toMatch(/HttpOnly/);
  expect(line).toMatch(/SameSite=Lax/);
  return {
    location: new URL(response.headers.get('location') as string),
    cookie: (line as string).split(';')[0] as string,
  };
}

async function returnTo(back: URL, cookie: string | undefined) {
  return call(back.href, { redirect: 'manual', headers: cookie === undefined ? {} : { cookie } });
}

/** A whole sign-in by `sub` in one browser; the callback's answer. */
async function signInAs(url: string, sub: string) {
  const { location, cookie } = await start(url);
  return returnTo(await oidc.signIn(location, sub), cookie);
}

interface SignedInBody {
  user: { id: string; email: string; emailVerified: boolean };
  accessToken: string;
  refreshToken: string;
}

/**
 * A loopback stand-in for the provider that changes the ID token it issued: its discovery names itself as the
 * issuer, its token endpoint forwards to the provider and re-signs the ID token with its own key after
 * `change` (the untouched version proves the stand-in works; a changed one is what a forging provider sends).
 */
async function tamperingIssuer(
  change: (claims: JWTPayload) => void,
): Promise<{ issuer: string; close(): Promise<void> }> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk = { ...(await exportJWK(publicKey)), kid: 'stand-in', alg: 'RS256', use: 'sig' };
  let issuer = '';
  const server: Server = createServer((request, response) => {
    void (async () => {
      const chunks: Buffer[] = [];
      for await (const chunk of request) chunks.push(chunk as Buffer);
      const json = (value: unknown) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify(value));
      };
      if (request.url === '/.well-known/openid-configuration') {
        const real = (await (
          await fetch(`${oidc.issuer}/.well-known/openid-configuration`)
        ).json()) as object;
        return json({ ...real, issuer, token_endpoint: `${issuer}/token`, jwks_uri: `${issuer}/jwks` });
      }
      if (request.url === '/jwks') return json({ keys: [jwk] });
      const real = (await (await fetch(`${oidc.issuer}/.well-known/openid-configuration`)).json()) as {
        token_endpoint: string;
      };
      const forwarded = await fetch(real.token_endpoint, {
        method: 'POST',
        headers: {
          'content-type': request.headers['content-type'] ?? '',
          ...(request.headers.authorization === undefined
            ? {}
            : { authorization: request.headers.authorization }),
        },
        body: Buffer.concat(chunks),
      });
      const tokens = (await forwarded.json()) as { id_token?: string };
      if (tokens.id_token === undefined) return json(tokens);
      const claims = { ...decodeJwt(tokens.id_token), iss: issuer };
      change(claims);
      const idToken = await new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: 'stand-in' })
        .sign(privateKey);
      return json({ ...tokens, id_token: idToken });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** The second factor's clock: each code is read one 30-second step later, as a code is used once. */
let mfaNow = Date.now();

function mfaService(users: MemoryUserSource): MfaService {
  return new MfaService({
    store: new MemoryMfaStore(),
    box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
    issuer: 'test',
    users,
    clock: () => mfaNow,
  });
}

function totp(secret: string): string {
  mfaNow += 30_000;
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: mfaNow,
  });
}

describe.each(adapters)('sign-in with an OpenID provider on $name', (adapter) => {
  it('creates a passwordless account with the provider-verified email, signs it in and sets the session', async () => {
    await withOAuth(adapter, {}, async ({ url, auth }) => {
      const person = account(`new-${adapter.name}@example.com`);
      const answer = await signInAs(url, person.sub);
      expect(answer.status, answer.text).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const body = answer.json as SignedInBody;
      expect(body.user).toMatchObject({ email: person.email, emailVerified: true });
      expect(answer.headers.getSetCookie().some((line) => line.startsWith('svc_session='))).toBe(true);
      const me = await get(url, '/private', bearer(body.accessToken));
      expect(me.status).toBe(200);
      expect(me.json).toEqual({ amr: ['fed'] });
      // Passwordless: no password signs it in.
      expect((await auth.users.findById(body.user.id))?.passwordHash).toBeUndefined();
      const links = await get(url, '/auth/links', bearer(body.accessToken));
      expect(links.json).toEqual({
        links: [{ provider: 'oidc', subject: person.sub, createdAt: expect.any(Number) }],
      });
    });
  });

  it('follows the link on a later sign-in after the email changed at the provider', async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      const person = account(`dave-${adapter.name}@example.com`);
      const first = (await signInAs(url, person.sub)).json as SignedInBody;
      oidc.setAccount({
        sub: person.sub,
        email: `dave.new-${adapter.name}@example.com`,
        emailVerified: true,
      });
      const second = await signInAs(url, person.sub);
      expect(second.status, second.text).toBe(200);
      expect((second.json as SignedInBody).user).toEqual(first.user);
    });
  });

  it("answers 409 when another identity asserts a linked account's email", async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      const email = `eve-${adapter.name}@example.com`;
      expect((await signInAs(url, account(email).sub)).status).toBe(200);
      const other = await signInAs(url, account(email).sub);
      expect(other.status).toBe(409);
      expect(codeOf(other.json)).toBe('AUTH_ACCOUNT_LINK_CONFLICT');
      expect(other.headers.getSetCookie().some((line) => line.startsWith('svc_session='))).toBe(false);
    });
  });

  it('refuses to link an existing account by an email the provider did not verify (403, nothing changes)', async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      const email = `frank-${adapter.name}@example.com`;
      const registered = await post(url, '/auth/register', { email, password: 'frank password 1' });
      expect(registered.status).toBe(201);
      const answer = await signInAs(url, account(email, false).sub);
      expect(answer.status).toBe(403);
      expect(codeOf(answer.json)).toBe('AUTH_SOCIAL_LINK_REFUSED');
      expect((await post(url, '/auth/login', { email, password: 'frank password 1' })).status).toBe(200);
    });
  });

  it("adopts an account that never verified its email only after revoking the old holder's ways in", async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      const email = `carol-${adapter.name}@example.com`;
      const planted = await post(url, '/auth/register', { email, password: 'planted password' });
      const old = planted.json as SignedInBody;
      const oldSession = planted.headers.getSetCookie()[0]?.split(';')[0] as string;
      expect((await get(url, '/private', { cookie: oldSession })).status).toBe(200);

      const answer = await signInAs(url, account(email).sub);
      expect(answer.status, answer.text).toBe(200);
      expect((answer.json as SignedInBody).user).toEqual({ id: old.user.id, email, emailVerified: true });
      expect((await post(url, '/auth/login', { email, password: 'planted password' })).status).toBe(401);
      expect((await post(url, '/auth/refresh', { refreshToken: old.refreshToken })).status).toBe(401);
      expect((await get(url, '/private', { cookie: oldSession })).status).toBe(401);
    });
  });

  it("asks an MFA account for its code with a single-use ticket, and mfa: 'skip' does not", async () => {
    const users = new MemoryUserSource();
    const mfa = mfaService(users);
    await withOAuth(adapter, { auth: { users, mfa } }, async ({ url, auth }) => {
      const person = account(`mia-${adapter.name}@example.com`);
      const first = (await signInAs(url, person.sub)).json as SignedInBody;
      const { secret } = await auth.enrollMfa(first.user.id, ['fed']);
      await auth.activateMfa(first.user.id, totp(secret));

      const asked = await signInAs(url, person.sub);
      expect(asked.status).toBe(401);
      expect(codeOf(asked.json)).toBe('AUTH_MFA_REQUIRED');
      expect(asked.headers.getSetCookie().some((line) => line.startsWith('svc_session='))).toBe(false);
      const ticket = (asked.json as { error: { details: { mfaTicket: string } } }).error.details.mfaTicket;
      expect(ticket).toMatch(/^[A-Za-z0-9_-]{43}$/);

      const done = await post(url, '/auth/oauth/mfa', { ticket, mfaCode: totp(secret) });
      expect(done.status, done.text).toBe(200);
      const me = await get(url, '/private', bearer((done.json as SignedInBody).accessToken));
      expect(me.json).toEqual({ amr: ['fed', 'mfa'] });
      const again = await post(url, '/auth/oauth/mfa', { ticket, mfaCode: totp(secret) });
      expect(again.status).toBe(400);
      expect(codeOf(again.json)).toBe('AUTH_OAUTH_STATE_INVALID');
    });
    await withOAuth(adapter, { auth: { users, mfa }, service: { mfa: 'skip' } }, async ({ url }) => {
      const person = account(`sam-${adapter.name}@example.com`);
      const first = (await signInAs(url, person.sub)).json as SignedInBody;
      const enrolled = await mfa.enroll(first.user.id);
      await mfa.activate(first.user.id, totp(enrolled.secret));
      const answer = await signInAs(url, person.sub);
      expect(answer.status, answer.text).toBe(200);
      expect((await get(url, '/private', bearer((answer.json as SignedInBody).accessToken))).json).toEqual({
        amr: ['fed'],
      });
    });
  });

  it('refuses a replayed state and a state returned to another browser (400), without spending it', async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      const person = account(`rex-${adapter.name}@example.com`);
      const mine = await start(url);
      const back = await oidc.signIn(mine.location, person.sub);
      // Another browser (its own binding cookie), or none: the state is not theirs.
      const theirs = await start(url);
      for (const cookie of [
        theirs.cookie,
        undefined,
        'svc_oauth=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
      ]) {
        const refused = await returnTo(back, cookie);
        expect(refused.status).toBe(400);
        expect(codeOf(refused.json)).toBe('AUTH_OAUTH_STATE_INVALID');
      }
      // Login CSRF by cookie tossing: a sibling subdomain plants the attacker's binding in the victim's
      // browser, ahead of the victim's own, and sends it to the attacker's callback URL. Refused however
      // many copies it plants.
      const attackerBack = await oidc.signIn(
        theirs.location,
        account(`mallory-${adapter.name}@example.com`).sub,
      );
      for (const copies of [1, 4]) {
        const planted = Array.from({ length: copies }, () => theirs.cookie).join('; ');
        const tossed = await returnTo(attackerBack, `${planted}; ${mine.cookie}`);
        expect(tossed.status).toBe(400);
        expect(codeOf(tossed.json)).toBe('AUTH_OAUTH_STATE_INVALID');
      }
      // The browser that started it still finishes it; once.
      expect((await returnTo(back, mine.cookie)).status).toBe(200);
      const replay = await returnTo(back, mine.cookie);
      expect(replay.status).toBe(400);
      expect(codeOf(replay.json)).toBe('AUTH_OAUTH_STATE_INVALID');
    });
  });

  it('answers 404 for a provider it does not have', async () => {
    await withOAuth(adapter, {}, async ({ url }) => {
      for (const path of ['/auth/oauth/nope', '/auth/oauth/nope/callback?state=x&code=y']) {
        const answer = await call(`${url}${path}`, { redirect: 'manual' });
        expect(answer.status).toBe(404);
        expect(codeOf(answer.json)).toBe('AUTH_OAUTH_UNKNOWN_PROVIDER');
      }
    });
  });

  it.each([
    ['untouched', (): void => {}, 200, /^$/],
    [
      'another nonce',
      (claims: JWTPayload): void => {
        claims.nonce = 'not-the-one-sent';
      },
      502,
      /nonce/,
    ],
    [
      'another audience',
      (claims: JWTPayload): void => {
        claims.aud = 'someone-else';
      },
      502,
      /aud/,
    ],
    [
      'another issuer',
      (claims: JWTPayload): void => {
        claims.iss = 'http://127.0.0.1:9';
      },
      502,
      /iss/,
    ],
    [
      'expired',
      (claims: JWTPayload): void => {
        claims.iat = Math.floor(Date.now() / 1000) - 7200;
        claims.exp = Math.floor(Date.now() / 1000) - 3600;
      },
      502,
      /exp/,
    ],
  ] as const)('ID token %s', async (_name, change, status, reason) => {
    const standIn = await tamperingIssuer(change);
    const logger = collectingLogger();
    try {
      await withOAuth(adapter, { issuer: standIn.issuer, service: { logger } }, async ({ url, users }) => {
        const answer = await signInAs(url, account(`tina-${adapter.name}-${accounts}@example.com`).sub);
        expect(answer.status, answer.text).toBe(status);
        if (status === 502) {
          expect(codeOf(answer.json)).toBe('AUTH_OAUTH_EXCHANGE_FAILED');
          expect(answer.text).not.toMatch(/nonce|aud|iss|exp/i);
          expect(users.lookups).toBe(0);
          // The detail goes to the log only.
          const [line] = logger.at('warn');
          expect(String(line?.fields?.reason)).toMatch(reason);
        }
      });
    } finally {
      await standIn.close();
    }
  });

  it('refuses an email domain the provider is not allowed (502) before looking any account up', async () => {
    const logger = collectingLogger();
    await withOAuth(
      adapter,
      { allowedEmailDomains: ['example.org'], service: { logger } },
      async ({ url, users }) => {
        const refused = await signInAs(url, account(`olga-${adapter.name}@example.com`).sub);
        expect(refused.status).toBe(502);
        expect(codeOf(refused.json)).toBe('AUTH_OAUTH_EXCHANGE_FAILED');
        expect(users.lookups).toBe(0);
        const allowed = await signInAs(url, account(`olga-${adapter.name}@EXAMPLE.org`).sub);
        expect(allowed.status, allowed.text).toBe(200);
      },
    );
  });

  it('lets a user unlink an identity, but never the last way to sign in, nor another user’s', async () => {
    await withOAuth(adapter, {}, async ({ url, auth }) => {
      const lone = (await signInAs(url, account(`lone-${adapter.name}@example.com`).sub))
        .json as SignedInBody;
      const [link] = (await auth.listAccountLinks(lone.user.id)) as { provider: string; subject: string }[];
      const path = `/auth/links/oidc/${encodeURIComponent(link?.subject as string)}`;
      const last = await call(`${url}${path}`, { method: 'DELETE', headers: bearer(lone.accessToken) });
      expect(last.status).toBe(409);
      expect(codeOf(last.json)).toBe('AUTH_LAST_SIGN_IN_METHOD');

      const email = `pat-${adapter.name}@example.com`;
      const registered = (await post(url, '/auth/register', { email, password: 'pat password 12' }))
        .json as SignedInBody;
      await auth.users.update?.(registered.user.id, { emailVerified: true });
      const linked = await signInAs(url, account(email).sub);
      expect((linked.json as SignedInBody).user.id).toBe(registered.user.id);
      const foreign = await call(`${url}${path}`, {
        method: 'DELETE',
        headers: bearer(registered.accessToken),
      });
      expect(foreign.status).toBe(404);
      expect(codeOf(foreign.json)).toBe('AUTH_ACCOUNT_LINK_NOT_FOUND');
      const [own] = (await auth.listAccountLinks(registered.user.id)) as { subject: string }[];
      const removed = await call(`${url}/auth/links/oidc/${encodeURIComponent(own?.subject as string)}`, {
        method: 'DELETE',
        headers: bearer(registered.accessToken),
      });
      expect(removed.status).toBe(204);
      expect((await get(url, '/auth/links', bearer(registered.accessToken))).json).toEqual({ links: [] });
    });
  });

  it('with successRedirect sends the browser back with the tokens, or the failure, in the fragment', async () => {
    const target = 'https://app.example.com/signed-in';
    await withOAuth(adapter, { plugin: { successRedirect: target } }, async ({ url }) => {
      const person = account(`rita-${adapter.name}@example.com`);
      const { location, cookie } = await start(url);
      const back = await oidc.signIn(location, person.sub);
      const answer = await returnTo(back, cookie);
      expect(answer.status).toBe(302);
      expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
      const landed = new URL(answer.headers.get('location') as string);
      expect(`${landed.origin}${landed.pathname}`).toBe(target);
      expect(landed.search).toBe('');
      const fragment = new URLSearchParams(landed.hash.slice(1));
      const me = await get(url, '/private', bearer(fragment.get('accessToken') as string));
      expect(me.status).toBe(200);
      const replay = await returnTo(back, cookie);
      expect(replay.status).toBe(302);
      expect(new URL(replay.headers.get('location') as string).hash).toBe('#error=AUTH_OAUTH_STATE_INVALID');
    });
  });
});

describe('provider configuration', () => {
  it('refuses a callbackBaseUrl that is no base URL, and a binding cookie open to subdomains when Secure', () => {
    const auth = new Auth({ secret: SECRET });
    const service = new OAuthService({ secret: SECRET, providers: [] });
    for (const callbackBaseUrl of [
      'https://api.example.com/auth/oauth/corp/callback',
      'https://api.example.com/?x=1',
      'https://user:pw@api.example.com',
      'api.example.com',
    ]) {
      expect(thrown(() => oauthPlugin({ auth, service, callbackBaseUrl })).code).toBe('OPTION_INVALID');
    }
    const app = createApp({ name: 'secure' });
    app.register(authPlugin({ auth, nodeEnv: 'production' }));
    app.register(oauthPlugin({ auth, service, bindingCookie: 'oauth_binding' }));
    return expect(app.boot()).rejects.toThrow(/__Host-/);
  });

  it('refuses several providers when an OIDC one has no email-domain rule (AUTH_OAUTH_PROVIDER_CONFIG)', () => {
    const refusal = thrown(
      () =>
        new OAuthService({
          secret: SECRET,
          providers: [
            discoverOidcProvider({ name: 'corp', issuer: oidc.issuer, clientId: 'a', clientSecret: 'b' }),
            githubProvider({ clientId: 'c', clientSecret: 'd' }),
          ],
        }),
    );
    expect(refusal.code).toBe('AUTH_OAUTH_PROVIDER_CONFIG');
    expect(refusal.message).toMatch(/corp/);
  });
});
