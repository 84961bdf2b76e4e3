// Answers that carry a token or a session are never cached (issue 16 item 9; RFC 6749 §5.1): register,
// login and refresh answer `Cache-Control: no-store` and `Pragma: no-cache`, their errors too (a login error
// says whether the password was right and whether the account is locked), and so does GET /auth/me.
import { describe, expect, it } from 'vitest';
import { ALICE, bearer, get, login, post, register, withAuth, type SignedIn } from './auth-harness.js';
import { adapters } from './harness.js';

const cachingOf = (headers: Headers) => [headers.get('cache-control'), headers.get('pragma')];
const NO_STORE = ['no-store', 'no-cache'];

describe.each(adapters)('no-store on $name', (adapter) => {
  it('marks register, login and refresh answers, successes and errors, and /auth/me', async () => {
    await withAuth(adapter, async ({ url }) => {
      const registered = await post(url, '/auth/register', ALICE);
      expect([registered.status, ...cachingOf(registered.headers)]).toEqual([201, ...NO_STORE]);
      const taken = await post(url, '/auth/register', ALICE);
      expect([taken.status, ...cachingOf(taken.headers)]).toEqual([409, ...NO_STORE]);

      const signedIn = await login(url);
      expect([signedIn.status, ...cachingOf(signedIn.headers)]).toEqual([200, ...NO_STORE]);
      const wrong = await login(url, { ...ALICE, password: 'not the password' });
      expect([wrong.status, ...cachingOf(wrong.headers)]).toEqual([401, ...NO_STORE]);

      const { refreshToken, accessToken } = signedIn.json as SignedIn;
      const refreshed = await post(url, '/auth/refresh', { refreshToken });
      expect([refreshed.status, ...cachingOf(refreshed.headers)]).toEqual([200, ...NO_STORE]);
      const reused = await post(url, '/auth/refresh', { refreshToken });
      expect([reused.status, ...cachingOf(reused.headers)]).toEqual([401, ...NO_STORE]);

      const me = await get(url, '/auth/me', bearer(accessToken));
      expect([me.status, ...cachingOf(me.headers)]).toEqual([200, ...NO_STORE]);
    });
  });

  it('leaves answers that carry no token alone', async () => {
    await withAuth(adapter, async ({ url }) => {
      await register(url);
      const forgot = await post(url, '/auth/password/forgot', { email: ALICE.email });
      expect([forgot.status, ...cachingOf(forgot.headers)]).toEqual([200, null, null]);
    });
  });
});
