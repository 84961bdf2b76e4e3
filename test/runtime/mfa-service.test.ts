// MfaService: enrol, activate with a real TOTP code computed by otpauth from the returned secret, a code
// accepted once, each recovery code once, disable with a code, status, and re-sealing after a key rotation;
// concurrent uses of one code or one recovery code succeed once.
import { randomBytes } from 'node:crypto';
import { TOTP, Secret } from 'otpauth';
import { describe, expect, it } from 'vitest';
import { Auth, MemoryUserSource, type AuthEventPayloads } from 'svckit';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';

const T0 = Date.parse('2026-11-26T00:00:00Z');
const key = (id: string) => ({ id, material: randomBytes(32) });

function codeAt(secret: string, now: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: now,
  });
}

async function setUp(keys = [key('k1')]) {
  let now = T0;
  const users = new MemoryUserSource();
  const user = await users.create({ email: 'ada@example.com', emailVerified: true });
  const store = new MemoryMfaStore();
  const service = (box: SecretBox) =>
    new MfaService({ store, box, issuer: 'Notes API', users, clock: () => now });
  const mfa = service(new SecretBox({ keys }));
  return {
    mfa,
    store,
    service,
    userId: user.id,
    advance: (ms: number) => void (now += ms),
    now: () => now,
  };
}

async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: { code?: string }) => error.code,
  );
}

