// Pins of the account-route rules (issue 16 item 12): every
// route of authRoutes() carries ACCOUNT_META, and a sign-in emits `auth:login` with its payload only when it
// succeeds. Also: the plugin's options objects refuse keys they do not know.
import { describe, expect, it } from 'vitest';
import {
  ACCOUNT_META,
  Auth,
  authPlugin,
  authRoutes,
  sessionCookie,
  type AuthEventPayloads,
  type AuthPluginOptions,
} from 'svckit';
import { ALICE, SECRET, login, register, withAuth } from './auth-harness.js';
import { adapters } from './harness.js';

describe('authRoutes()', () => {
  it('gives every route ACCOUNT_META: account true, mfa false', () => {
    const auth = new Auth({ secret: SECRET, nodeEnv: 'test' });
    const routes = authRoutes(auth, { cookie: sessionCookie({}, false), trustedOrigins: new Set() });
    expect(ACCOUNT_META).toEqual({ account: true, mfa: false });
    expect(routes.map((route) => route.id).sort()).toEqual([
      'forgotPassword',
      'login',
      'logout',
      'me',
      'refresh',
      'register',
      'requestVerification',
      'resetPassword',
      'verifyEmail',
    ]);
    for (const route of routes) expect(route.meta, route.id).toMatchObject(ACCOUNT_META);
  });
});

describe('authPlugin() options', () => {
  it('refuses unknown keys of its options, of sessionCookie and of routes, naming the key', () => {
    const auth = new Auth({ secret: SECRET, nodeEnv: 'test' });
    const unknown = (options: object) => () => authPlugin({ auth, ...options } as AuthPluginOptions);
    expect(unknown({ sessionCookies: {} })).toThrow(
      /^authPlugin\(\): unknown option "sessionCookies" \(did you mean "sessionCookie"\?\)/,
    );
    expect(unknown({ sessionCookie: { maxAge: 1 } })).toThrow(/^sessionCookie: unknown option "maxAge"/);
    expect(() =>
      authRoutes(auth, { cookie: sessionCookie({}, false), trustedOrigins: new Set() }, {
        skip: ['register'],
      } as object),
    ).toThrow(/^authRoutes\(\): unknown option "skip"/);
  });
});

describe.each(adapters)('auth:login on $name', (adapter) => {
  it('is emitted on a successful login with { user, amr, ip }, and not on a failed one', async () => {
    await withAuth(adapter, async ({ url, events }) => {
      const alice = await register(url);
      const logins = () => events.filter((event) => event.name === 'auth:login');
      expect(logins()).toEqual([]);

      expect((await login(url, { ...ALICE, password: 'not the password' })).status).toBe(401);
      expect((await login(url, { email: 'nobody@example.com', password: ALICE.password })).status).toBe(401);
      expect(logins()).toEqual([]);

      expect((await login(url)).status).toBe(200);
      expect(logins()).toHaveLength(1);
      const payload = logins()[0]?.payload as AuthEventPayloads['auth:login'];
      expect(payload).toEqual({ user: alice.user, amr: ['pwd'], ip: expect.any(String) });
      expect(payload.ip).toMatch(/127\.0\.0\.1$/);
    });
  });
});
