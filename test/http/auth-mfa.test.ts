// Two-factor sign-in over HTTP on every adapter: the MFA routes (enrol, activate, status, disable) with real
// TOTP codes computed by otpauth from the secret the service answers, on a fake clock; sign-in with a code
// (amr 'mfa'), a code accepted once, each recovery code once; the routes refuse anonymous callers and API
// keys; the requireMfa policy (403 AUTH_MFA_ENROLLMENT_REQUIRED / AUTH_MFA_REQUIRED, `mfa: false` exempt,
// disable subject to it, API-key requests exempt) and step-up (`mfa: true`); `modules.auth.mfa` and
// `requireMfa` through authModule (the key ring from SVC_MFA_KEYS, a development key kept under .svc/).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Secret, TOTP } from 'otpauth';
import { afterAll, describe, expect, it } from 'vitest';
import {
  Auth,
  authModule,
  authPlugin,
  MemoryUserSource,
  route,
  SESSION_ID_HEADER,
  type AuthPluginOptions,
  type PublicUser,
  type Route,
} from 'svckit';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import {
  ALICE,
  API_KEY_HEADER,
  apiKeyStandIn,
  bearer,
  codeOf,
  FAST_HASH,
  get,
  post,
  register,
  SECRET,
  sessionFrom,
  thrown,
  type SignedIn,
} from './auth-harness.js';
import { adapters, withServer, type AdapterUnderTest } from './harness.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');
const STEP_MS = 30_000;

const appRoutes: Route[] = [
  route({ method: 'GET', url: '/private', meta: { auth: true }, handler: () => ({ ok: true }) }),
  route({ method: 'GET', url: '/public', meta: {}, handler: () => ({ ok: true }) }),
  route({ method: 'GET', url: '/exempt', meta: { auth: true, mfa: false }, handler: () => ({ ok: true }) }),
  route({ method: 'POST', url: '/step-up', meta: { auth: true, mfa: true }, handler: () => ({ ok: true }) }),
];

interface MfaServer {
  url: string;
  auth: Auth;
  events: string[];
  advance(ms: number): void;
  /** The TOTP code of `secret` now, by otpauth (SHA-1, 6 digits, 30 s). */
  code(secret: string): string;
}

async function withMfa(
  adapter: AdapterUnderTest,
  body: (server: MfaServer) => Promise<void>,
  plugin: Omit<AuthPluginOptions, 'auth'> = {},
): Promise<void> {
  let now = T0;
  const clock = () => now;
  const users = new MemoryUserSource();
  const mfa = new MfaService({
    store: new MemoryMfaStore(),
    box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
    issuer: 'Notes API',
    users,
    clock,
  });
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, clock, users, mfa });
  const events: string[] = [];
  auth.hooks.on('auth:mfa_enabled', () => void events.push('auth:mfa_enabled'));
  auth.hooks.on('auth:mfa_disabled', () => void events.push('auth:mfa_disabled'));
  await withServer(
    adapter,
    { routes: appRoutes, plugins: [authPlugin({ auth, ...plugin }), apiKeyStandIn(users)] },
    (url) =>
      body({
        url,
        auth,
        events,
        advance: (ms) => void (now += ms),
        code: (secret) =>
          new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
            timestamp: now,
          }),
      }),
  );
}

/** Enrols and activates MFA for the holder of `token`; answers the secret and the recovery codes. */
async function enableMfa(server: MfaServer, token: string) {
  const enrolled = await post(server.url, '/auth/mfa/enroll', undefined, bearer(token));
  expect(enrolled.status, enrolled.text).toBe(200);
  const { secret } = enrolled.json as { secret: string };
  const activated = await post(
    server.url,
    '/auth/mfa/activate',
    { code: server.code(secret) },
    bearer(token),
  );
  expect(activated.status, activated.text).toBe(200);
  return { secret, recoveryCodes: (activated.json as { recoveryCodes: string[] }).recoveryCodes };
}

const loginWith = (url: string, mfaCode?: string) =>
  post(url, '/auth/login', mfaCode === undefined ? ALICE : { ...ALICE, mfaCode });

const status = async (url: string, token: string) => (await get(url, '/auth/mfa/status', bearer(token))).json;

