// The passkey service's ceremony rules with real WebAuthn responses (a software authenticator, svckit's
// default verifier): challenges bound to the caller and the user, single use and expiring; a credential id
// registered once; a sign-in named for one user refusing another's passkey; the counter moved only forward by
// a compare-and-set; removal by the owner only; the relying party configuration checked at construction.
import { describe, expect, it } from 'vitest';
import { HttpError } from '../../runtime/http/errors.js';
import { MemoryChallengeStore, MemoryPasskeyStore } from '../../runtime/auth/passkeys/memory-store.js';
import {
  PasskeyService,
  webauthnPlugin,
  type PasskeyServiceOptions,
} from '../../runtime/auth/passkeys/service.js';
import { simpleWebauthnVerifier } from '../../runtime/auth/passkeys/simplewebauthn-verifier.js';
import type { PasskeyCredential, PasskeyStore } from '../../runtime/auth/passkeys/store.js';
import type { RegisteredCredential, WebauthnVerifier } from '../../runtime/auth/passkeys/verifier.js';
import { SoftwareAuthenticator } from '../helpers/software-authenticator.js';

const ORIGIN = 'http://localhost:3000';
const CONFIG = { rpId: 'localhost', rpName: 'Notes', origin: ORIGIN };

function service(overrides: Partial<PasskeyServiceOptions> = {}) {
  let now = 1_700_000_000_000;
  const clock = { advance: (ms: number) => (now += ms) };
  const passkeys = webauthnPlugin({
    config: CONFIG,
    verifier: simpleWebauthnVerifier(),
    clock: () => now,
    ...overrides,
  });
  return { passkeys, clock };
}

/** The code an HttpError carries, or 'no error'. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'no error';
  } catch (error) {
    if (error instanceof HttpError) return `${error.status} ${error.code}`;
    throw error;
  }
}

/** Registers one passkey for `userId` on `device` through the service; answers its credential id. */
async function register(passkeys: PasskeyService, device: SoftwareAuthenticator, userId: string, key = 's1') {
  const options = await passkeys.startRegistration(key, { id: userId, name: `${userId}@example.com` });
  const view = await passkeys.finishRegistration(key, userId, device.register(options), 'Laptop');
  return view.id;
}

async function signIn(passkeys: PasskeyService, device: SoftwareAuthenticator, key = 's2', userId?: string) {
  const options = await passkeys.startAuthentication(key, userId);
  return passkeys.finishAuthentication(key, device.authenticate(options));
}

