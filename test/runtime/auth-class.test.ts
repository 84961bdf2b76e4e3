// The Auth class as applications call it, the
// `modules.auth` settings and the development secret. The HTTP behaviour is in test/http/auth.test.ts.
import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  Auth,
  MemoryUserSource,
  authModule,
  developmentSecret,
  hashPassword,
  serviceSecret,
  type AuthUser,
  type HttpError,
  type UserSource,
} from 'svckit';

const SECRET = 'a-test-secret-that-is-32-chars-!';
const FAST_HASH = { ln: 4, r: 8, p: 1 };

async function caught(action: Promise<unknown> | (() => unknown)): Promise<HttpError> {
  try {
    await (typeof action === 'function' ? action() : action);
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('expected a throw');
}

describe('Auth', () => {
  it('refuses a signing secret under 32 characters unless NODE_ENV is exactly development or test', async () => {
    for (const nodeEnv of [undefined, 'production', 'staging', 'Development']) {
      expect((await caught(() => new Auth({ secret: 'short', nodeEnv }))).code).toBe('AUTH_WEAK_SECRET');
    }
    for (const nodeEnv of ['development', 'test'])
      expect(new Auth({ secret: 'short', nodeEnv })).toBeInstanceOf(Auth);
    expect(new Auth({ secret: SECRET, nodeEnv: 'production' })).toBeInstanceOf(Auth);
  });

  it('checks its lifetimes: durations in ms or with a unit, at least a second', async () => {
    expect(new Auth({ secret: SECRET, accessTtl: '5m', refreshTtl: 60_000 }).ttls).toMatchObject({
      accessTtl: 300_000,
      refreshTtl: 60_000,
      sessionTtl: 30 * 86_400_000,
      verificationTtl: 86_400_000,
      resetTtl: 3_600_000,
    });
    for (const bad of ['15 minutes', -1, 500, '1.5h']) {
      expect(() => new Auth({ secret: SECRET, accessTtl: bad })).toThrow(/accessTtl/);
    }
  });

  it('attempt() checks credentials without side effects', async () => {
    const events: string[] = [];
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    auth.hooks.on('auth:login_failed', () => void events.push('failed'));
    const { user } = await auth.register('Bob@Example.com', 'password one');
    expect(user.email).toBe('bob@example.com');
    expect(await auth.attempt('BOB@example.com', 'password one')).toEqual(user);
    for (let n = 0; n < 10; n++) expect(await auth.attempt('bob@example.com', 'wrong')).toBeNull();
    // No throttle counted, no event: login still works.
    expect(events).toEqual([]);
    expect((await auth.login('bob@example.com', 'password one')).user).toEqual(user);
  });

  it('login rehashes a password stored with other parameters', async () => {
    const users = new MemoryUserSource();
    const old = await hashPassword('password one', { ln: 3, r: 8, p: 1 });
    const created = await users.create({ email: 'old@example.com', passwordHash: old, emailVerified: true });
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users });
    await auth.login('old@example.com', 'password one');
    const after = (await users.findById(created.id))?.passwordHash ?? '';
    expect(after).toMatch(/^\$scrypt\$ln=4,r=8,p=1\$/);
    expect((await auth.login('old@example.com', 'password one')).user.id).toBe(created.id);
  });

  it('a passwordless account (social login) cannot sign in with any password', async () => {
    const users = new MemoryUserSource();
    await users.create({ email: 'fed@example.com', emailVerified: true });
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users });
    expect((await caught(auth.login('fed@example.com', ''))).code).toBe('AUTH_INVALID_CREDENTIALS');
  });

  it('two rows differing only in email case are ambiguous: AUTH_EMAIL_AMBIGUOUS, never a pick', async () => {
    const rows: AuthUser[] = [
      { id: '1', email: 'Twin@example.com', emailVerified: true },
      { id: '2', email: 'twin@example.com', emailVerified: true },
    ];
    const auth = new Auth({
      secret: SECRET,
      passwordHash: FAST_HASH,
      users: new MemoryUserSource({ users: rows }),
    });
    const error = await caught(auth.login('twin@example.com', 'whatever'));
    expect([error.status, error.code]).toEqual([500, 'AUTH_EMAIL_AMBIGUOUS']);
  });

  describe('the login throttle under concurrency', () => {
    /** A user source counting lookups by email: login makes one before each password it hashes. */
    function countingSource() {
      const memory = new MemoryUserSource();
      const counter = { lookups: 0, failing: 0 };
      const users: UserSource = {
        findByEmail: async (email) => {
          counter.lookups++;
          if (counter.failing > 0) {
            counter.failing--;
            throw new Error('database down');
          }
          return memory.findByEmail(email);
        },
        findById: (id) => memory.findById(id),
        create: (user) => memory.create(user),
        update: (id, patch) => memory.update(id, patch),
      };
      return { users, counter };
    }

    async function answers(attempts: Promise<unknown>[]): Promise<string[]> {
      const settled = await Promise.allSettled(attempts);
      return settled.map((result) =>
        result.status === 'fulfilled' ? 'ok' : String((result.reason as HttpError).code),
      );
    }

    const tally = (codes: string[]) =>
      codes.reduce<Record<string, number>>(
        (counts, code) => ({ ...counts, [code]: (counts[code] ?? 0) + 1 }),
        {},
      );

    it('checks at most 5 of 50 wrong passwords sent at once; the right one right after answers AUTH_LOCKED', async () => {
      const { users, counter } = countingSource();
      // A slower hash than FAST_HASH, so the attempts really overlap while passwords are checked.
      const auth = new Auth({ secret: SECRET, passwordHash: { ln: 10, r: 8, p: 1 }, users });
      const reasons: string[] = [];
      auth.hooks.on('auth:login_failed', ({ reason }) => void reasons.push(reason));
      await auth.register('burst@example.com', 'the right password');
      counter.lookups = 0;
      const from = { ip: '203.0.113.9' };
      const burst = await answers(
        Array.from({ length: 50 }, () =>
          auth.login('burst@example.com', 'a wrong password', undefined, from),
        ),
      );
      expect(counter.lookups).toBeLessThanOrEqual(5);
      expect(tally(burst)).toEqual({ AUTH_INVALID_CREDENTIALS: 4, AUTH_LOCKED: 46 });
      expect(
        (await answers([auth.login('burst@example.com', 'the right password', undefined, from)]))[0],
      ).toBe('AUTH_LOCKED');
      expect(counter.lookups).toBeLessThanOrEqual(5);
      expect(tally(reasons)).toEqual({ wrong_password: 5, locked: 46 });
    });

    it('a right password without the MFA code spends the budget like a wrong one, at once too', async () => {
      const { users, counter } = countingSource();
      let codeChecks = 0;
      const secondFactor = {
        isEnabled: async () => true,
        verify: async (_userId: string, code: string) => {
          codeChecks++;
          return code === '123456';
        },
      };
      const auth = new Auth({ secret: SECRET, passwordHash: { ln: 10, r: 8, p: 1 }, users, secondFactor });
      await auth.register('mfa@example.com', 'the right password');
      counter.lookups = 0;
      const noCode = await answers(
        Array.from({ length: 20 }, () => auth.login('mfa@example.com', 'the right password')),
      );
      expect(counter.lookups).toBeLessThanOrEqual(5);
      expect(tally(noCode)).toEqual({ AUTH_MFA_REQUIRED: 4, AUTH_LOCKED: 16 });
      // Guessing codes is throttled the same way: a locked account checks none, the right one included.
      const withCode = await answers([
        auth.login('mfa@example.com', 'the right password', '000000'),
        auth.login('mfa@example.com', 'the right password', '123456'),
      ]);
      expect(withCode).toEqual(['AUTH_LOCKED', 'AUTH_LOCKED']);
      expect(codeChecks).toBe(0);
    });

    it('a wrong MFA code spends the budget; a success clears the account counter', async () => {
      const secondFactor = {
        isEnabled: async () => true,
        verify: async (_userId: string, code: string) => code === '123456',
      };
      const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, secondFactor });
      await auth.register('code@example.com', 'the right password');
      const login = (code: string) => answers([auth.login('code@example.com', 'the right password', code)]);
      for (let n = 0; n < 4; n++) expect(await login('000000')).toEqual(['AUTH_MFA_INVALID_CODE']);
      expect(await login('123456')).toEqual(['ok']);
      for (let n = 0; n < 4; n++) expect(await login('000000')).toEqual(['AUTH_MFA_INVALID_CODE']);
      expect(await login('000000')).toEqual(['AUTH_LOCKED']);
      expect(await login('123456')).toEqual(['AUTH_LOCKED']);
    });

    it('an attempt whose user lookup fails checks no password and costs nothing', async () => {
      const { users, counter } = countingSource();
      const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users });
      await auth.register('flaky@example.com', 'the right password');
      counter.failing = 10;
      for (let n = 0; n < 10; n++) {
        await expect(auth.login('flaky@example.com', 'a wrong password')).rejects.toThrow('database down');
      }
      const wrong = () => answers([auth.login('flaky@example.com', 'a wrong password')]);
      for (let n = 0; n < 4; n++) expect(await wrong()).toEqual(['AUTH_INVALID_CREDENTIALS']);
      expect(await wrong()).toEqual(['AUTH_LOCKED']);
    });
  });

  it('usersByIds keeps its rules over a source without findByIds', async () => {
    const memory = new MemoryUserSource();
    let lookups = 0;
    const source: UserSource = {
      findByEmail: (email) => memory.findByEmail(email),
      findById: (id) => {
        lookups++;
        return memory.findById(id);
      },
      create: (user) => memory.create(user),
    };
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, users: source });
    const a = (await auth.register('a@example.com', 'password a')).user;
    const b = (await auth.register('b@example.com', 'password b')).user;
    lookups = 0;
    expect(await auth.usersByIds([])).toEqual([]);
    expect(lookups).toBe(0);
    const found = await auth.usersByIds([b.id, 'missing', a.id, b.id]);
    expect(found).toEqual([b, a]);
    expect(JSON.stringify(found)).not.toContain('passwordHash');
  });

  it('sessions: createSession, sessionUser, sessionAuth with amr, logout', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    const { user } = await auth.register('s@example.com', 'password s');
    const id = await auth.createSession(user.id, { amr: ['pwd', 'mfa'] });
    expect(await auth.sessionUser(id)).toEqual(user);
    expect(await auth.sessionAuth(id)).toEqual({ user, amr: ['pwd', 'mfa'] });
    await auth.logout(id);
    expect(await auth.sessionAuth(id)).toBeNull();
    // A session id signed by another secret never resolves.
    const other = await new Auth({ secret: `${SECRET}x` }).createSession(user.id);
    expect(await auth.sessionUser(other)).toBeNull();
  });

  describe('a password reset racing a sign-in or a rotation wins', () => {
    /** A user source whose next lookup (by email or id) waits until `release()`. */
    function gatedSource() {
      const memory = new MemoryUserSource();
      let gate: Promise<void> | undefined;
      let release = () => {};
      let reached = () => {};
      const arrived = () => new Promise<void>((resolve) => (reached = resolve));
      const hold = async () => {
        const waiting = gate;
        gate = undefined;
        if (waiting) {
          reached();
          await waiting;
        }
      };
      const users: UserSource = {
        findByEmail: async (email) => {
          const user = await memory.findByEmail(email);
          await hold();
          return user;
        },
        findById: async (id) => {
          const user = await memory.findById(id);
          await hold();
          return user;
        },
        create: (user) => memory.create(user),
        update: (id, patch) => memory.update(id, patch),
      };
      const close = () => {
        gate = new Promise<void>((resolve) => (release = resolve));
        return arrived();
      };
      return { users, close, release: () => release() };
    }

    async function setUp() {
      let now = 1_800_000_000_000;
      const source = gatedSource();
      const auth = new Auth({
        secret: SECRET,
        passwordHash: FAST_HASH,
        users: source.users,
        clock: () => now,
      });
      const tokens: string[] = [];
      auth.hooks.on('auth:password_reset_requested', ({ token }) => void tokens.push(token));
      const { tokens: pair } = await auth.register('race@example.com', 'old password 1');
      await auth.requestPasswordReset('race@example.com');
      await new Promise((resolve) => setImmediate(resolve));
      return { auth, source, pair, resetToken: tokens[0] ?? '', tick: () => void (now += 10) };
    }

    it('a sign-in that checked the old password fails and keeps no session', async () => {
      const { auth, source, resetToken, tick } = await setUp();
      const before = (auth.sessions as unknown as { size: number }).size;
      const reached = source.close();
      const login = auth.login('race@example.com', 'old password 1', undefined, { session: true });
      await reached; // the sign-in holds the old record
      tick();
      await auth.resetPassword(resetToken, 'new password 1');
      source.release();
      expect((await caught(login)).code).toBe('AUTH_INVALID_CREDENTIALS');
      expect((auth.sessions as unknown as { size: number }).size).toBe(before);
    });

    it('a rotation that began before the reset yields a refresh token that is already revoked', async () => {
      const { auth, source, pair, resetToken, tick } = await setUp();
      const reached = source.close();
      const rotation = auth.refresh(pair.refreshToken);
      await reached; // marked used, looking the user up
      tick();
      await auth.resetPassword(resetToken, 'new password 1');
      tick(); // the rotation finishes later than the reset
      source.release();
      const rotated = await rotation;
      expect((await caught(auth.refresh(rotated.refreshToken))).code).toBe('AUTH_REFRESH_INVALID');
    });
  });

  it('a session ends after sessionTtl (30 days by default)', async () => {
    let now = 1_800_000_000_000;
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH, clock: () => now });
    const { user } = await auth.register('ttl@example.com', 'password ttl');
    const id = await auth.createSession(user.id);
    now += 30 * 86_400_000 - 1;
    expect(await auth.sessionUser(id)).toEqual(user);
    now += 1;
    expect(await auth.sessionUser(id)).toBeNull();
  });

  it('a failing event listener is reported and never fails the call that raised it', async () => {
    const reported: string[] = [];
    const auth = new Auth({
      secret: SECRET,
      passwordHash: FAST_HASH,
      onEventError: (_error, event) => void reported.push(event),
    });
    auth.hooks.on('auth:registered', () => {
      throw new Error('mailer down');
    });
    expect((await auth.register('e@example.com', 'password e')).user.email).toBe('e@example.com');
    expect(reported).toEqual(['auth:registered']);
  });

  it('the mail events do not hold up the request: a slow listener runs after the call returned', async () => {
    const auth = new Auth({ secret: SECRET, passwordHash: FAST_HASH });
    await auth.register('slow@example.com', 'password slow');
    let release!: () => void;
    const sent = new Promise<void>((resolve) => (release = resolve));
    let done = false;
    auth.hooks.on('auth:password_reset_requested', async () => {
      await sent;
      done = true;
    });
    await auth.requestPasswordReset('slow@example.com');
    expect(done).toBe(false);
    release();
    await new Promise((resolve) => setImmediate(resolve));
    expect(done).toBe(true);
  });
});