describe('MfaService', () => {
  it('enrols, activates with a real code, accepts a code once and each recovery code once, then disables', async () => {
    const { mfa, userId, advance, now } = await setUp();
    expect(await mfa.status(userId)).toEqual({ state: 'none', recoveryCodesLeft: 0 });
    const { secret, otpauthUri } = await mfa.enroll(userId);
    expect(otpauthUri).toMatch(/^otpauth:\/\/totp\/Notes%20API:ada%40example\.com\?/);
    expect(await mfa.isEnabled(userId)).toBe(false);
    expect(await rejection(mfa.activate(userId, '000000'))).toBe('AUTH_MFA_INVALID_CODE');

    const { recoveryCodes } = await mfa.activate(userId, codeAt(secret, now()));
    expect(recoveryCodes).toHaveLength(10);
    expect(new Set(recoveryCodes).size).toBe(10);
    expect(await mfa.status(userId)).toEqual({ state: 'enabled', recoveryCodesLeft: 10 });
    // The activation's code was used: the same code again is refused.
    expect(await mfa.verify(userId, codeAt(secret, now()))).toBe(false);

    advance(30_000);
    const next = codeAt(secret, now());
    expect(await mfa.accept(userId, next)).toBe('totp');
    expect(await mfa.accept(userId, next)).toBeUndefined();

    expect(await mfa.accept(userId, recoveryCodes[0]!.toUpperCase())).toBe('recovery');
    expect(await mfa.accept(userId, recoveryCodes[0]!)).toBeUndefined();
    expect((await mfa.status(userId)).recoveryCodesLeft).toBe(9);

    expect(await rejection(mfa.enroll(userId))).toBe('AUTH_MFA_ALREADY_ENABLED');
    expect(await rejection(mfa.disable(userId, '123456'))).toBe('AUTH_MFA_INVALID_CODE');
    await mfa.disable(userId, recoveryCodes[1]!);
    expect(await mfa.status(userId)).toEqual({ state: 'none', recoveryCodesLeft: 0 });
    expect(await rejection(mfa.disable(userId, recoveryCodes[2]!))).toBe('AUTH_MFA_NOT_ENROLLED');
  });

  it('a restarted enrolment is not activated by a code of the one it replaced', async () => {
    const { mfa, userId, now } = await setUp();
    const first = await mfa.enroll(userId);
    const second = await mfa.enroll(userId);
    expect(await rejection(mfa.activate(userId, codeAt(first.secret, now())))).toBe('AUTH_MFA_INVALID_CODE');
    await mfa.activate(userId, codeAt(second.secret, now()));
    expect(await mfa.isEnabled(userId)).toBe(true);
  });

  it('two activations at once: one answers the recovery codes, the other that MFA is already on', async () => {
    const { mfa, userId, now } = await setUp();
    const { secret } = await mfa.enroll(userId);
    const code = codeAt(secret, now());
    const answers = await Promise.all(
      [mfa.activate(userId, code), mfa.activate(userId, code)].map(async (p) =>
        p.then(
          () => 'ok',
          (error: { code?: string }) => error.code,
        ),
      ),
    );
    expect(answers.sort()).toEqual(['AUTH_MFA_ALREADY_ENABLED', 'ok']);
  });

  it('a disable that stalls after its code was checked never removes a later enrolment', async () => {
    const { mfa, store, userId, advance, now } = await setUp();
    const first = await mfa.enroll(userId);
    const { recoveryCodes } = await mfa.activate(userId, codeAt(first.secret, now()));
    // The first disable's removal waits until the test lets it go.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const remove = store.remove.bind(store);
    let calls = 0;
    store.remove = async (...args) => {
      if (calls++ === 0) await held;
      return remove(...args);
    };
    const stalled = mfa.disable(userId, recoveryCodes[0]!).then(
      () => 'removed',
      (error: { code?: string }) => error.code,
    );
    await new Promise((resolve) => setImmediate(resolve));
    await mfa.disable(userId, recoveryCodes[1]!);
    advance(60_000);
    const second = await mfa.enroll(userId);
    await mfa.activate(userId, codeAt(second.secret, now()));
    release();
    expect(await stalled).toBe('AUTH_MFA_NOT_ENROLLED');
    expect(await mfa.isEnabled(userId)).toBe(true);
  });

  it('a code checked against a secret that is disabled and enrolled again meanwhile is refused on the new one', async () => {
    const { mfa, store, userId, advance, now } = await setUp();
    const first = await mfa.enroll(userId);
    const { recoveryCodes } = await mfa.activate(userId, codeAt(first.secret, now()));
    advance(30_000);
    // The sign-in with the old secret's code stalls after its code was checked, before the step is used.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const useStep = store.useStep.bind(store);
    let calls = 0;
    store.useStep = async (...args) => {
      if (calls++ === 0) await held;
      return useStep(...args);
    };
    const stalled = mfa.verify(userId, codeAt(first.secret, now()));
    await new Promise((resolve) => setImmediate(resolve));
    await mfa.disable(userId, recoveryCodes[0]!);
    const second = await mfa.enroll(userId);
    // Activated with the previous step's code: the stalled code's step is later than the new last step.
    const { recoveryCodes: fresh } = await mfa.activate(userId, codeAt(second.secret, now() - 30_000));
    release();
    expect(await stalled).toBe(false);
    expect(await mfa.verify(userId, codeAt(second.secret, now()))).toBe(true);
    expect(fresh).toHaveLength(10);
  });

  it('one code sent 20 times at once is accepted once; so is one recovery code', async () => {
    const { mfa, userId, advance, now } = await setUp();
    const { secret } = await mfa.enroll(userId);
    const { recoveryCodes } = await mfa.activate(userId, codeAt(secret, now()));
    advance(30_000);
    const code = codeAt(secret, now());
    const totp = await Promise.all(Array.from({ length: 20 }, () => mfa.verify(userId, code)));
    expect(totp.filter(Boolean)).toHaveLength(1);
    const recovery = await Promise.all(
      Array.from({ length: 20 }, () => mfa.verify(userId, recoveryCodes[3]!)),
    );
    expect(recovery.filter(Boolean)).toHaveLength(1);
  });

  it('re-seals a secret after a key rotation; a row copied to another user does not open', async () => {
    const k1 = key('k1');
    const k2 = key('k2');
    const { mfa, service, store, userId, advance, now } = await setUp([k1]);
    const { secret } = await mfa.enroll(userId);
    await mfa.activate(userId, codeAt(secret, now()));
    const sealedWithK1 = (await store.get(userId))!.secret;

    const rotated = service(new SecretBox({ keys: [k2, k1] }));
    expect(await rotated.reencrypt(userId)).toBe('resealed');
    expect((await store.get(userId))!.secret).not.toBe(sealedWithK1);
    expect(await rotated.reencrypt(userId)).toBe('current');
    expect(await rotated.reencrypt('nobody')).toBe('none');
    // A record as a scan read it, re-sealed by someone else before its turn: left to that change.
    const [read] = await store.recordsAfter(undefined, 1);
    expect(await rotated.reseal({ ...read!, secret: sealedWithK1 })).toBe('changed');
    expect(await rotated.reseal(read!)).toBe('current');
    // Still the same secret: the authenticator app's next code works after the rotation.
    advance(30_000);
    expect(await rotated.verify(userId, codeAt(secret, now()))).toBe(true);

    // The sealed value moved to another user's row does not open there.
    const moved = (await store.get(userId))!.secret;
    expect(await store.enroll('mallory', moved, now())).toBe(true);
    expect(await store.activate('mallory', moved, [], 0, now())).toBe(true);
    expect(await rejection(rotated.verify('mallory', codeAt(secret, now() + 30_000)))).toBe(
      'AUTH_SECRET_UNREADABLE',
    );
  });
});

