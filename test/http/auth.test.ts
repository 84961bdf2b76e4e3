// The auth plugin and the account routes over HTTP on every adapter (docs/auth.md): refresh, verification and
// reset, the throttle, sessions, the credentials accepted on any request, `auth`/`mfa` meta and the errors.
import { generateKeyPairSync, createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { Auth, MemoryUserSource, securityPlugin, type AuthEventPayloads, type UserSource } from 'svckit';
import * as jose from 'jose';
import {
  ALICE,
  SECRET,
  bearer,
  codeOf,
  get,
  login,
  post,
  register,
  withAuth,
  type SignedIn,
} from './auth-harness.js';
import { adapters } from './harness.js';

describe.each(adapters)('auth on $name', (adapter) => {
  describe('register and login', () => {
    it('registers, signs in with a token pair and a session cookie, and refuses the email again in any case', async () => {
      await withAuth(adapter, async ({ url, events }) => {
        const response = await post(url, '/auth/register', ALICE);
        expect(response.status).toBe(201);
        const body = response.json as SignedIn;
        expect(body.user).toEqual({ id: expect.any(String), email: ALICE.email, emailVerified: false });
        expect(JSON.stringify(body)).not.toContain('scrypt');
        expect(body.accessToken.split('.')).toHaveLength(3);
        expect(body.refreshToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
        const cookie = response.headers.get('set-cookie') ?? '';
        expect(cookie).toMatch(/^svc_session=[^;]+; Path=\/; Max-Age=2592000; HttpOnly; SameSite=Lax$/);
        expect(events.map((event) => event.name)).toContain('auth:registered');

        const again = await post(url, '/auth/register', { ...ALICE, email: 'ALICE@EXAMPLE.COM' });
        expect([again.status, codeOf(again.json)]).toEqual([409, 'AUTH_EMAIL_TAKEN']);
        const upper = await post(url, '/auth/register', { ...ALICE, email: 'Alice@Example.com' });
        expect([upper.status, codeOf(upper.json)]).toEqual([409, 'AUTH_EMAIL_TAKEN']);
      });
    });

    it('marks the cookie Secure in production and follows sessionCookie options', async () => {
      await withAuth(
        adapter,
        async ({ url }) => {
          const response = await post(url, '/auth/register', ALICE);
          const cookie = response.headers.get('set-cookie') ?? '';
          expect(cookie).toMatch(
            /^sid=[^;]+; Path=\/app; Max-Age=2592000; HttpOnly; SameSite=Strict; Secure$/,
          );
          const id = decodeURIComponent(/^sid=([^;]*)/.exec(cookie)?.[1] ?? '');
          expect((await get(url, '/auth/me', { cookie: `sid=${id}` })).status).toBe(200);
          expect((await get(url, '/auth/me', { cookie: `svc_session=${id}` })).status).toBe(401);
        },
        {
          plugin: { nodeEnv: 'production', sessionCookie: { name: 'sid', path: '/app', sameSite: 'strict' } },
        },
      );
    });

    it('logs in ignoring the email case; a wrong password and an unknown email answer alike', async () => {
      await withAuth(adapter, async ({ url, events }) => {
        await register(url);
        const ok = await login(url, { ...ALICE, email: 'ALICE@example.com' });
        expect(ok.status).toBe(200);
        expect((ok.json as SignedIn).user.email).toBe(ALICE.email);
        expect(ok.headers.get('set-cookie')).toMatch(/^svc_session=/);
        const wrong = await login(url, { ...ALICE, password: 'not the password' });
        const unknown = await login(url, { email: 'bob@example.com', password: ALICE.password });
        expect(wrong.json).toEqual(unknown.json);
        expect([wrong.status, codeOf(wrong.json)]).toEqual([401, 'AUTH_INVALID_CREDENTIALS']);
        const failed = events.filter((event) => event.name === 'auth:login_failed');
        expect(
          failed.map((event) => (event.payload as AuthEventPayloads['auth:login_failed']).reason),
        ).toEqual(['wrong_password', 'unknown_email']);
        expect(JSON.stringify(events)).not.toContain('scrypt');
      });
    });

    it('locks the email after 5 failures in 15 minutes, even for the right password, and a success clears it', async () => {
      await withAuth(adapter, async ({ url, advance }) => {
        await register(url);
        const wrong = { ...ALICE, password: 'wrong password!' };
        for (let n = 1; n <= 3; n++) expect((await login(url, wrong)).status).toBe(401);
        expect((await login(url)).status).toBe(200); // clears the account's counter
        for (let n = 1; n <= 4; n++) expect((await login(url, wrong)).status).toBe(401);
        const fifth = await login(url, wrong);
        expect([fifth.status, codeOf(fifth.json)]).toEqual([429, 'AUTH_LOCKED']);
        const right = await login(url);
        expect([right.status, codeOf(right.json)]).toEqual([429, 'AUTH_LOCKED']);
        advance(15 * 60_000);
        expect((await login(url)).status).toBe(200);
      });
    });

    it('loginThrottle: false never locks', async () => {
      await withAuth(
        adapter,
        async ({ url }) => {
          await register(url);
          for (let n = 0; n < 7; n++)
            expect((await login(url, { ...ALICE, password: 'wrong password' })).status).toBe(401);
          expect((await login(url)).status).toBe(200);
        },
        { auth: { loginThrottle: false } },
      );
    });

    it('with a second factor: 401 AUTH_MFA_REQUIRED without a code (only for the right password), a wrong code fails, the right one adds mfa to amr', async () => {
      const secondFactor = {
        isEnabled: async () => true,
        verify: async (_userId: string, code: string) => code === '123456',
      };
      await withAuth(
        adapter,
        async ({ url }) => {
          await register(url);
          const wrongPassword = await login(url, { ...ALICE, password: 'not the password' });
          expect(codeOf(wrongPassword.json)).toBe('AUTH_INVALID_CREDENTIALS');
          const noCode = await login(url);
          expect([noCode.status, codeOf(noCode.json)]).toEqual([401, 'AUTH_MFA_REQUIRED']);
          const wrongCode = await post(url, '/auth/login', { ...ALICE, mfaCode: '000000' });
          expect([wrongCode.status, codeOf(wrongCode.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);
          const signedIn = await post(url, '/auth/login', { ...ALICE, mfaCode: '123456' });
          expect(signedIn.status).toBe(200);
          const { accessToken, refreshToken } = signedIn.json as SignedIn;
          expect(((await get(url, '/auth/me', bearer(accessToken))).json as { amr: string[] }).amr).toEqual([
            'pwd',
            'mfa',
          ]);
          expect((await post(url, '/step-up', undefined, bearer(accessToken))).status).toBe(200);
          // amr is kept across refreshes.
          const pair = (await post(url, '/auth/refresh', { refreshToken })).json as SignedIn;
          expect(
            ((await get(url, '/auth/me', bearer(pair.accessToken))).json as { amr: string[] }).amr,
          ).toEqual(['pwd', 'mfa']);
          // A missing code spends the throttle budget like a wrong password (the success above cleared it).
          for (let n = 1; n <= 4; n++) expect(codeOf((await login(url)).json)).toBe('AUTH_MFA_REQUIRED');
          const locked = await login(url);
          expect([locked.status, codeOf(locked.json)]).toEqual([429, 'AUTH_LOCKED']);
        },
        { auth: { secondFactor } },
      );
    });

    it('two accounts whose emails differ only in case make sign-in answer 500 AUTH_EMAIL_AMBIGUOUS', async () => {
      const users = new MemoryUserSource({
        users: [
          { id: '1', email: 'Twin@example.com', emailVerified: true },
          { id: '2', email: 'twin@example.com', emailVerified: true },
        ],
      });
      await withAuth(
        adapter,
        async ({ url }) => {
          const response = await login(url, { email: 'twin@example.com', password: 'whatever it is' });
          expect([response.status, codeOf(response.json)]).toEqual([500, 'AUTH_EMAIL_AMBIGUOUS']);
        },
        { auth: { users } },
      );
    });

    it('refuses bodies that do not fit the schema with HTTP_VALIDATION', async () => {
      await withAuth(adapter, async ({ url }) => {
        const short = await post(url, '/auth/register', { email: 'a@example.com', password: 'short' });
        expect([short.status, codeOf(short.json)]).toEqual([400, 'HTTP_VALIDATION']);
        const notEmail = await post(url, '/auth/register', { email: 'nope', password: 'long enough pw' });
        expect(codeOf(notEmail.json)).toBe('HTTP_VALIDATION');
      });
    });
  });

  describe('credentials on any request', () => {
    it('accepts the bearer token, the cookie and x-session-id; none stays anonymous', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const viaBearer = await get(url, '/auth/me', bearer(alice.accessToken));
        expect(viaBearer.json).toEqual({ user: alice.user, amr: ['pwd'] });
        const viaCookie = await get(url, '/auth/me', { cookie: `theme=dark; svc_session=${alice.session}` });
        expect(viaCookie.json).toEqual({ user: alice.user, amr: ['pwd'] });
        const viaHeader = await get(url, '/auth/me', { 'x-session-id': alice.session });
        expect(viaHeader.json).toEqual({ user: alice.user, amr: ['pwd'] });
        const anonymous = await get(url, '/auth/me');
        expect([anonymous.status, codeOf(anonymous.json)]).toEqual([401, 'AUTH_REQUIRED']);
        expect((await get(url, '/public')).json).toEqual({ user: null });
        const privateRoute = await get(url, '/private');
        expect(codeOf(privateRoute.json)).toBe('AUTH_REQUIRED');
      });
    });

    it('ignores a cookie with malformed percent-encoding and mk_ bearers (the API-key plugin owns those)', async () => {
      await withAuth(adapter, async ({ url }) => {
        const malformed = await get(url, '/public', { cookie: 'svc_session=%E0%A4%A' });
        expect([malformed.status, malformed.json]).toEqual([200, { user: null }]);
        const apiKey = await get(url, '/public', bearer('mk_live_abcdef'));
        expect([apiKey.status, apiKey.json]).toEqual([200, { user: null }]);
        const other = await get(url, '/public', { authorization: 'Basic dXNlcjpwYXNz' });
        expect(other.status).toBe(200);
      });
    });

    it('refuses invalid access tokens: alg none, RS256, HS512, tampered, another secret, wrong typ', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const [header, payload, signature] = alice.accessToken.split('.') as [string, string, string];
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
        const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
        const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
        const forged = [
          `${encode({ alg: 'none', typ: 'at+jwt' })}.${payload}.`,
          await new jose.SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' }).sign(privateKey),
          // An RS256 header over an HMAC made with the secret itself (the classic key-confusion forgery).
          `${encode({ alg: 'RS256', typ: 'at+jwt' })}.${payload}.${createHmac('sha256', SECRET)
            .update(`${encode({ alg: 'RS256', typ: 'at+jwt' })}.${payload}`)
            .digest('base64url')}`,
          await new jose.SignJWT(claims)
            .setProtectedHeader({ alg: 'HS512', typ: 'at+jwt' })
            .sign(new TextEncoder().encode(SECRET)),
          `${header}.${encode({ ...claims, amr: ['pwd', 'mfa'] })}.${signature}`,
          `${header}.${payload}.${signature.slice(0, -2)}AA`,
          await new jose.SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
            .sign(new TextEncoder().encode('another-secret-that-is-32-chars!!')),
          await new jose.SignJWT(claims)
            .setProtectedHeader({ alg: 'HS256', typ: 'at+jwt' })
            .sign(new TextEncoder().encode(SECRET)),
          'not-a-jwt',
        ];
        for (const token of forged) {
          // On a public route too: an explicitly invalid token is never treated as anonymous.
          const response = await get(url, '/public', bearer(token));
          expect([response.status, codeOf(response.json)], token).toEqual([401, 'AUTH_TOKEN_INVALID']);
        }
      });
    });

    it('answers AUTH_TOKEN_EXPIRED once the access token is past its 15 minutes, cached or not', async () => {
      await withAuth(adapter, async ({ url, advance }) => {
        const alice = await register(url);
        expect((await get(url, '/auth/me', bearer(alice.accessToken))).status).toBe(200);
        advance(15 * 60_000);
        const expired = await get(url, '/auth/me', bearer(alice.accessToken));
        expect([expired.status, codeOf(expired.json)]).toEqual([401, 'AUTH_TOKEN_EXPIRED']);
        const fresh = await login(url);
        advance(15 * 60_000);
        const expiredUnseen = await get(url, '/auth/me', bearer((fresh.json as SignedIn).accessToken));
        expect(codeOf(expiredUnseen.json)).toBe('AUTH_TOKEN_EXPIRED');
      });
    });

    it('refuses an x-session-id whose amr was forged, and an unknown one; such a cookie signs nobody in', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const [random, , mac] = alice.session.split('.');
        const forged = `${random}.pwd-mfa.${mac}`;
        // The cookie is sent by the browser, not presented by the caller: anonymous (auth-cookies.test.ts).
        const viaCookie = await get(url, '/public', { cookie: `svc_session=${forged}` });
        expect([viaCookie.status, viaCookie.json]).toEqual([200, { user: null }]);
        const viaHeader = await get(url, '/public', { 'x-session-id': forged });
        expect(codeOf(viaHeader.json)).toBe('AUTH_TOKEN_INVALID');
        const unknown = await new Auth({ secret: SECRET }).createSession('someone');
        expect(codeOf((await get(url, '/public', { 'x-session-id': unknown })).json)).toBe(
          'AUTH_TOKEN_INVALID',
        );
        const stepUp = await post(url, '/step-up', undefined, { cookie: `svc_session=${forged}` });
        expect([stepUp.status, codeOf(stepUp.json)]).toEqual([401, 'AUTH_REQUIRED']);
      });
    });

    it('meta.mfa: true asks for a second factor (403 AUTH_MFA_REQUIRED) from a password-only sign-in', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const response = await post(url, '/step-up', undefined, bearer(alice.accessToken));
        expect([response.status, codeOf(response.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
        expect(codeOf((await post(url, '/step-up')).json)).toBe('AUTH_REQUIRED');
      });
    });

    it('refuses unsafe cross-site requests authenticated only by the cookie; same-site and safe ones pass', async () => {
      await withAuth(
        adapter,
        async ({ url }) => {
          const alice = await register(url);
          const cookie = { cookie: `svc_session=${alice.session}` };
          const crossSite = await post(url, '/public', {}, { ...cookie, 'sec-fetch-site': 'cross-site' });
          expect([crossSite.status, codeOf(crossSite.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);
          const otherOrigin = await post(url, '/public', {}, { ...cookie, origin: 'https://evil.example' });
          expect(codeOf(otherOrigin.json)).toBe('AUTH_CSRF_REJECTED');
          const trusted = await post(url, '/public', {}, { ...cookie, origin: 'https://app.example.com' });
          expect(trusted.status).toBe(200);
          const sameSite = await post(url, '/public', {}, { ...cookie, 'sec-fetch-site': 'same-site' });
          expect((sameSite.json as { user: unknown }).user).toEqual(alice.user);
          const read = await get(url, '/public', { ...cookie, 'sec-fetch-site': 'cross-site' });
          expect(read.status).toBe(200);
          // A bearer token is not sent by browsers on their own: no CSRF rule applies to it.
          const withBearer = await post(
            url,
            '/public',
            {},
            { ...bearer(alice.accessToken), 'sec-fetch-site': 'cross-site' },
          );
          expect(withBearer.status).toBe(200);
        },
        { plugin: { trustedOrigins: ['https://app.example.com'] } },
      );
    });
  });

  describe('refresh tokens', () => {
    it('rotates: a new pair once, then the reuse revokes the whole family', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const first = await post(url, '/auth/refresh', { refreshToken: alice.refreshToken });
        expect(first.status).toBe(200);
        const pair = first.json as { accessToken: string; refreshToken: string };
        expect(Object.keys(pair).sort()).toEqual(['accessToken', 'refreshToken']);
        expect((await get(url, '/auth/me', bearer(pair.accessToken))).json).toEqual({
          user: alice.user,
          amr: ['pwd'],
        });

        const reuse = await post(url, '/auth/refresh', { refreshToken: alice.refreshToken });
        expect([reuse.status, codeOf(reuse.json)]).toEqual([401, 'AUTH_REFRESH_REUSED']);
        const successor = await post(url, '/auth/refresh', { refreshToken: pair.refreshToken });
        expect([successor.status, codeOf(successor.json)]).toEqual([401, 'AUTH_REFRESH_INVALID']);
        const unknown = await post(url, '/auth/refresh', { refreshToken: 'x'.repeat(43) });
        expect([unknown.status, codeOf(unknown.json)]).toEqual([401, 'AUTH_REFRESH_INVALID']);
        // Another sign-in is another family, untouched.
        const other = (await login(url)).json as SignedIn;
        expect((await post(url, '/auth/refresh', { refreshToken: other.refreshToken })).status).toBe(200);
      });
    });

    it('100 parallel refreshes of one token yield exactly one new pair, and the family is revoked afterwards', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const answers = await Promise.all(
          Array.from({ length: 100 }, () => post(url, '/auth/refresh', { refreshToken: alice.refreshToken })),
        );
        const winners = answers.filter((answer) => answer.status === 200);
        expect(winners).toHaveLength(1);
        expect(
          new Set(answers.filter((a) => a.status !== 200).map((a) => `${a.status} ${codeOf(a.json)}`)),
        ).toEqual(new Set(['401 AUTH_REFRESH_REUSED']));
        const pair = winners[0]?.json as { refreshToken: string };
        const after = await post(url, '/auth/refresh', { refreshToken: pair.refreshToken });
        expect([after.status, codeOf(after.json)]).toEqual([401, 'AUTH_REFRESH_INVALID']);
      });
    });

    it('stops at refreshTtl (30 days by default)', async () => {
      await withAuth(adapter, async ({ url, advance }) => {
        const alice = await register(url);
        advance(30 * 86_400_000);
        const late = await post(url, '/auth/refresh', { refreshToken: alice.refreshToken });
        expect(codeOf(late.json)).toBe('AUTH_REFRESH_INVALID');
      });
    });
  });

  describe('logout', () => {
    it('with a refresh token revokes its family', async () => {
      await withAuth(adapter, async ({ url, events }) => {
        const alice = await register(url);
        const out = await post(url, '/auth/logout', { refreshToken: alice.refreshToken });
        expect(out.status).toBe(204);
        expect(out.text).toBe('');
        expect(codeOf((await post(url, '/auth/refresh', { refreshToken: alice.refreshToken })).json)).toBe(
          'AUTH_REFRESH_INVALID',
        );
        expect(events.some((event) => event.name === 'auth:logout')).toBe(true);
      });
    });

    it('without one ends the cookie session and expires the cookie', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const cookie = { cookie: `svc_session=${alice.session}` };
        const out = await post(url, '/auth/logout', undefined, cookie);
        expect(out.status).toBe(204);
        expect(out.headers.get('set-cookie')).toMatch(
          /^svc_session=; Path=\/; Max-Age=0; HttpOnly; SameSite=Lax/,
        );
        // The ended session's cookie is ignored (anonymous), not refused, so the user can sign in again.
        expect((await get(url, '/public', cookie)).json).toEqual({ user: null });
        expect((await post(url, '/auth/login', ALICE, cookie)).status).toBe(200);
        // Refresh tokens live on: cookie logout ends the session only.
        expect((await post(url, '/auth/refresh', { refreshToken: alice.refreshToken })).status).toBe(200);
      });
    });

    it('without one ends the x-session-id session', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        expect((await post(url, '/auth/logout', undefined, { 'x-session-id': alice.session })).status).toBe(
          204,
        );
        expect(codeOf((await get(url, '/auth/me', { 'x-session-id': alice.session })).json)).toBe(
          'AUTH_TOKEN_INVALID',
        );
      });
    });

    it('refuses a cross-site cookie-only logout with 403 AUTH_CSRF_REJECTED and keeps the session', async () => {
      await withAuth(adapter, async ({ url }) => {
        const alice = await register(url);
        const cookie = { cookie: `svc_session=${alice.session}` };
        const out = await post(url, '/auth/logout', undefined, { ...cookie, 'sec-fetch-site': 'cross-site' });
        expect([out.status, codeOf(out.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);
        expect((await get(url, '/auth/me', cookie)).status).toBe(200);
      });
    });
  });

  describe('email verification', () => {
    it('always answers 200, emits the token for unverified accounts, and the token works once', async () => {
      await withAuth(adapter, async ({ url, events }) => {
        const alice = await register(url);
        const unknown = await post(url, '/auth/verify/request', { email: 'nobody@example.com' });
        expect([unknown.status, unknown.json]).toEqual([200, { ok: true }]);
        const known = await post(url, '/auth/verify/request', { email: 'ALICE@example.com' });
        expect([known.status, known.json]).toEqual([200, { ok: true }]);
        const requested = events.filter((event) => event.name === 'auth:verify_requested');
        expect(requested).toHaveLength(1);
        const payload = requested[0]?.payload as AuthEventPayloads['auth:verify_requested'];
        expect(payload.user).toEqual(alice.user);

        const verified = await post(url, '/auth/verify', { token: payload.token });
        expect([verified.status, verified.json]).toEqual([200, { ok: true }]);
        expect(((await login(url)).json as SignedIn).user.emailVerified).toBe(true);
        const again = await post(url, '/auth/verify', { token: payload.token });
        expect([again.status, codeOf(again.json)]).toEqual([400, 'AUTH_TOKEN_INVALID']);
        expect(codeOf((await post(url, '/auth/verify', { token: 'made-up' })).json)).toBe(
          'AUTH_TOKEN_INVALID',
        );
        // A verified account gets no further mails.
        await post(url, '/auth/verify/request', { email: ALICE.email });
        expect(events.filter((event) => event.name === 'auth:verify_requested')).toHaveLength(1);
        expect(events.some((event) => event.name === 'auth:email_verified')).toBe(true);
      });
    });

    it('a verification token expires after 24 hours', async () => {
      await withAuth(adapter, async ({ url, events, advance }) => {
        await register(url);
        await post(url, '/auth/verify/request', { email: ALICE.email });
        const { token } = events.find((event) => event.name === 'auth:verify_requested')
          ?.payload as AuthEventPayloads['auth:verify_requested'];
        advance(24 * 3_600_000);
        expect(codeOf((await post(url, '/auth/verify', { token })).json)).toBe('AUTH_TOKEN_INVALID');
      });
    });

    it('answers 500 AUTH_UPDATE_UNSUPPORTED when the user source cannot update, for any email', async () => {
      const memory = new MemoryUserSource();
      const readOnly: UserSource = {
        findByEmail: (email) => memory.findByEmail(email),
        findById: (id) => memory.findById(id),
        create: (user) => memory.create(user),
      };
      await withAuth(
        adapter,
        async ({ url }) => {
          await register(url);
          for (const email of [ALICE.email, 'nobody@example.com']) {
            const response = await post(url, '/auth/verify/request', { email });
            expect([response.status, codeOf(response.json)]).toEqual([500, 'AUTH_UPDATE_UNSUPPORTED']);
          }
          const reset = await post(url, '/auth/password/reset', {
            token: 'whatever',
            password: 'new password 1',
          });
          expect(codeOf(reset.json)).toBe('AUTH_UPDATE_UNSUPPORTED');
        },
        { auth: { users: readOnly } },
      );
    });
  });

  describe('password reset', () => {
    it('forgot always answers 200; reset replaces the password and revokes every session and refresh token', async () => {
      await withAuth(adapter, async ({ url, events }) => {
        const alice = await register(url);
        const second = (await login(url)).json as SignedIn;
        expect((await post(url, '/auth/password/forgot', { email: 'nobody@example.com' })).json).toEqual({
          ok: true,
        });
        const forgot = await post(url, '/auth/password/forgot', { email: ALICE.email });
        expect([forgot.status, forgot.json]).toEqual([200, { ok: true }]);
        const requested = events.filter((event) => event.name === 'auth:password_reset_requested');
        expect(requested).toHaveLength(1);
        const { token, user } = requested[0]?.payload as AuthEventPayloads['auth:password_reset_requested'];
        expect(user).toEqual(alice.user);

        const reset = await post(url, '/auth/password/reset', { token, password: 'a brand new password' });
        expect([reset.status, reset.json]).toEqual([200, { ok: true }]);
        expect(codeOf((await login(url)).json)).toBe('AUTH_INVALID_CREDENTIALS');
        expect((await login(url, { ...ALICE, password: 'a brand new password' })).status).toBe(200);
        for (const refreshToken of [alice.refreshToken, second.refreshToken]) {
          expect(codeOf((await post(url, '/auth/refresh', { refreshToken })).json)).toBe(
            'AUTH_REFRESH_INVALID',
          );
        }
        expect((await get(url, '/public', { cookie: `svc_session=${alice.session}` })).json).toEqual({
          user: null,
        });
        const again = await post(url, '/auth/password/reset', { token, password: 'yet another password' });
        expect([again.status, codeOf(again.json)]).toEqual([400, 'AUTH_TOKEN_INVALID']);
        expect(events.some((event) => event.name === 'auth:password_reset')).toBe(true);
      });
    });

    it('a reset token expires after 1 hour and is not a verification token', async () => {
      await withAuth(adapter, async ({ url, events, advance }) => {
        await register(url);
        await post(url, '/auth/password/forgot', { email: ALICE.email });
        const { token } = events.find((event) => event.name === 'auth:password_reset_requested')
          ?.payload as AuthEventPayloads['auth:password_reset_requested'];
        expect(codeOf((await post(url, '/auth/verify', { token })).json)).toBe('AUTH_TOKEN_INVALID');
        advance(3_600_000);
        const late = await post(url, '/auth/password/reset', { token, password: 'a brand new password' });
        expect([late.status, codeOf(late.json)]).toEqual([400, 'AUTH_TOKEN_INVALID']);
      });
    });
  });

  describe('rate limits', () => {
    it('with securityPlugin limiting rates, mails are limited to 5 per 15 minutes per address', async () => {
      await withAuth(
        adapter,
        async ({ url }) => {
          for (let n = 0; n < 5; n++) {
            expect((await post(url, '/auth/password/forgot', { email: `n${n}@example.com` })).status).toBe(
              200,
            );
          }
          const sixth = await post(url, '/auth/password/forgot', { email: 'n6@example.com' });
          expect([sixth.status, codeOf(sixth.json)]).toEqual([429, 'RATE_LIMITED']);
          expect(Number(sixth.headers.get('retry-after'))).toBeGreaterThan(0);
          expect((await post(url, '/auth/verify/request', { email: 'n@example.com' })).status).toBe(200);
        },
        { plugins: [securityPlugin({ rateLimit: { limit: 1000, windowMs: 60_000 } })] },
      );
    });
  });

  describe('route set', () => {
    it('omits and replaces routes one by one', async () => {
      const asked: string[] = [];
      await withAuth(
        adapter,
        async ({ url }) => {
          expect((await post(url, '/auth/register', ALICE)).status).toBe(404);
          const replaced = await post(url, '/auth/password/forgot', { email: ALICE.email });
          expect([replaced.status, replaced.json]).toEqual([200, { ok: true }]);
          expect(asked).toEqual([ALICE.email]);
          expect((await post(url, '/auth/login', ALICE)).status).toBe(401);
        },
        {
          plugin: {
            routes: {
              omit: ['register'],
              replace: {
                forgotPassword: ({ body }) => {
                  asked.push(body.email);
                  return { ok: true };
                },
              },
            },
          },
        },
      );
    });

    it('routes: false mounts none of them', async () => {
      await withAuth(
        adapter,
        async ({ url }) => expect((await post(url, '/auth/login', ALICE)).status).toBe(404),
        {
          plugin: { routes: false },
        },
      );
    });
  });
});
