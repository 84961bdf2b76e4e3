// Passkeys over HTTP on every adapter, with real WebAuthn bytes: a software authenticator (ES256, attestation
// `none`) answers the options the routes give, and svckit's default verifier (@simplewebauthn/server) checks
// them. Registering, listing, removing and signing in (tokens, the session cookie, amr), the ceremony cookie
// (`svc_passkey`: set by the options routes, required and expired by the verify routes), and every refusal:
// another user's ceremony or passkey, a credential registered twice, a replayed assertion, a rolled-back
// counter, no cookie, API keys and anonymous callers, user verification required, and the second factor an
// MFA account still asks for when the authenticator did not verify the user.
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { Auth, authPlugin, MemoryUserSource, route, type AuthUser, type Route } from 'svckit';
import { routeDefinitions } from '../../generated/modules/auth/routes.js';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { PASSKEY_ROUTE_IDS } from '../../runtime/auth/http/passkey-routes.js';
import { PasskeyService, type UserVerification } from '../../runtime/auth/passkeys/service.js';
import { simpleWebauthnVerifier } from '../../runtime/auth/passkeys/simplewebauthn-verifier.js';
import type { WebauthnVerifier } from '../../runtime/auth/passkeys/verifier.js';
import { SoftwareAuthenticator, type RegistrationResponseJson } from '../helpers/software-authenticator.js';
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
  sessionFrom,
  SECRET,
  type SignedIn,
} from './auth-harness.js';
import { adapters, call, withServer, type AdapterUnderTest } from './harness.js';

const ORIGIN = 'http://localhost:3000';
const BOB = { email: 'bob@example.com', password: 'another horse battery' };
const T0 = Date.parse('2026-11-26T00:00:00Z');
const STEP_MS = 30_000;
const CEREMONY_COOKIE =
  /^svc_passkey=([A-Za-z0-9_-]{43}); Path=\/auth\/passkeys; Max-Age=300; HttpOnly; SameSite=Strict$/;
const EXPIRED_CEREMONY_COOKIE =
  'svc_passkey=; Path=/auth/passkeys; Max-Age=0; HttpOnly; SameSite=Strict; Expires=Thu, 01 Jan 1970 00:00:00 GMT';

/** A user source whose accounts can be deleted: a passkey may outlive its account. */
class DeletableUsers extends MemoryUserSource {
  readonly deleted = new Set<string>();
  override async findById(id: string): Promise<AuthUser | null> {
    return this.deleted.has(id) ? null : super.findById(id);
  }
}

interface PasskeyServer {
  url: string;
  users: DeletableUsers;
  logins: { amr: string[]; secondFactor?: string }[];
  /** `added <id>` and `removed <id>`, as the passkey events came. */
  passkeyEvents: string[];
  advance(ms: number): void;
  totp(secret: string): string;
}

interface ServerOptions {
  userVerification?: UserVerification;
  secureCookie?: boolean;
  /** The MFA requirement policy, over a route of the app's that needs a signed-in user (GET /private). */
  requireMfa?: boolean;
  /** Instead of svckit's default verifier. */
  verifier?: WebauthnVerifier;
}

const PRIVATE_ROUTE: Route = route({
  method: 'GET',
  url: '/private',
  meta: { auth: true },
  handler: () => ({ ok: true }),
});

async function withPasskeys(
  adapter: AdapterUnderTest,
  body: (server: PasskeyServer) => Promise<void>,
  options: ServerOptions = {},
): Promise<void> {
  let now = T0;
  const clock = () => now;
  const users = new DeletableUsers();
  const mfa = new MfaService({
    store: new MemoryMfaStore(),
    box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
    issuer: 'Notes API',
    users,
    clock,
  });
  const passkeys = new PasskeyService({
    config: { rpId: 'localhost', rpName: 'Notes API', origin: ORIGIN },
    verifier: options.verifier ?? simpleWebauthnVerifier(),
    clock,
    ...(options.userVerification === undefined ? {} : { userVerification: options.userVerification }),
  });
  const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, clock, users, mfa, passkeys });
  const logins: PasskeyServer['logins'] = [];
  auth.hooks.on('auth:login', ({ amr, secondFactor }) => {
    logins.push(secondFactor === undefined ? { amr } : { amr, secondFactor });
  });
  const passkeyEvents: string[] = [];
  auth.hooks.on('auth:passkey_added', ({ user, passkey }) => {
    passkeyEvents.push(`added ${user.email} ${passkey.id}`);
  });
  auth.hooks.on('auth:passkey_removed', ({ user, passkeyId }) => {
    passkeyEvents.push(`removed ${user.email} ${passkeyId}`);
  });
  const plugin = authPlugin({
    auth,
    ...(options.secureCookie === undefined ? {} : { sessionCookie: { secure: options.secureCookie } }),
    ...(options.requireMfa === true ? { requireMfa: true } : {}),
  });
  await withServer(adapter, { routes: [PRIVATE_ROUTE], plugins: [plugin, apiKeyStandIn(users)] }, (url) =>
    body({
      url,
      users,
      logins,
      passkeyEvents,
      advance: (ms) => void (now += ms),
      totp: (secret) => new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: now }),
    }),
  );
}

