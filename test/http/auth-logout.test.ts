// POST /auth/logout signs out the client that sends it (issue 16 item 3): every session the request presents ends, the header's and the
// cookie's alike, with or without a refresh token, and the cookie is expired; a cross-site logout that only
// the cookie speaks for is refused with 403 AUTH_CSRF_REJECTED.
import { describe, expect, it } from 'vitest';
import type { AuthEventPayloads } from 'svckit';
import {
  EXPIRED_COOKIE,
  badSignature,
  bearer,
  codeOf,
  get,
  login,
  post,
  register,
  sessionFrom,
  withAuth,
} from './auth-harness.js';
import { adapters } from './harness.js';

describe.each(adapters)('logout on $name', (adapter) => {
  it('with a bearer token and the session cookie ends the cookie session too and expires the cookie', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      const cookie = { cookie: `svc_session=${alice.session}` };
      const out = await post(url, '/auth/logout', undefined, { ...bearer(alice.accessToken), ...cookie });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()).toEqual([EXPIRED_COOKIE]);
      const me = await get(url, '/auth/me', cookie);
      expect([me.status, codeOf(me.json)]).toEqual([401, 'AUTH_REQUIRED']);
    });
  });

  it('with x-session-id S1 and cookie S2 ends both sessions', async () => {
    await withAuth(adapter, async ({ url, events }) => {
      const alice = await register(url);
      const second = sessionFrom((await login(url)).headers);
      const out = await post(url, '/auth/logout', undefined, {
        'x-session-id': alice.session,
        cookie: `svc_session=${second}`,
      });
      expect(out.status).toBe(204);
      expect(out.headers.getSetCookie()).toEqual([EXPIRED_COOKIE]);
      const viaHeader = await get(url, '/auth/me', { 'x-session-id': alice.session });
      expect([viaHeader.status, codeOf(viaHeader.json)]).toEqual([401, 'AUTH_TOKEN_INVALID']);
      const viaCookie = await get(url, '/auth/me', { cookie: `svc_session=${second}` });
      expect([viaCookie.status, codeOf(viaCookie.json)]).toEqual([401, 'AUTH_REQUIRED']);
      const ended = events
        .filter((event) => event.name === 'auth:logout')
        .map((event) => event.payload as AuthEventPayloads['auth:logout']);
      expect(ended).toEqual([
        { userId: alice.user.id, kind: 'session' },
        { userId: alice.user.id, kind: 'session' },
      ]);
    });
  });

  it('with a refresh token and the cookie revokes the family and ends the session, bearer or not', async () => {
    await withAuth(adapter, async ({ url }) => {
      await register(url);
      for (const withBearer of [false, true]) {
        const signedIn = await login(url);
        const { accessToken, refreshToken } = signedIn.json as { accessToken: string; refreshToken: string };
        const cookie = { cookie: `svc_session=${sessionFrom(signedIn.headers)}` };
        const headers = withBearer ? { ...bearer(accessToken), ...cookie } : cookie;
        const out = await post(url, '/auth/logout', { refreshToken }, headers);
        expect(out.status).toBe(204);
        expect(out.headers.getSetCookie()).toEqual([EXPIRED_COOKIE]);
        const refreshed = await post(url, '/auth/refresh', { refreshToken });
        expect(codeOf(refreshed.json), `bearer: ${withBearer}`).toBe('AUTH_REFRESH_INVALID');
        const me = await get(url, '/auth/me', cookie);
        expect([me.status, codeOf(me.json)], `bearer: ${withBearer}`).toEqual([401, 'AUTH_REQUIRED']);
      }
    });
  }, 20_000);

  it('cross-site: cookie-only is refused with 403 (live, ended or unverifiable cookie); with a bearer it proceeds', async () => {
    await withAuth(adapter, async ({ url }) => {
      const alice = await register(url);
      const crossSite = { 'sec-fetch-site': 'cross-site' };
      const live = { cookie: `svc_session=${alice.session}` };
      const refused = await post(url, '/auth/logout', undefined, { ...live, ...crossSite });
      expect([refused.status, codeOf(refused.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);
      expect(refused.headers.getSetCookie()).toEqual([]);
      expect((await get(url, '/auth/me', live)).status).toBe(200);

      const ended = sessionFrom((await login(url)).headers);
      await post(url, '/auth/logout', undefined, { cookie: `svc_session=${ended}` });
      const endedCookie = await post(url, '/auth/logout', undefined, {
        cookie: `svc_session=${ended}`,
        ...crossSite,
      });
      expect([endedCookie.status, codeOf(endedCookie.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);
      const unverifiable = await post(url, '/auth/logout', undefined, {
        cookie: `svc_session=${badSignature(alice.session)}`,
        origin: 'https://evil.example',
      });
      expect([unverifiable.status, codeOf(unverifiable.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);

      // A browser does not attach a bearer token by itself: the caller asks to be signed out.
      const withBearer = await post(url, '/auth/logout', undefined, {
        ...bearer(alice.accessToken),
        ...live,
        ...crossSite,
      });
      expect(withBearer.status).toBe(204);
      expect(codeOf((await get(url, '/auth/me', live)).json)).toBe('AUTH_REQUIRED');
    });
  });
});