describe.each(adapters)('two-factor sign-in on $name', (adapter) => {
  it('enrols, activates with 10 recovery codes, then signs in only with a code, each code accepted once, and disables with a code', async () => {
    await withMfa(adapter, async (server) => {
      const { url, advance, events } = server;
      const { accessToken: token } = await register(url);
      expect(await status(url, token)).toEqual({ state: 'none', recoveryCodesLeft: 0 });
      const early = await post(url, '/auth/mfa/activate', { code: '123456' }, bearer(token));
      expect([early.status, codeOf(early.json)]).toEqual([400, 'AUTH_MFA_NOT_ENROLLED']);

      const enrolled = await post(url, '/auth/mfa/enroll', undefined, bearer(token));
      expect(enrolled.status).toBe(200);
      expect(enrolled.headers.get('cache-control')).toBe('no-store');
      const { secret, otpauthUri } = enrolled.json as { secret: string; otpauthUri: string };
      expect(secret).toMatch(/^[A-Z2-7]{32}$/);
      expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Notes%20API:alice%40example\.com\?/);
      expect(otpauthUri).toContain(`secret=${secret}`);
      expect(await status(url, token)).toEqual({ state: 'pending', recoveryCodesLeft: 0 });
      // Still off while pending: signing in needs no code yet.
      expect((await loginWith(url)).status).toBe(200);

      const wrong = String((Number(server.code(secret)) + 500_000) % 1_000_000).padStart(6, '0');
      const refused = await post(url, '/auth/mfa/activate', { code: wrong }, bearer(token));
      expect([refused.status, codeOf(refused.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);
      const activated = await post(url, '/auth/mfa/activate', { code: server.code(secret) }, bearer(token));
      expect(activated.status).toBe(200);
      expect(activated.headers.get('cache-control')).toBe('no-store');
      const { recoveryCodes } = activated.json as { recoveryCodes: string[] };
      expect(recoveryCodes).toHaveLength(10);
      expect(new Set(recoveryCodes).size).toBe(10);
      expect(events).toEqual(['auth:mfa_enabled']);
      expect(await status(url, token)).toEqual({ state: 'enabled', recoveryCodesLeft: 10 });
      const again = await post(url, '/auth/mfa/enroll', undefined, bearer(token));
      expect([again.status, codeOf(again.json)]).toEqual([409, 'AUTH_MFA_ALREADY_ENABLED']);

      const withoutCode = await loginWith(url);
      expect([withoutCode.status, codeOf(withoutCode.json)]).toEqual([401, 'AUTH_MFA_REQUIRED']);
      advance(STEP_MS);
      const code = server.code(secret);
      const signedIn = await loginWith(url, code);
      expect(signedIn.status, signedIn.text).toBe(200);
      const mfaToken = (signedIn.json as SignedIn).accessToken;
      const me = await get(url, '/auth/me', bearer(mfaToken));
      expect((me.json as { amr: string[] }).amr).toEqual(['pwd', 'mfa']);
      const replayed = await loginWith(url, code);
      expect([replayed.status, codeOf(replayed.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);

      for (const recoveryCode of recoveryCodes.slice(0, 2)) {
        expect((await loginWith(url, recoveryCode)).status).toBe(200);
        const spent = await loginWith(url, recoveryCode);
        expect([spent.status, codeOf(spent.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);
      }
      expect(await status(url, token)).toEqual({ state: 'enabled', recoveryCodesLeft: 8 });

      advance(STEP_MS);
      // Turning the factor off needs a credential obtained with it: a password-only token cannot even try.
      const pwdOnly = await post(url, '/auth/mfa/disable', { code: server.code(secret) }, bearer(token));
      expect([pwdOnly.status, codeOf(pwdOnly.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      const badDisable = await post(url, '/auth/mfa/disable', { code: wrong }, bearer(mfaToken));
      expect([badDisable.status, codeOf(badDisable.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);
      const disabled = await post(url, '/auth/mfa/disable', { code: server.code(secret) }, bearer(mfaToken));
      expect(disabled.status, disabled.text).toBe(204);
      expect(events).toEqual(['auth:mfa_enabled', 'auth:mfa_disabled']);
      expect(await status(url, token)).toEqual({ state: 'none', recoveryCodesLeft: 0 });
      expect((await loginWith(url)).status).toBe(200);
      const notEnrolled = await post(url, '/auth/mfa/disable', { code: '123456' }, bearer(mfaToken));
      expect([notEnrolled.status, codeOf(notEnrolled.json)]).toEqual([400, 'AUTH_MFA_NOT_ENROLLED']);
    });
  });

  it('the MFA routes refuse anonymous callers and API keys', async () => {
    await withMfa(adapter, async ({ url }) => {
      const { user } = await register(url);
      const calls = [
        (headers: Record<string, string>) => post(url, '/auth/mfa/enroll', undefined, headers),
        (headers: Record<string, string>) => post(url, '/auth/mfa/activate', { code: '123456' }, headers),
        (headers: Record<string, string>) => get(url, '/auth/mfa/status', headers),
        (headers: Record<string, string>) => post(url, '/auth/mfa/disable', { code: '123456' }, headers),
      ];
      for (const [index, call] of calls.entries()) {
        const anonymous = await call({});
        expect([anonymous.status, codeOf(anonymous.json)]).toEqual([401, 'AUTH_REQUIRED']);
        const keyed = await call({ [API_KEY_HEADER]: user.id });
        // Disabling is step-up (`mfa: true`), which refuses keys outright; the others have no user to act for.
        expect([keyed.status, codeOf(keyed.json)]).toEqual(
          index === 3 ? [403, 'AUTH_APIKEY_NOT_ALLOWED'] : [401, 'AUTH_REQUIRED'],
        );
      }
      // The stand-in does put the key's user on the request: an API key is accepted on the app's routes.
      expect((await get(url, '/private', { [API_KEY_HEADER]: user.id })).status).toBe(200);
    });
  });

  it('step-up: meta.mfa: true answers 403 AUTH_MFA_REQUIRED to a password session and 200 after an MFA sign-in', async () => {
    await withMfa(adapter, async (server) => {
      const { url, advance } = server;
      const registered = await register(url);
      const { secret } = await enableMfa(server, registered.accessToken);
      const pwd = await post(url, '/step-up', {}, { [SESSION_ID_HEADER]: registered.session });
      expect([pwd.status, codeOf(pwd.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      advance(STEP_MS);
      const signedIn = await loginWith(url, server.code(secret));
      const session = sessionFrom(signedIn.headers);
      expect((await post(url, '/step-up', {}, { [SESSION_ID_HEADER]: session })).status).toBe(200);
      const token = (signedIn.json as SignedIn).accessToken;
      expect((await post(url, '/step-up', {}, bearer(token))).status).toBe(200);
      // Without the policy, a password credential is enough everywhere else.
      expect((await get(url, '/private', bearer(registered.accessToken))).status).toBe(200);
    });
  });

  it('requireMfa: 403 AUTH_MFA_ENROLLMENT_REQUIRED, then AUTH_MFA_REQUIRED until an MFA sign-in; mfa: false routes exempt, disable subject to it, API keys and anonymous requests exempt', async () => {
    await withMfa(
      adapter,
      async (server) => {
        const { url, advance, auth } = server;
        const registered = await register(url);
        const pwd = bearer(registered.accessToken);
        for (const path of ['/private', '/public']) {
          const response = await get(url, path, pwd);
          expect([response.status, codeOf(response.json)], path).toEqual([
            403,
            'AUTH_MFA_ENROLLMENT_REQUIRED',
          ]);
        }
        expect((await get(url, '/public')).status).toBe(200); // anonymous: no credential to judge
        expect((await get(url, '/exempt', pwd)).status).toBe(200);
        expect((await get(url, '/auth/me', pwd)).status).toBe(200);
        expect((await get(url, '/private', { [API_KEY_HEADER]: registered.user.id })).status).toBe(200);
        // A key presented beside a user's password-only token does not exempt the token.
        const both = await get(url, '/private', { ...pwd, [API_KEY_HEADER]: registered.user.id });
        expect(both.status).toBe(403);

        const { secret } = await enableMfa(server, registered.accessToken); // exempt routes
        const after = await get(url, '/private', pwd);
        expect([after.status, codeOf(after.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
        const stepUp = await post(url, '/step-up', {}, pwd);
        expect([stepUp.status, codeOf(stepUp.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
        advance(STEP_MS);
        const disable = await post(url, '/auth/mfa/disable', { code: server.code(secret) }, pwd);
        expect([disable.status, codeOf(disable.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
        expect(await auth.isMfaEnabled(registered.user.id)).toBe(true);
        expect((await get(url, '/private', { [API_KEY_HEADER]: registered.user.id })).status).toBe(200);

        const signedIn = await loginWith(url, server.code(secret));
        expect(signedIn.status, signedIn.text).toBe(200);
        const mfa = bearer((signedIn.json as SignedIn).accessToken);
        expect((await get(url, '/private', mfa)).status).toBe(200);
        expect((await post(url, '/step-up', {}, mfa)).status).toBe(200);
        advance(STEP_MS);
        const disabled = await post(url, '/auth/mfa/disable', { code: server.code(secret) }, mfa);
        expect(disabled.status, disabled.text).toBe(204);
      },
      { requireMfa: true },
    );
  });

  it('requireMfa as a function applies to the users it answers true for', async () => {
    const seen: string[] = [];
    const requireMfa = (user: PublicUser) => {
      seen.push(user.email);
      return user.email.endsWith('@corp.example');
    };
    await withMfa(
      adapter,
      async ({ url }) => {
        const alice = await register(url);
        expect((await get(url, '/private', bearer(alice.accessToken))).status).toBe(200);
        const bob = await register(url, { email: 'bob@corp.example', password: ALICE.password });
        const refused = await get(url, '/private', bearer(bob.accessToken));
        expect([refused.status, codeOf(refused.json)]).toEqual([403, 'AUTH_MFA_ENROLLMENT_REQUIRED']);
        expect(seen).toEqual(['alice@example.com', 'bob@corp.example']);
      },
      { requireMfa },
    );
  });

  it('an Auth without MFA serves no MFA routes and refuses requireMfa', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await withServer(adapter, { routes: appRoutes, plugins: [authPlugin({ auth })] }, async (url) => {
      const { accessToken } = await register(url);
      const response = await post(url, '/auth/mfa/enroll', undefined, bearer(accessToken));
      expect(response.status).toBe(404);
      expect((await get(url, '/auth/mfa/status', bearer(accessToken))).status).toBe(404);
    });
    expect(() => authPlugin({ auth, requireMfa: true })).toThrow(/requireMfa/);
  });
});

describe('modules.auth: mfa and requireMfa', () => {
  const projectDir = mkdtempSync(join(tmpdir(), 'svc-auth-mfa-'));
  afterAll(() => rmSync(projectDir, { recursive: true, force: true }));
  const development = { NODE_ENV: 'development' };

  it('mfa: true gives the Auth two-factor sign-in, its secrets sealed with a development key kept under .svc/', async () => {
    const users = new MemoryUserSource();
    const mfa = new MemoryMfaStore();
    const context = { env: development, projectDir, serviceName: 'Notes API', users, stores: { mfa } };
    const first = authModule({ mfa: true }, context)!;
    expect(first.auth.mfaEnabled).toBe(true);
    expect(authModule(true, { env: development, projectDir })!.auth.mfaEnabled).toBe(false);
    const { user } = await first.auth.register('d@example.com', 'password d');
    const { secret, otpauthUri } = await first.auth.enrollMfa(user.id);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Notes%20API:/);
    // Another process of the same project opens the sealed secret: the key is derived from what .svc/ keeps.
    const second = authModule({ mfa: true }, context)!;
    const code = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
    expect((await second.auth.activateMfa(user.id, code)).recoveryCodes).toHaveLength(10);
  });

  it('takes the key ring from SVC_MFA_KEYS, and in production refuses to start without it', () => {
    const key = `k1:${randomBytes(32).toString('base64')}`;
    const production = { NODE_ENV: 'production', SVC_SECRET: SECRET };
    const stores = { mfa: new MemoryMfaStore() };
    const withKeys = { env: { ...production, SVC_MFA_KEYS: key }, projectDir, serviceName: 'api', stores };
    expect(authModule({ mfa: true }, withKeys)!.auth.mfaEnabled).toBe(true);
    // In production the enabled factors must outlive the process: no database, no start.
    const inMemory = { env: { ...production, SVC_MFA_KEYS: key }, projectDir, serviceName: 'api' };
    expect(thrown(() => authModule({ mfa: true }, inMemory)).message).toContain('stores.database');
    const missing = thrown(() =>
      authModule({ mfa: true }, { env: production, projectDir, serviceName: 'api' }),
    );
    expect(missing.code).toBe('AUTH_SECRET_BOX_KEY_INVALID');
    expect(missing.message).toContain('SVC_MFA_KEYS');
    const bad = { env: { ...development, SVC_MFA_KEYS: 'k1:short' }, projectDir, serviceName: 'api' };
    expect(thrown(() => authModule({ mfa: true }, bad)).code).toBe('AUTH_SECRET_BOX_KEY_INVALID');
  });

  it('refuses requireMfa without mfa, and values that are not true or false', () => {
    const context = { env: development, projectDir, serviceName: 'api' };
    const alone = thrown(() => authModule({ requireMfa: true }, context));
    expect(alone.code).toBe('CONFIG_INVALID');
    expect(alone.message).toContain('requireMfa needs mfa: true');
    expect(thrown(() => authModule({ mfa: 'yes' }, context)).code).toBe('CONFIG_INVALID');
    expect(thrown(() => authModule({ mfa: true }, { env: development, projectDir })).message).toContain(
      'serviceName',
    );
  });

  it('requireMfa: true turns the policy on in the plugin it builds', async () => {
    const built = authModule(
      { mfa: true, requireMfa: true },
      { env: development, projectDir, serviceName: 'api' },
    )!;
    await withServer(adapters[0]!, { routes: appRoutes, plugins: built.plugins }, async (url) => {
      const { accessToken } = await register(url);
      const refused = await get(url, '/private', bearer(accessToken));
      expect([refused.status, codeOf(refused.json)]).toEqual([403, 'AUTH_MFA_ENROLLMENT_REQUIRED']);
      expect((await post(url, '/auth/mfa/enroll', undefined, bearer(accessToken))).status).toBe(200);
    });
  });
});