/** The Set-Cookie lines of an answer for `name`. */
function setCookies(headers: Headers, name: string): string[] {
  return headers.getSetCookie().filter((line) => line.startsWith(`${name}=`));
}

/** The ceremony cookie an options answer set, checked, as the Cookie header the browser sends back. */
function ceremonyCookieOf(headers: Headers): string {
  const [line, ...more] = setCookies(headers, 'svc_passkey');
  expect(more).toEqual([]);
  const match = CEREMONY_COOKIE.exec(line ?? '');
  if (!match) throw new Error(`no ceremony cookie in ${line}`);
  return `svc_passkey=${match[1]}`;
}

const withCookie = (cookie: string, headers: Record<string, string> = {}) => ({ ...headers, cookie });

/** The options of a registration, and the cookie that goes with them. */
async function registrationOptions(url: string, token: string) {
  const response = await post(url, '/auth/passkeys/register/options', undefined, bearer(token));
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return {
    options: response.json as Parameters<SoftwareAuthenticator['register']>[0],
    cookie: ceremonyCookieOf(response.headers),
  };
}

/** Registers a new passkey of `authenticator` for the holder of `token`; answers the passkey's id. */
async function addPasskey(url: string, token: string, authenticator: SoftwareAuthenticator): Promise<string> {
  const { options, cookie } = await registrationOptions(url, token);
  const finished = await post(
    url,
    '/auth/passkeys/register/verify',
    { response: authenticator.register(options) },
    withCookie(cookie, bearer(token)),
  );
  expect(finished.status, finished.text).toBe(201);
  return (finished.json as { id: string }).id;
}

/** Starts a sign-in (naming `email` when given): the request options and the cookie. */
async function signInOptions(url: string, email?: string) {
  const response = await post(
    url,
    '/auth/passkeys/login/options',
    email === undefined ? undefined : { email },
  );
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('cache-control')).toBe('no-store');
  return {
    options: response.json as Parameters<SoftwareAuthenticator['authenticate']>[0],
    cookie: ceremonyCookieOf(response.headers),
  };
}

interface SignInInput {
  email?: string;
  mfaCode?: string;
  credentialId?: string;
  userVerified?: boolean;
}

/** A whole passkey sign-in with `authenticator`: options, assertion, verify. */
async function signInWith(url: string, authenticator: SoftwareAuthenticator, input: SignInInput = {}) {
  const { options, cookie } = await signInOptions(url, input.email);
  const response = authenticator.authenticate(
    options,
    input.credentialId,
    input.userVerified === undefined ? {} : { userVerified: input.userVerified },
  );
  const body = input.mfaCode === undefined ? { response } : { response, mfaCode: input.mfaCode };
  return post(url, '/auth/passkeys/login/verify', body, withCookie(cookie));
}

const amrOf = async (url: string, token: string) =>
  ((await get(url, '/auth/me', bearer(token))).json as { amr: string[] }).amr;

const newAuthenticator = (userVerified = true) => new SoftwareAuthenticator({ origin: ORIGIN, userVerified });

/** The same attestation answered to another challenge: attestation `none` signs no client data. */
function replayedAttestation(
  previous: RegistrationResponseJson,
  challenge: string,
): RegistrationResponseJson {
  const clientData = { type: 'webauthn.create', challenge, origin: ORIGIN, crossOrigin: false };
  return {
    ...previous,
    response: {
      ...previous.response,
      clientDataJSON: Buffer.from(JSON.stringify(clientData)).toString('base64url'),
    },
  };
}

