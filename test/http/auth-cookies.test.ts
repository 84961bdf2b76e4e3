// A session cookie that does not verify never locks a browser out (issue 16 item 4): the browser sends the cookie, the caller does not present it, so the request is
// anonymous and the answer expires the cookie, on every route, the neutral 404 included. An invalid bearer
// token or x-session-id is presented on purpose and still answers 401.
import { describe, expect, it } from 'vitest';
import { Auth } from 'svckit';
import {
  ALICE,
  EXPIRED_COOKIE,
  badSignature,
  bearer,
  codeOf,
  get,
  post,
  register,
  sessionFrom,
  withAuth,
} from './auth-harness.js';
import { adapters } from './harness.js';

/** Another deployment's secret: its cookies are well formed and signed, but not by us. */
const OTHER_SECRET = 'another-secret-of-at-least-32-chars!';

/** Cookies a browser may hold that no request can be signed in with. */
async function unverifiableCookies(session: string): Promise<Record<string, string>> {
  return {
    'bad signature': badSignature(session),
    'signed by another secret': await new Auth({ secret: OTHER_SECRET, nodeEnv: 'test' }).createSession(
      'someone',
    ),
    'not a session id': 'garbage',
    'malformed percent-encoding': '%E0%A4%A',
  };
}

describe.each(adapters)('unverifiable session cookies on $name', (adapter) => {
  it('leave every account route anonymous and are expired in the answer', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      for (const [kind, value] of Object.entries(await unverifiableCookies(alice.session))) {
        const cookie = { cookie: `theme=dark; svc_session=${value}` };
        const fresh = await post(url, '/auth/login', ALICE, cookie);
        expect(fresh.status, kind).toBe(200);
        // The new session's cookie replaces the expiry: one line, setting the cookie.
        const lines = fresh.headers.getSetCookie();
        expect(lines, kind).toHaveLength(1);
        expect(sessionFrom(fresh.headers), kind).not.toBe('');

        const account = { email: `${kind.replaceAll(' ', '-')}@example.com`, password: ALICE.password };
        const registered = await post(url, '/auth/register', account, cookie);
        expect([registered.status, registered.headers.getSetCookie().length], kind).toEqual([201, 1]);
        expect(registered.headers.get('set-cookie'), kind).toMatch(/^svc_session=[^;]+; Path=\/; Max-Age=/);

        for (const answer of [
          await post(url, '/auth/password/forgot', { email: ALICE.email }, cookie),
          await post(url, '/auth/logout', undefined, cookie),
          await get(url, '/auth/me', cookie),
          await get(url, '/public', cookie),
          await post(url, '/public', {}, cookie),
        ]) {
          expect(answer.headers.getSetCookie(), kind).toEqual([EXPIRED_COOKIE]);
          expect(answer.status, kind).not.toBe(500);
        }
        const me = await get(url, '/auth/me', cookie);
        expect([me.status, codeOf(me.json)], kind).toEqual([401, 'AUTH_REQUIRED']);
        expect((await get(url, '/public', cookie)).json, kind).toEqual({ user: null });
        const forgot = await post(url, '/auth/password/forgot', { email: ALICE.email }, cookie);
        expect([forgot.status, forgot.json], kind).toEqual([200, { ok: true }]);
        expect((await post(url, '/auth/logout', undefined, cookie)).status, kind).toBe(204);
      }
    });
  }, 30_000);

  it('are expired on the neutral 404 and 405 too', async () => {
    await withAuth(adapter, async ({ url }) => {
      const cookie = { cookie: `svc_session=${badSignature((await register(url)).session)}` };
      const missing = await get(url, '/nowhere', cookie);
      expect([missing.status, missing.headers.getSetCookie()]).toEqual([404, [EXPIRED_COOKIE]]);
      // A method /auth/me does not take: the neutral 405.
      const wrongMethod = await fetch(`${url}/auth/me`, { method: 'DELETE', headers: cookie });
      expect([wrongMethod.status, wrongMethod.headers.getSetCookie()]).toEqual([405, [EXPIRED_COOKIE]]);
    });
  });

  it('beside a valid cookie of the same name (tossed from a sibling domain) do not hide it or expire it', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      const header = { cookie: `svc_session=${badSignature(alice.session)}; svc_session=${alice.session}` };
      const me = await get(url, '/auth/me', header);
      expect([me.status, me.headers.getSetCookie()]).toEqual([200, []]);
      expect((me.json as { user: unknown }).user).toEqual(alice.user);
    });
  });

  it('an invalid x-session-id or bearer token still answers 401, beside any cookie', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      const cookie = { cookie: `svc_session=${alice.session}` };
      for (const headers of [
        { 'x-session-id': badSignature(alice.session) },
        { 'x-session-id': badSignature(alice.session), ...cookie },
        bearer(`${alice.accessToken.slice(0, -3)}AAA`),
        { ...bearer('not-a-jwt'), ...cookie },
      ]) {
        for (const path of ['/auth/login', '/auth/logout', '/public']) {
          const answer = await post(url, path, path === '/auth/login' ? ALICE : undefined, headers);
          expect([answer.status, codeOf(answer.json)], path).toEqual([401, 'AUTH_TOKEN_INVALID']);
        }
      }
    });
  });

  it('a signed cookie of a session that ended is anonymous and kept (a store miss is not proof)', async () => {
    await withAuth(adapter, async ({ url, auth }) => {
      const alice = await register(url);
      await auth.logout(alice.session);
      const cookie = { cookie: `svc_session=${alice.session}` };
      const me = await get(url, '/auth/me', cookie);
      expect([me.status, codeOf(me.json), me.headers.getSetCookie()]).toEqual([401, 'AUTH_REQUIRED', []]);
      expect((await post(url, '/auth/login', ALICE, cookie)).status).toBe(200);
    });
  });
});