describe('PasskeyService', () => {
  it('registers a passkey, lists it without its public key, and signs its owner in', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const options = await passkeys.startRegistration('s1', { id: 'u1', name: 'ada@example.com' });
    expect(options).toMatchObject({
      rp: { id: 'localhost', name: 'Notes' },
      user: { id: Buffer.from('u1').toString('base64url'), name: 'ada@example.com' },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      excludeCredentials: [],
    });
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const view = await passkeys.finishRegistration('s1', 'u1', device.register(options), '  Laptop  ');
    expect(view).toMatchObject({ label: 'Laptop', transports: ['internal'], lastUsedAt: undefined });
    expect(await passkeys.list('u1')).toEqual([view]);
    expect(JSON.stringify(await passkeys.list('u1'))).not.toContain('publicKey');

    // A second registration lists the first for the browser to exclude.
    const again = await passkeys.startRegistration('s1', { id: 'u1', name: 'ada@example.com' });
    expect(again.excludeCredentials).toEqual([{ type: 'public-key', id: view.id, transports: ['internal'] }]);

    expect(await signIn(passkeys, device)).toEqual({
      userId: 'u1',
      credentialId: view.id,
      userVerified: true,
    });
    expect((await passkeys.list('u1'))[0]!.lastUsedAt).toBeTypeOf('number');
  });

  it('binds a registration to the user it was started for', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const options = await passkeys.startRegistration('s1', { id: 'u1', name: 'ada@example.com' });
    expect(await codeOf(passkeys.finishRegistration('s1', 'u2', device.register(options)))).toBe(
      '403 WEBAUTHN_SUBJECT_MISMATCH',
    );
    expect(await passkeys.list('u2')).toEqual([]);
  });

  it('refuses a credential id registered already, to anyone, and keeps the first owner', async () => {
    const store = new MemoryPasskeyStore();
    const real = simpleWebauthnVerifier();
    let first: RegisteredCredential | undefined;
    // An authenticator that answers every registration with the credential it made first.
    const verifier: WebauthnVerifier = {
      async verifyRegistration(response, expected) {
        const result = await real.verifyRegistration(response, expected);
        if (!result.verified) return result;
        first ??= result.credential;
        return { ...result, credential: first };
      },
      verifyAuthentication: (response, expected, credential) =>
        real.verifyAuthentication(response, expected, credential),
    };
    const { passkeys } = service({ verifier, credentials: store });
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1', 'k1');
    const again = await passkeys.startRegistration('k2', { id: 'u2', name: 'bob@example.com' });
    expect(await codeOf(passkeys.finishRegistration('k2', 'u2', device.register(again)))).toBe(
      '409 PASSKEY_EXISTS',
    );
    expect((await store.get(id))?.userId).toBe('u1');
    expect(await passkeys.list('u2')).toEqual([]);
  });

  it('takes a challenge once, refuses it expired, and keeps the two ceremonies apart', async () => {
    const { passkeys, clock } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(passkeys, device, 'u1');
    const options = await passkeys.startAuthentication('s2');
    const assertion = device.authenticate(options);
    await passkeys.finishAuthentication('s2', assertion);
    expect(await codeOf(passkeys.finishAuthentication('s2', assertion))).toBe(
      '400 WEBAUTHN_CHALLENGE_INVALID',
    );

    const late = await passkeys.startAuthentication('s2');
    clock.advance(5 * 60_000 + 1);
    expect(await codeOf(passkeys.finishAuthentication('s2', device.authenticate(late)))).toBe(
      '400 WEBAUTHN_CHALLENGE_INVALID',
    );
    // A registration's challenge cannot finish a sign-in, nor the other way round.
    const reg = await passkeys.startRegistration('s4', { id: 'u1', name: 'a' });
    expect(
      await codeOf(passkeys.finishAuthentication('s4', device.authenticate({ challenge: reg.challenge }))),
    ).toBe('400 WEBAUTHN_CHALLENGE_INVALID');
    // Another caller's key never finds the challenge.
    const mine = await passkeys.startAuthentication('s5');
    expect(await codeOf(passkeys.finishAuthentication('other', device.authenticate(mine)))).toBe(
      '400 WEBAUTHN_CHALLENGE_INVALID',
    );
  });

  it("refuses another account's passkey when the sign-in was started for a user", async () => {
    const { passkeys } = service();
    const ada = new SoftwareAuthenticator({ origin: ORIGIN });
    const bob = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(passkeys, ada, 'u1', 'r1');
    await register(passkeys, bob, 'u2', 'r2');
    const options = await passkeys.startAuthentication('s2', 'u1');
    // Named or not, the options list no passkeys: listing them would tell the account exists.
    expect(options.allowCredentials).toEqual([]);
    expect(await codeOf(passkeys.finishAuthentication('s2', bob.authenticate(options)))).toBe(
      '403 WEBAUTHN_SUBJECT_MISMATCH',
    );
    expect((await signIn(passkeys, ada, 's3', 'u1')).userId).toBe('u1');
  });

  it('answers 401 PASSKEY_CLONED for a counter that does not go up, and for the loser of a race', async () => {
    const store = new MemoryPasskeyStore();
    const { passkeys } = service({ credentials: store });
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1');
    await signIn(passkeys, device, 'a'); // counter 1
    await signIn(passkeys, device, 'b'); // counter 2
    const before = await store.get(id);
    const clone = device.clone();
    clone.setCounter(id, 0); // the clone's next assertion reports 1: below the stored 2
    expect(await codeOf(signIn(passkeys, clone, 'c'))).toBe('401 PASSKEY_CLONED');
    clone.setCounter(id, 1); // reports 2: equal, not above
    expect(await codeOf(signIn(passkeys, clone, 'e'))).toBe('401 PASSKEY_CLONED');
    // A refused assertion leaves the credential as it was: counter and last use.
    expect(await store.get(id)).toEqual(before);
    expect(await signIn(passkeys, device, 'd')).toMatchObject({ userId: 'u1' }); // counter 3: fine

    // Two sign-ins verified against the same stored counter: the compare-and-set lets one through.
    const racing = new MemoryPasskeyStore();
    const raced = service({ credentials: racing }).passkeys;
    const phone = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(raced, phone, 'u1');
    const [first, second] = [phone.clone(), phone.clone()];
    const results = await Promise.all([
      codeOf(signIn(raced, first, 'x')),
      codeOf(signIn(raced, second, 'y')),
    ]);
    expect(results.sort()).toEqual(['401 PASSKEY_CLONED', 'no error']);
    // The winner's counter is the one stored.
    expect((await racing.get(phone.credentialIds[0]!))?.counter).toBe(1);
  });

  it('lets a later assertion of the same authenticator through when an earlier one moved the counter first', async () => {
    const store = new MemoryPasskeyStore();
    const { passkeys } = service({ credentials: store });
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1');
    const first = device.authenticate(await passkeys.startAuthentication('a')); // counter 1
    const second = device.authenticate(await passkeys.startAuthentication('b')); // counter 2
    // The second is verified against the stored 0, then the first lands before its compare-and-set.
    const original = store.updateCounter.bind(store);
    let raced = false;
    store.updateCounter = async (credentialId, expected, next, now) => {
      if (!raced && next === 2) {
        raced = true;
        await original(credentialId, expected, 1, now);
      }
      return original(credentialId, expected, next, now);
    };
    expect((await passkeys.finishAuthentication('b', second)).userId).toBe('u1');
    expect((await store.get(id))?.counter).toBe(2);
    // The earlier one now reports a counter already passed: refused.
    expect(await codeOf(passkeys.finishAuthentication('a', first))).toBe('401 PASSKEY_CLONED');
  });

  it('answers a passkey removed while its sign-in was verified as unknown, not as a clone', async () => {
    const store = new MemoryPasskeyStore();
    const { passkeys } = service({ credentials: store });
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1');
    const assertion = device.authenticate(await passkeys.startAuthentication('a'));
    const original = store.updateCounter.bind(store);
    store.updateCounter = async (credentialId, expected, next, now) => {
      await store.remove('u1', id);
      return original(credentialId, expected, next, now);
    };
    expect(await codeOf(passkeys.finishAuthentication('a', assertion))).toBe(
      '401 WEBAUTHN_VERIFICATION_FAILED',
    );
  });

  it('accepts an authenticator that keeps no counter (0 every time)', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1');
    device.setCounter(id, -1); // reports 0
    expect((await signIn(passkeys, device, 'a')).userId).toBe('u1');
    device.setCounter(id, -1);
    expect((await signIn(passkeys, device, 'b')).userId).toBe('u1');
    // Once a counter is in use, 0 is a step back.
    device.setCounter(id, 4);
    await signIn(passkeys, device, 'c');
    device.setCounter(id, -1);
    expect(await codeOf(signIn(passkeys, device, 'd'))).toBe('401 PASSKEY_CLONED');
  });

  it('lets one of 20 concurrent sign-ins with the same assertion through', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(passkeys, device, 'u1');
    const options = await passkeys.startAuthentication('s2');
    const assertion = device.authenticate(options);
    const results = await Promise.all(
      Array.from({ length: 20 }, () => codeOf(passkeys.finishAuthentication('s2', assertion))),
    );
    expect(results.filter((result) => result === 'no error')).toHaveLength(1);
    expect(new Set(results.filter((result) => result !== 'no error'))).toEqual(
      new Set(['400 WEBAUTHN_CHALLENGE_INVALID']),
    );
  });

  it('refuses a counter from a verifier that is not a whole number, 0 or more', async () => {
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const real = simpleWebauthnVerifier();
    for (const bad of [1.5, -1, Number.NaN, '3' as unknown as number]) {
      const verifier: WebauthnVerifier = {
        verifyRegistration: (response, expected) => real.verifyRegistration(response, expected),
        verifyAuthentication: async () => ({ verified: true, newCounter: bad, userVerified: true }),
      };
      const { passkeys } = service({ verifier });
      await register(passkeys, device, 'u1', `r${String(bad)}`);
      expect(await codeOf(signIn(passkeys, device, `s${String(bad)}`))).toBe(
        '401 WEBAUTHN_VERIFICATION_FAILED',
      );
      const registering: WebauthnVerifier = {
        verifyRegistration: async () => ({
          verified: true,
          credential: { id: 'x', publicKey: 'y', counter: bad, transports: [] },
          userVerified: true,
        }),
        verifyAuthentication: real.verifyAuthentication,
      };
      const other = service({ verifier: registering }).passkeys;
      const start = await other.startRegistration('k', { id: 'u1', name: 'a' });
      expect(await codeOf(other.finishRegistration('k', 'u1', device.register(start)))).toBe(
        '400 WEBAUTHN_VERIFICATION_FAILED',
      );
    }
  });

  it('refuses at construction a store without the compare-and-set', () => {
    const memory = new MemoryPasskeyStore();
    const outdated = {
      add: (credential: PasskeyCredential, maxPerUser: number) => memory.add(credential, maxPerUser),
      get: (id: string) => memory.get(id),
      listByUser: (userId: string) => memory.listByUser(userId),
      remove: (userId: string, id: string) => memory.remove(userId, id),
    } as unknown as PasskeyStore;
    let code = 'no error';
    try {
      service({ credentials: outdated });
    } catch (error) {
      code = (error as HttpError).code;
    }
    expect(code).toBe('PASSKEY_STORE_OUTDATED');
    expect(() => service({ credentials: memory })).not.toThrow();
  });

  it('removes a passkey for its owner only', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const id = await register(passkeys, device, 'u1');
    expect(await codeOf(passkeys.remove('u2', id))).toBe('404 PASSKEY_NOT_FOUND');
    expect(await codeOf(passkeys.remove('u1', 'no-such-id'))).toBe('404 PASSKEY_NOT_FOUND');
    expect(await passkeys.list('u1')).toHaveLength(1);
    await passkeys.remove('u1', id);
    expect(await passkeys.list('u1')).toEqual([]);
    expect(await codeOf(signIn(passkeys, device))).toBe('401 WEBAUTHN_VERIFICATION_FAILED');
  });

  it("asks for user verification as configured ('preferred' by default)", async () => {
    const lax = service().passkeys;
    expect(lax.userVerification).toBe('preferred');
    const device = new SoftwareAuthenticator({ origin: ORIGIN, userVerified: false });
    await register(lax, device, 'u1');
    expect(await signIn(lax, device)).toMatchObject({ userVerified: false });

    const strict = service({ userVerification: 'required' }).passkeys;
    const options = await strict.startRegistration('s1', { id: 'u1', name: 'a' });
    expect(options.authenticatorSelection.userVerification).toBe('required');
    expect(await codeOf(strict.finishRegistration('s1', 'u1', device.register(options)))).toBe(
      '400 WEBAUTHN_VERIFICATION_FAILED',
    );
  });

  it('asks the user handle of a sign-in started without naming the user', async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(passkeys, device, 'u1');
    const strip = (assertion: ReturnType<SoftwareAuthenticator['authenticate']>) => {
      const { userHandle: _handle, ...response } = assertion.response;
      return { ...assertion, response };
    };
    const anonymous = device.authenticate(await passkeys.startAuthentication('s2'));
    expect(await codeOf(passkeys.finishAuthentication('s2', strip(anonymous)))).toBe(
      '401 WEBAUTHN_VERIFICATION_FAILED',
    );
    // Started for the user, the server knows whose passkey to expect: the handle may be left out.
    const named = device.authenticate(await passkeys.startAuthentication('s3', 'u1'));
    expect((await passkeys.finishAuthentication('s3', strip(named))).userId).toBe('u1');
  });

  it('keeps a credential id of at most 1023 bytes and only the transports WebAuthn names', async () => {
    const real = simpleWebauthnVerifier();
    const registering = (id: string, transports: string[]): WebauthnVerifier => ({
      async verifyRegistration(response, expected) {
        const result = await real.verifyRegistration(response, expected);
        return result.verified ? { ...result, credential: { ...result.credential, id, transports } } : result;
      },
      verifyAuthentication: (response, expected, credential) =>
        real.verifyAuthentication(response, expected, credential),
    });
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    const longest = Buffer.alloc(1023, 7).toString('base64url');
    const { passkeys } = service({
      verifier: registering(longest, ['internal', 'hybrid', 'internal', 'telepathy', 'usb']),
    });
    const kept = await passkeys.finishRegistration(
      's1',
      'u1',
      device.register(await passkeys.startRegistration('s1', { id: 'u1', name: 'a' })),
    );
    expect(kept.id).toBe(longest);
    expect(kept.transports).toEqual(['internal', 'hybrid', 'usb']);
    for (const id of [Buffer.alloc(1024, 7).toString('base64url'), 'not base64url!', 'AB=']) {
      const refusing = service({ verifier: registering(id, []) }).passkeys;
      const options = await refusing.startRegistration('s1', { id: 'u1', name: 'a' });
      expect(await codeOf(refusing.finishRegistration('s1', 'u1', device.register(options)))).toBe(
        '400 WEBAUTHN_VERIFICATION_FAILED',
      );
    }
  });

  it("refuses an assertion whose user handle is not the credential's owner", async () => {
    const { passkeys } = service();
    const device = new SoftwareAuthenticator({ origin: ORIGIN });
    await register(passkeys, device, 'u1');
    const options = await passkeys.startAuthentication('s2');
    const assertion = device.authenticate(options);
    const forged = {
      ...assertion,
      response: { ...assertion.response, userHandle: Buffer.from('u2').toString('base64url') },
    };
    expect(await codeOf(passkeys.finishAuthentication('s2', forged))).toBe(
      '401 WEBAUTHN_VERIFICATION_FAILED',
    );
  });

  it('checks the relying party and refuses unknown options', () => {
    const make =
      (config: unknown, extra: Record<string, unknown> = {}) =>
      () =>
        new PasskeyService({
          config,
          verifier: simpleWebauthnVerifier(),
          challenges: new MemoryChallengeStore(),
          ...extra,
        } as PasskeyServiceOptions);
    expect(make({ ...CONFIG, origin: ['http://localhost:3000', 'https://app.localhost'] })).not.toThrow();
    expect(make({ rpId: 'example.com', rpName: 'x', origin: 'https://app.example.com' })).not.toThrow();
    expect(make({ ...CONFIG, rpId: 'https://localhost' })).toThrow(/rpId/);
    expect(make({ ...CONFIG, rpId: 'localhost:3000' })).toThrow(/rpId/);
    expect(make({ ...CONFIG, origin: 'http://example.com' })).toThrow(/origin/);
    expect(make({ rpId: 'example.com', rpName: 'x', origin: 'http://example.com' })).toThrow(/origin/);
    expect(make({ rpId: 'example.com', rpName: 'x', origin: 'https://evil.com' })).toThrow(/origin/);
    expect(make({ rpId: 'example.com', rpName: 'x', origin: 'https://notexample.com' })).toThrow(/origin/);
    expect(make({ ...CONFIG, origin: 'http://localhost:3000/' })).toThrow(/origin/);
    expect(make({ ...CONFIG, origin: [] })).toThrow(/origin/);
    expect(make({ ...CONFIG, rpName: '' })).toThrow(/rpName/);
    expect(make({ ...CONFIG, extra: 1 })).toThrow(/extra/);
    expect(make(CONFIG, { verifyer: {} })).toThrow(/verifyer/);
    expect(make(CONFIG, { userVerification: 'always' })).toThrow(/userVerification/);
    expect(make(CONFIG, { challengeTtlMs: 10 })).toThrow(/challengeTtlMs/);
    expect(make(CONFIG, { verifier: {} })).toThrow(/verifier/);
  });
});