describe.each(adapters)('passkeys on $name', (adapter) => {
  it('registers, lists and signs in: tokens, a session cookie, amr hwk+mfa, the ceremony cookie set and expired', async () => {
    await withPasskeys(adapter, async ({ url, logins }) => {
      const alice = await register(url);
      const { options, cookie } = await registrationOptions(url, alice.accessToken);
      expect(options).toMatchObject({ rp: { id: 'localhost' }, excludeCredentials: [] });
      expect((options as unknown as { user: { name: string } }).user.name).toBe(ALICE.email);
      const authenticator = newAuthenticator();
      const finished = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: authenticator.register(options), label: 'Laptop' },
        withCookie(cookie, bearer(alice.accessToken)),
      );
      expect(finished.status, finished.text).toBe(201);
      expect(finished.headers.get('cache-control')).toBe('no-store');
      expect(setCookies(finished.headers, 'svc_passkey')).toEqual([EXPIRED_CEREMONY_COOKIE]);
      const passkey = finished.json as Record<string, unknown>;
      expect(Object.keys(passkey).sort()).toEqual(['createdAt', 'id', 'label', 'transports']);
      expect(passkey).toMatchObject({
        id: authenticator.credentialIds[0],
        label: 'Laptop',
        transports: ['internal'],
      });

      const listed = await get(url, '/auth/passkeys', bearer(alice.accessToken));
      expect(listed.status).toBe(200);
      expect(listed.headers.get('cache-control')).toBe('no-store');
      expect(listed.json).toEqual({ passkeys: [passkey] });

      const signedIn = await signInWith(url, authenticator);
      expect(signedIn.status, signedIn.text).toBe(200);
      expect(signedIn.headers.get('cache-control')).toBe('no-store');
      expect(setCookies(signedIn.headers, 'svc_passkey')).toEqual([EXPIRED_CEREMONY_COOKIE]);
      const { user, accessToken, refreshToken } = signedIn.json as SignedIn;
      expect(user).toEqual(alice.user);
      expect(refreshToken).toEqual(expect.any(String));
      expect(await amrOf(url, accessToken)).toEqual(['hwk', 'mfa']);
      const session = sessionFrom(signedIn.headers);
      const me = await get(url, '/auth/me', { cookie: `svc_session=${session}` });
      expect(me.json).toEqual({ user: alice.user, amr: ['hwk', 'mfa'] });
      expect(logins).toEqual([{ amr: ['hwk', 'mfa'] }]);

      const used = (await get(url, '/auth/passkeys', bearer(alice.accessToken))).json as {
        passkeys: { lastUsedAt?: number }[];
      };
      expect(used.passkeys[0]?.lastUsedAt).toEqual(expect.any(Number));
      // The browser is told not to register the same authenticator twice. (With a passkey on the account,
      // adding another needs a sign-in with one: the token the passkey sign-in gave.)
      const again = await registrationOptions(url, accessToken);
      expect(again.options).toMatchObject({
        excludeCredentials: [{ type: 'public-key', id: authenticator.credentialIds[0] }],
      });
    });
  });

  it('registration: another user finishing the ceremony is 403, the same credential twice 409, a replay or a missing, malformed or ambiguous cookie 400', async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const bob = await register(url, BOB);
      const authenticator = newAuthenticator();

      // Bob's browser holds Alice's ceremony cookie: the challenge was issued for Alice.
      const started = await registrationOptions(url, alice.accessToken);
      const attestation = authenticator.register(started.options);
      const stolen = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: attestation },
        withCookie(started.cookie, bearer(bob.accessToken)),
      );
      expect([stolen.status, codeOf(stolen.json)]).toEqual([403, 'WEBAUTHN_SUBJECT_MISMATCH']);
      // The challenge was spent by that attempt: Alice cannot finish with it either.
      const spent = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: attestation },
        withCookie(started.cookie, bearer(alice.accessToken)),
      );
      expect([spent.status, codeOf(spent.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);

      const first = await registrationOptions(url, alice.accessToken);
      const registered = authenticator.register(first.options);
      const ok = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: registered },
        withCookie(first.cookie, bearer(alice.accessToken)),
      );
      expect(ok.status, ok.text).toBe(201);
      // From now on Alice manages her passkeys signed in with one.
      const strong = await signInWith(url, authenticator, { credentialId: registered.id });
      expect(strong.status, strong.text).toBe(200);
      const aliceStrong = (strong.json as SignedIn).accessToken;
      const replayed = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: registered },
        withCookie(first.cookie, bearer(aliceStrong)),
      );
      expect([replayed.status, codeOf(replayed.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
      // The same credential answered to a fresh challenge, by its owner or by another account: 409.
      for (const token of [aliceStrong, bob.accessToken]) {
        const next = await registrationOptions(url, token);
        const twice = await post(
          url,
          '/auth/passkeys/register/verify',
          { response: replayedAttestation(registered, (next.options as { challenge: string }).challenge) },
          withCookie(next.cookie, bearer(token)),
        );
        expect([twice.status, codeOf(twice.json)]).toEqual([409, 'PASSKEY_EXISTS']);
      }

      const fresh = await registrationOptions(url, aliceStrong);
      const response = newAuthenticator().register(fresh.options);
      const other = await registrationOptions(url, aliceStrong);
      const cookies: (string | undefined)[] = [
        undefined,
        'svc_passkey=not-a-ceremony',
        `${fresh.cookie}; ${other.cookie}`,
      ];
      for (const cookie of cookies) {
        const headers = cookie === undefined ? bearer(aliceStrong) : withCookie(cookie, bearer(aliceStrong));
        const refused = await post(url, '/auth/passkeys/register/verify', { response }, headers);
        expect([refused.status, codeOf(refused.json)], cookie).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
        expect(refused.headers.get('cache-control')).toBe('no-store');
      }
      // The same cookie sent twice is one ceremony.
      const doubled = await post(
        url,
        '/auth/passkeys/register/verify',
        { response },
        withCookie(`${fresh.cookie}; ${fresh.cookie}`, bearer(aliceStrong)),
      );
      expect(doubled.status, doubled.text).toBe(201);
    });
  });

  it("sign-in: another account's passkey 403, an unknown email answers alike, a replay 400, a rolled-back counter 401 PASSKEY_CLONED, no cookie 400", async () => {
    await withPasskeys(adapter, async ({ url, users }) => {
      const alice = await register(url);
      const bob = await register(url, BOB);
      const alicesKey = newAuthenticator();
      const bobsKey = newAuthenticator();
      await addPasskey(url, alice.accessToken, alicesKey);
      await addPasskey(url, bob.accessToken, bobsKey);

      const mismatch = await signInWith(url, bobsKey, { email: ALICE.email });
      expect([mismatch.status, codeOf(mismatch.json)]).toEqual([403, 'WEBAUTHN_SUBJECT_MISMATCH']);
      const named = await signInWith(url, alicesKey, { email: 'ALICE@example.com' });
      expect(named.status, named.text).toBe(200);
      expect((named.json as SignedIn).user.id).toBe(alice.user.id);

      // An email without an account: the same answer, and every passkey refused like another account's.
      const known = await signInOptions(url, ALICE.email);
      const unknown = await signInOptions(url, 'nobody@example.com');
      const shape = (options: object) => ({ ...options, challenge: '' });
      expect(shape(unknown.options)).toEqual(shape(known.options));
      expect((known.options as unknown as { allowCredentials: unknown[] }).allowCredentials).toEqual([]);
      const nobody = await signInWith(url, alicesKey, { email: 'nobody@example.com' });
      expect([nobody.status, codeOf(nobody.json)]).toEqual([403, 'WEBAUTHN_SUBJECT_MISMATCH']);

      const { options, cookie } = await signInOptions(url);
      const assertion = alicesKey.authenticate(options);
      const first = await post(
        url,
        '/auth/passkeys/login/verify',
        { response: assertion },
        withCookie(cookie),
      );
      expect(first.status, first.text).toBe(200);
      const replayed = await post(
        url,
        '/auth/passkeys/login/verify',
        { response: assertion },
        withCookie(cookie),
      );
      expect([replayed.status, codeOf(replayed.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
      const noCookie = await post(url, '/auth/passkeys/login/verify', { response: assertion });
      expect([noCookie.status, codeOf(noCookie.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
      expect(noCookie.headers.get('cache-control')).toBe('no-store');

      // A copy of the key whose counter lags behind the one the service last accepted.
      const clone = alicesKey.clone();
      clone.setCounter(alicesKey.credentialIds[0]!, 0);
      const cloned = await signInWith(url, clone);
      expect([cloned.status, codeOf(cloned.json)]).toEqual([401, 'PASSKEY_CLONED']);
      expect((await signInWith(url, alicesKey)).status).toBe(200);

      // A passkey outliving its account signs in no one.
      users.deleted.add(bob.user.id);
      const orphan = await signInWith(url, bobsKey);
      expect([orphan.status, codeOf(orphan.json)]).toEqual([401, 'WEBAUTHN_VERIFICATION_FAILED']);
    });
  });

  it("removal: another user's or an unknown passkey is 404 PASSKEY_NOT_FOUND; a removed passkey signs in no more", async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const bob = await register(url, BOB);
      const alicesKey = newAuthenticator();
      const id = await addPasskey(url, alice.accessToken, alicesKey);
      const aliceStrong = ((await signInWith(url, alicesKey)).json as SignedIn).accessToken;
      for (const [token, target] of [
        [bob.accessToken, id],
        [aliceStrong, 'no-such-passkey'],
      ] as const) {
        const refused = await call(`${url}/auth/passkeys/${encodeURIComponent(target)}`, {
          method: 'DELETE',
          headers: bearer(token),
        });
        expect([refused.status, codeOf(refused.json)]).toEqual([404, 'PASSKEY_NOT_FOUND']);
      }
      // Her password alone no longer manages her passkeys: a stolen password could take them away.
      const weak = await call(`${url}/auth/passkeys/${id}`, {
        method: 'DELETE',
        headers: bearer(alice.accessToken),
      });
      expect([weak.status, codeOf(weak.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      const removed = await call(`${url}/auth/passkeys/${id}`, {
        method: 'DELETE',
        headers: bearer(aliceStrong),
      });
      expect(removed.status).toBe(204);
      expect(removed.headers.get('cache-control')).toBe('no-store');
      expect((await get(url, '/auth/passkeys', bearer(alice.accessToken))).json).toEqual({ passkeys: [] });
      const gone = await signInWith(url, alicesKey);
      expect([gone.status, codeOf(gone.json)]).toEqual([401, 'WEBAUTHN_VERIFICATION_FAILED']);
    });
  });

  it('the signed-in routes refuse anonymous callers and API keys', async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const id = await addPasskey(url, alice.accessToken, newAuthenticator());
      const calls = [
        (headers: Record<string, string>) => post(url, '/auth/passkeys/register/options', undefined, headers),
        (headers: Record<string, string>) =>
          post(url, '/auth/passkeys/register/verify', { response: {} }, headers),
        (headers: Record<string, string>) => get(url, '/auth/passkeys', headers),
        (headers: Record<string, string>) =>
          call(`${url}/auth/passkeys/${id}`, { method: 'DELETE', headers }),
      ];
      for (const send of calls) {
        const callers: Record<string, string>[] = [{}, { [API_KEY_HEADER]: alice.user.id }];
        for (const headers of callers) {
          const response = await send(headers);
          expect([response.status, codeOf(response.json)]).toEqual([401, 'AUTH_REQUIRED']);
        }
      }
      expect((await get(url, '/auth/passkeys', bearer(alice.accessToken))).json).toMatchObject({
        passkeys: [{ id }],
      });
    });
  });

  it('without user verification amr is hwk alone; an MFA account then needs its code, which adds mfa', async () => {
    await withPasskeys(adapter, async ({ url, advance, totp, logins }) => {
      const alice = await register(url);
      const key = newAuthenticator(false);
      await addPasskey(url, alice.accessToken, key);
      const plain = await signInWith(url, key);
      expect(plain.status, plain.text).toBe(200);
      expect(await amrOf(url, (plain.json as SignedIn).accessToken)).toEqual(['hwk']);

      // With a passkey on the account, a password alone adds no factor: TOTP is enrolled signed in with the key.
      const refused = await post(url, '/auth/mfa/enroll', undefined, bearer(alice.accessToken));
      expect([refused.status, codeOf(refused.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      const keyToken = (plain.json as SignedIn).accessToken;
      const enrolled = await post(url, '/auth/mfa/enroll', undefined, bearer(keyToken));
      const { secret } = enrolled.json as { secret: string };
      const passwordOnly = await post(
        url,
        '/auth/mfa/activate',
        { code: totp(secret) },
        bearer(alice.accessToken),
      );
      expect([passwordOnly.status, codeOf(passwordOnly.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      const activated = await post(url, '/auth/mfa/activate', { code: totp(secret) }, bearer(keyToken));
      expect(activated.status, activated.text).toBe(200);
      advance(STEP_MS);

      const missing = await signInWith(url, key);
      expect([missing.status, codeOf(missing.json)]).toEqual([401, 'AUTH_MFA_REQUIRED']);
      const wrongCode = String((Number(totp(secret)) + 500_000) % 1_000_000).padStart(6, '0');
      const wrong = await signInWith(url, key, { mfaCode: wrongCode });
      expect([wrong.status, codeOf(wrong.json)]).toEqual([401, 'AUTH_MFA_INVALID_CODE']);
      const withCode = await signInWith(url, key, { mfaCode: totp(secret) });
      expect(withCode.status, withCode.text).toBe(200);
      expect(await amrOf(url, (withCode.json as SignedIn).accessToken)).toEqual(['hwk', 'mfa']);
      expect(logins.at(-1)).toEqual({ amr: ['hwk', 'mfa'], secondFactor: 'totp' });

      // A verified user is two factors already: no code asked.
      const verified = await signInWith(url, key, { userVerified: true });
      expect(verified.status, verified.text).toBe(200);
      expect(await amrOf(url, (verified.json as SignedIn).accessToken)).toEqual(['hwk', 'mfa']);
      expect(logins.at(-1)).toEqual({ amr: ['hwk', 'mfa'] });
    });
  });

  it("userVerification 'required': an authenticator that does not verify the user neither registers nor signs in", async () => {
    await withPasskeys(
      adapter,
      async ({ url }) => {
        const alice = await register(url);
        const { options, cookie } = await registrationOptions(url, alice.accessToken);
        expect(options).toMatchObject({ authenticatorSelection: { userVerification: 'required' } });
        const refused = await post(
          url,
          '/auth/passkeys/register/verify',
          { response: newAuthenticator(false).register(options) },
          withCookie(cookie, bearer(alice.accessToken)),
        );
        expect([refused.status, codeOf(refused.json)]).toEqual([400, 'WEBAUTHN_VERIFICATION_FAILED']);

        const key = newAuthenticator();
        await addPasskey(url, alice.accessToken, key);
        const unverified = await signInWith(url, key, { userVerified: false });
        expect([unverified.status, codeOf(unverified.json)]).toEqual([401, 'WEBAUTHN_VERIFICATION_FAILED']);
        expect((await signInWith(url, key)).status).toBe(200);
      },
      { userVerification: 'required' },
    );
  });

  it('under the MFA policy a passkey sign-in that verified the user counts as multi-factor, one that did not does not', async () => {
    await withPasskeys(
      adapter,
      async ({ url }) => {
        // Signed in with a password only, the user may still add a passkey: the passkey routes are exempt.
        const alice = await register(url);
        const refused = await get(url, '/private', bearer(alice.accessToken));
        expect([refused.status, codeOf(refused.json)]).toEqual([403, 'AUTH_MFA_ENROLLMENT_REQUIRED']);
        const device = newAuthenticator();
        await addPasskey(url, alice.accessToken, device);

        const verified = await signInWith(url, device);
        expect(verified.status, verified.text).toBe(200);
        const strong = (verified.json as SignedIn).accessToken;
        expect((await get(url, '/private', bearer(strong))).status).toBe(200);

        const presentOnly = await signInWith(url, device, { userVerified: false });
        expect(presentOnly.status, presentOnly.text).toBe(200);
        const weak = await get(url, '/private', bearer((presentOnly.json as SignedIn).accessToken));
        expect([weak.status, codeOf(weak.json)]).toEqual([403, 'AUTH_MFA_ENROLLMENT_REQUIRED']);
      },
      { requireMfa: true },
    );
  });

  it('managing passkeys needs a sign-in as strong as the account: a password alone adds none once a factor exists', async () => {
    await withPasskeys(adapter, async ({ url, advance, totp, passkeyEvents }) => {
      // No factor yet: the first passkey comes from a password sign-in.
      const alice = await register(url);
      const first = newAuthenticator();
      const firstId = await addPasskey(url, alice.accessToken, first);
      expect(passkeyEvents).toEqual([`added ${ALICE.email} ${firstId}`]);
      // A passkey on the account: a password-only token (stolen, say) can neither add one nor remove one.
      const weak = await post(url, '/auth/passkeys/register/options', undefined, bearer(alice.accessToken));
      expect([weak.status, codeOf(weak.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      const keyToken = ((await signInWith(url, first)).json as SignedIn).accessToken;
      const secondId = await addPasskey(url, keyToken, newAuthenticator());

      // Two-factor sign-in enabled: a token from before it (or from a key alone) no longer manages passkeys.
      const bob = await register(url, BOB);
      const bobsKey = newAuthenticator(false);
      await addPasskey(url, bob.accessToken, bobsKey);
      const bobKeyOnly = ((await signInWith(url, bobsKey)).json as SignedIn).accessToken;
      const { secret } = (await post(url, '/auth/mfa/enroll', undefined, bearer(bobKeyOnly))).json as {
        secret: string;
      };
      expect((await post(url, '/auth/mfa/activate', { code: totp(secret) }, bearer(bobKeyOnly))).status).toBe(
        200,
      );
      advance(STEP_MS);
      for (const token of [bob.accessToken, bobKeyOnly]) {
        const stale = await post(url, '/auth/passkeys/register/options', undefined, bearer(token));
        expect([stale.status, codeOf(stale.json)]).toEqual([403, 'AUTH_MFA_REQUIRED']);
      }
      const withCode = await signInWith(url, bobsKey, { mfaCode: totp(secret) });
      const strong = (withCode.json as SignedIn).accessToken;
      expect((await post(url, '/auth/passkeys/register/options', undefined, bearer(strong))).status).toBe(
        200,
      );

      const removed = await call(`${url}/auth/passkeys/${secondId}`, {
        method: 'DELETE',
        headers: bearer(keyToken),
      });
      expect(removed.status).toBe(204);
      expect(passkeyEvents.at(-1)).toBe(`removed ${ALICE.email} ${secondId}`);
    });
  });

  it('two sign-ins verified against one counter (a key and its clone, at once): one wins, the other is 401 PASSKEY_CLONED', async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const device = newAuthenticator();
      await addPasskey(url, alice.accessToken, device);
      const clone = device.clone();
      // Each from its own browser: two ceremonies, two assertions reporting the same next counter.
      const [mine, theirs] = await Promise.all([signInOptions(url), signInOptions(url)]);
      const results = await Promise.all(
        [
          [device, mine],
          [clone, theirs],
        ].map(([key, started]) => {
          const { options, cookie } = started as Awaited<ReturnType<typeof signInOptions>>;
          const response = (key as SoftwareAuthenticator).authenticate(options);
          return post(url, '/auth/passkeys/login/verify', { response }, withCookie(cookie));
        }),
      );
      expect(results.map((result) => result.status).sort()).toEqual([200, 401]);
      expect(codeOf(results.find((result) => result.status === 401)!.json)).toBe('PASSKEY_CLONED');
    });
  });

  it('finishing a ceremony from a page of another origin is 403 AUTH_CSRF_REJECTED; an account holds 20 passkeys', async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const device = newAuthenticator();
      await addPasskey(url, alice.accessToken, device);
      const { options, cookie } = await signInOptions(url);
      const response = device.authenticate(options);
      const sibling = await post(
        url,
        '/auth/passkeys/login/verify',
        { response },
        withCookie(cookie, { origin: 'http://evil.localhost:3000' }),
      );
      expect([sibling.status, codeOf(sibling.json)]).toEqual([403, 'AUTH_CSRF_REJECTED']);
      const fromPage = await post(
        url,
        '/auth/passkeys/login/verify',
        { response },
        withCookie(cookie, { origin: ORIGIN }),
      );
      expect(fromPage.status, fromPage.text).toBe(200);
      const keyToken = (fromPage.json as SignedIn).accessToken;

      for (let count = 1; count < 20; count++) await addPasskey(url, keyToken, newAuthenticator());
      const { options: more, cookie: moreCookie } = await registrationOptions(url, keyToken);
      const full = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: newAuthenticator().register(more) },
        withCookie(moreCookie, bearer(keyToken)),
      );
      expect([full.status, codeOf(full.json)]).toEqual([409, 'PASSKEY_LIMIT_REACHED']);
    });
  });

  it('more copies of the ceremony cookie than a browser sends are refused, whatever follows', async () => {
    await withPasskeys(adapter, async ({ url }) => {
      const alice = await register(url);
      const device = newAuthenticator();
      await addPasskey(url, alice.accessToken, device);
      const mine = await signInOptions(url);
      const other = await signInOptions(url);
      const assertion = device.authenticate(other.options);
      const header = [...Array(4).fill(mine.cookie), other.cookie].join('; ');
      const refused = await post(
        url,
        '/auth/passkeys/login/verify',
        { response: assertion },
        withCookie(header),
      );
      expect([refused.status, codeOf(refused.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
    });
  });

  it('a challenge expires after 5 minutes: finishing later is 400 WEBAUTHN_CHALLENGE_INVALID', async () => {
    await withPasskeys(adapter, async ({ url, advance }) => {
      const alice = await register(url);
      const device = newAuthenticator();
      const { options, cookie } = await registrationOptions(url, alice.accessToken);
      advance(5 * 60_000 + 1);
      const late = await post(
        url,
        '/auth/passkeys/register/verify',
        { response: device.register(options) },
        withCookie(cookie, bearer(alice.accessToken)),
      );
      expect([late.status, codeOf(late.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
      await addPasskey(url, alice.accessToken, device);
      const started = await signInOptions(url);
      advance(5 * 60_000 + 1);
      const assertion = device.authenticate(started.options);
      const expired = await post(
        url,
        '/auth/passkeys/login/verify',
        { response: assertion },
        withCookie(started.cookie),
      );
      expect([expired.status, codeOf(expired.json)]).toEqual([400, 'WEBAUTHN_CHALLENGE_INVALID']);
    });
  });

  it('a counter from the verifier that is not a whole number, 0 or more, refuses the sign-in', async () => {
    const real = simpleWebauthnVerifier();
    for (const newCounter of [2.5, -1]) {
      const verifier: WebauthnVerifier = {
        verifyRegistration: (response, expected) => real.verifyRegistration(response, expected),
        verifyAuthentication: async () => ({ verified: true, newCounter, userVerified: true }),
      };
      await withPasskeys(
        adapter,
        async ({ url }) => {
          const alice = await register(url);
          const device = newAuthenticator();
          await addPasskey(url, alice.accessToken, device);
          const refused = await signInWith(url, device);
          expect([refused.status, codeOf(refused.json)]).toEqual([401, 'WEBAUTHN_VERIFICATION_FAILED']);
          expect(setCookies(refused.headers, 'svc_session')).toEqual([]);
        },
        { verifier },
      );
    }
  });

  it('the ceremony cookie is Secure when the session cookie is', async () => {
    await withPasskeys(
      adapter,
      async ({ url }) => {
        const response = await post(url, '/auth/passkeys/login/options');
        const [line] = setCookies(response.headers, 'svc_passkey');
        expect(line).toMatch(/; HttpOnly; SameSite=Strict; Secure$/);
      },
      { secureCookie: true },
    );
  });

  it('an Auth without passkeys serves none of the passkey routes', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await withServer(adapter, { routes: [], plugins: [authPlugin({ auth })] }, async (url) => {
      const { accessToken } = await register(url);
      expect((await post(url, '/auth/passkeys/login/options')).status).toBe(404);
      expect((await get(url, '/auth/passkeys', bearer(accessToken))).status).toBe(404);
    });
  });
});

describe('the passkey routes of spec/modules/auth.yaml', () => {
  it('are account routes refusing API keys; the anonymous ones are rate-limited per IP; no challenge or token is replayed under an idempotency key', () => {
    const meta = Object.fromEntries(routeDefinitions.map((route) => [route.id, route.meta]));
    for (const id of PASSKEY_ROUTE_IDS) {
      expect(meta[id], id).toMatchObject({ apiKey: false, account: true, mfa: false });
    }
    for (const id of ['passkeyLoginOptions', 'passkeyLoginVerify']) {
      expect(meta[id]).toMatchObject({ rateLimit: { limit: 30, windowMs: 60_000 } });
      expect(meta[id]?.auth).toBeUndefined();
    }
    for (const id of ['passkeyRegisterOptions', 'passkeyRegisterVerify', 'passkeyList', 'passkeyRemove']) {
      expect(meta[id]?.auth).toBe(true);
    }
    for (const id of [
      'passkeyRegisterOptions',
      'passkeyRegisterVerify',
      'passkeyLoginOptions',
      'passkeyLoginVerify',
    ]) {
      expect(meta[id]?.idempotency).toBe(false);
    }
  });
});