describe('modules.auth', () => {
  const dir = () => mkdtempSync(join(tmpdir(), 'svc-auth-'));

  it('is off unless enabled', () => {
    expect(authModule(undefined)).toBeUndefined();
    expect(authModule(false)).toBeUndefined();
  });

  it('takes the secret from SVC_SECRET, and refuses to start in production without one', async () => {
    const module = authModule(true, {
      env: { NODE_ENV: 'production', SVC_SECRET: SECRET },
      projectDir: dir(),
    });
    expect(module?.plugins).toHaveLength(1);
    const missing = await caught(() =>
      authModule(true, { env: { NODE_ENV: 'production' }, projectDir: dir() }),
    );
    expect(missing.code).toBe('AUTH_WEAK_SECRET');
    expect(missing.message).toMatch(/SVC_SECRET/);
    const weak = await caught(() => authModule(true, { env: { SVC_SECRET: 'short' }, projectDir: dir() }));
    expect(weak.code).toBe('AUTH_WEAK_SECRET');
  });

  it('finds the service secret by one rule (given, SVC_SECRET, development file) and says which it used', () => {
    const projectDir = dir();
    const given = 'g'.repeat(32);
    expect(serviceSecret(given, { SVC_SECRET: SECRET }, projectDir)).toBe(given);
    expect(serviceSecret(undefined, { SVC_SECRET: SECRET, NODE_ENV: 'production' }, projectDir)).toBe(SECRET);
    expect(serviceSecret('', { NODE_ENV: 'production' }, projectDir)).toBeUndefined();
    const development = serviceSecret(undefined, { NODE_ENV: 'development' }, projectDir);
    expect(development).toBe(readFileSync(join(projectDir, '.svc', 'secret'), 'utf8').trim());
    // modules.auth returns the secret it signs with, so other modules (MCP) key with the same one.
    expect(authModule({ secret: given }, { env: { NODE_ENV: 'production' }, projectDir })?.secret).toBe(
      given,
    );
    expect(authModule(true, { env: { NODE_ENV: 'development' }, projectDir })?.secret).toBe(development);
  });

  it('in development without a secret creates one under .svc/ and reuses it', async () => {
    const projectDir = dir();
    const first = authModule(true, { env: { NODE_ENV: 'development' }, projectDir });
    const second = authModule(true, { env: { NODE_ENV: 'development' }, projectDir });
    const { accessToken } = (await first!.auth.register('d@example.com', 'password d')).tokens;
    // The second process signs with the same secret: it accepts the first one's tokens.
    expect((await second!.auth.verifyAccess(accessToken)).user.email).toBe('d@example.com');
    const file = join(projectDir, '.svc', 'secret');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8').trim()).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  it('refuses unknown options, unknown route ids and bad values with CONFIG_INVALID', async () => {
    const env = { SVC_SECRET: SECRET };
    for (const setting of [
      { nope: 1 },
      { routes: { signup: false } },
      { accessTtl: 'soon' },
      { loginThrottle: { maxAttempts: 0 } },
      { sessionCookie: { sameSite: 'none', secure: false } },
    ]) {
      const error = await caught(() => authModule(setting, { env }));
      expect(error.code, JSON.stringify(setting)).toBe('CONFIG_INVALID');
      expect(error.message).toMatch(/modules\.auth/);
    }
  });
});

describe('developmentSecret', () => {
  it('keeps a secret another process wrote', () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-secret-'));
    const made = developmentSecret(dir);
    expect(developmentSecret(dir)).toBe(made);
    writeFileSync(join(dir, 'secret'), 'written-by-someone-else-32-chars-long\n');
    expect(developmentSecret(dir)).toBe('written-by-someone-else-32-chars-long');
  });
});