describe('Auth with two-factor sign-in', () => {
  const SECRET = 'a-test-secret-that-is-32-chars-!';
  const PASSWORD = 'correct horse battery';

  async function signedUp() {
    let now = T0;
    const events: { name: string; payload: unknown }[] = [];
    const users = new MemoryUserSource();
    const mfa = new MfaService({
      store: new MemoryMfaStore(),
      box: new SecretBox({ keys: [key('k1')] }),
      issuer: 'Notes API',
      users,
      clock: () => now,
    });
    const auth = new Auth({
      secret: SECRET,
      users,
      mfa,
      passwordHash: { ln: 4, r: 8, p: 1 },
      clock: () => now,
    });
    for (const name of ['auth:login', 'auth:login_failed', 'auth:mfa_enabled', 'auth:mfa_disabled'] as const)
      auth.hooks.on(name, (payload) => void events.push({ name, payload }));
    const { user } = await auth.register('ada@example.com', PASSWORD);
    const { secret } = await auth.enrollMfa(user.id);
    const { recoveryCodes } = await auth.activateMfa(user.id, codeAt(secret, now));
    now += 30_000;
    return {
      auth,
      user,
      secret,
      recoveryCodes,
      events,
      now: () => now,
      advance: (ms: number) => void (now += ms),
    };
  }

  it('a right password without a code answers AUTH_MFA_REQUIRED; with a code amr has mfa, kept by refreshes', async () => {
    const { auth, user, secret, recoveryCodes, events, now } = await signedUp();
    expect(events.map((event) => event.name)).toEqual(['auth:mfa_enabled']);
    expect(await auth.isMfaEnabled(user.id)).toBe(true);
    expect(await rejection(auth.login('ada@example.com', PASSWORD))).toBe('AUTH_MFA_REQUIRED');
    expect(await rejection(auth.login('ada@example.com', PASSWORD, '000000'))).toBe('AUTH_MFA_INVALID_CODE');

    const signedIn = await auth.login('ada@example.com', PASSWORD, codeAt(secret, now()));
    expect(signedIn.amr).toEqual(['pwd', 'mfa']);
    expect((await auth.verifyAccess(signedIn.tokens.accessToken)).amr).toEqual(['pwd', 'mfa']);
    const refreshed = await auth.refresh(signedIn.tokens.refreshToken);
    expect((await auth.verifyAccess(refreshed.accessToken)).amr).toEqual(['pwd', 'mfa']);
    // The same code again is refused.
    expect(await rejection(auth.login('ada@example.com', PASSWORD, codeAt(secret, now())))).toBe(
      'AUTH_MFA_INVALID_CODE',
    );
    const byRecovery = await auth.login('ada@example.com', PASSWORD, recoveryCodes[0]!);
    expect(byRecovery.amr).toEqual(['pwd', 'mfa']);
    const logins = events.filter((event) => event.name === 'auth:login').map((event) => event.payload);
    expect((logins as AuthEventPayloads['auth:login'][]).map((login) => login.secondFactor)).toEqual([
      'totp',
      'recovery',
    ]);
    const failures = events
      .filter((event) => event.name === 'auth:login_failed')
      .map((event) => event.payload);
    expect((failures as AuthEventPayloads['auth:login_failed'][]).map((failure) => failure.reason)).toEqual([
      'mfa_required',
      'mfa_invalid',
      'mfa_invalid',
    ]);

    await auth.disableMfa(user.id, recoveryCodes[1]!);
    expect(events.at(-1)?.name).toBe('auth:mfa_disabled');
    expect((await auth.login('ada@example.com', PASSWORD)).amr).toEqual(['pwd']);
  });

  it('50 logins at once without a code, then the right password with a code, from one address: locked as with wrong passwords', async () => {
    const { auth, secret, now } = await signedUp();
    const answers = await Promise.all(
      Array.from({ length: 50 }, () =>
        rejection(auth.login('ada@example.com', PASSWORD, undefined, { ip: '203.0.113.9' })),
      ),
    );
    // The throttle's limit of 5 failures per email: at most 4 reach the password and learn a code is needed.
    expect(answers.filter((code) => code === 'AUTH_MFA_REQUIRED').length).toBeLessThanOrEqual(4);
    expect(answers.filter((code) => code === 'AUTH_LOCKED').length).toBeGreaterThanOrEqual(46);
    expect(
      await rejection(auth.login('ada@example.com', PASSWORD, codeAt(secret, now()), { ip: '203.0.113.9' })),
    ).toBe('AUTH_LOCKED');
  });

  it('without an MfaService, the MFA methods say so, and isMfaEnabled is false', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: { ln: 4, r: 8, p: 1 } });
    expect(auth.mfaEnabled).toBe(false);
    // An MFA policy given to the wrong object is refused, not silently ignored.
    expect(() => new Auth({ secret: SECRET, requireMfa: true } as never)).toThrow(
      /unknown option "requireMfa"/,
    );
    expect(await auth.isMfaEnabled('anyone')).toBe(false);
    await expect(auth.enrollMfa('anyone')).rejects.toMatchObject({ code: 'OPTION_INVALID' });
    expect(
      () =>
        new Auth({
          secret: SECRET,
          mfa: {} as MfaService,
          secondFactor: { isEnabled: async () => false, verify: async () => false },
        }),
    ).toThrow(/not both/);
  });
});
