// The account rules of social sign-in (Auth.socialLogin and the links it keeps), in process on memory stores:
// new passwordless accounts, following a link after the provider's email changed, the one-subject-per-provider
// conflict, refusing an unverified email, taking over an account that never verified its email (everything of
// the previous holder revoked first), the second factor, the link listing and removal rules; then the races
// (concurrent first sign-ins of one identity, concurrent removals of a passwordless account's two links) on
// memory, on PGlite, and on PostgreSQL from two pools (two processes).
import { randomBytes } from 'node:crypto';
import { Secret, TOTP } from 'otpauth';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiKeys } from '../../runtime/auth/apikeys/service.js';
import { Auth, type LoginResult } from '../../runtime/auth/auth.js';
import { AUTH_EVENT_NAMES } from '../../runtime/auth/events.js';
import { MfaService } from '../../runtime/auth/mfa/service.js';
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { SecretBox } from '../../runtime/auth/mfa/secret-box.js';
import { MemoryPasskeyStore } from '../../runtime/auth/passkeys/memory-store.js';
import { webauthnPlugin } from '../../runtime/auth/passkeys/service.js';
import { simpleWebauthnVerifier } from '../../runtime/auth/passkeys/simplewebauthn-verifier.js';
import type { AccountLinkStore } from '../../runtime/auth/stores/account-links.js';
import { MemoryAccountLinkStore } from '../../runtime/auth/stores/memory-account-links.js';
import { MemoryUserSource } from '../../runtime/auth/stores/memory-users.js';
import type { AuthUser, UserPatch, UserSource } from '../../runtime/auth/stores/users.js';
import { migrate, openSqlClient, sqlStores, type SqlClient } from '../../runtime/stores/sql/index.js';
import { createDatabase, type TestDatabase } from '../backends.js';

const SECRET = 'a-test-secret-that-is-32-chars-!';
const FAST_HASH = { ln: 4, r: 8, p: 1 };
const T0 = Date.parse('2026-11-26T00:00:00Z');
const GOOGLE = { provider: 'google', subject: 'g-ada' };
const PASSWORD = 'correct horse battery';

function codeAt(secret: string, now: number): string {
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({
    timestamp: now,
  });
}

/** The code an error carries, or 'ok'. */
async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'ok',
    (error: { code?: string; status?: number }) =>
      `${error.status ?? ''} ${error.code ?? String(error)}`.trim(),
  );
}

interface SetUpOptions {
  users?: UserSource;
  accountLinks?: AccountLinkStore;
}

function setUp(options: SetUpOptions = {}) {
  let now = T0;
  const clock = () => now;
  const users = options.users ?? new MemoryUserSource();
  const accountLinks = options.accountLinks ?? new MemoryAccountLinkStore();
  const mfaStore = new MemoryMfaStore();
  const mfa = new MfaService({
    store: mfaStore,
    box: new SecretBox({ keys: [{ id: 'k1', material: randomBytes(32) }] }),
    issuer: 'Notes',
    users,
    clock,
  });
  const passkeyStore = new MemoryPasskeyStore();
  const passkeys = webauthnPlugin({
    config: { rpId: 'localhost', rpName: 'Notes', origin: 'http://localhost:3000' },
    verifier: simpleWebauthnVerifier(),
    credentials: passkeyStore,
    clock,
  });
  const apiKeys = new ApiKeys({ clock });
  const auth = new Auth({
    secret: SECRET,
    users,
    accountLinks,
    mfa,
    passkeys,
    apiKeys,
    clock,
    passwordHash: FAST_HASH,
    nodeEnv: 'test',
  });
  const events: { name: string; payload: Record<string, unknown> }[] = [];
  for (const name of AUTH_EVENT_NAMES) {
    auth.hooks.on(name, (payload) => void events.push({ name, payload: payload as Record<string, unknown> }));
  }
  /** Turns MFA on for the user; answers the secret, for codes. */
  const enableMfa = async (userId: string) => {
    const { secret } = await mfa.enroll(userId);
    await mfa.activate(userId, codeAt(secret, now));
    now += 30_000;
    return secret;
  };
  const addPasskey = (userId: string, id = 'cHJldmlvdXM') =>
    passkeyStore.add(
      {
        id,
        userId,
        publicKey: 'cGs',
        counter: 0,
        transports: [],
        label: 'old laptop',
        createdAt: now,
        lastUsedAt: undefined,
      },
      20,
    );
  return {
    auth,
    users,
    accountLinks,
    mfa,
    passkeys,
    apiKeys,
    events,
    enableMfa,
    addPasskey,
    now: () => now,
    advance: (ms: number) => void (now += ms),
    names: () => events.map((event) => event.name),
  };
}

/** Signs in through `result`'s refresh token and access token: both still work. */
async function stillSignedIn(auth: Auth, result: LoginResult): Promise<void> {
  expect((await auth.verifyAccess(result.tokens.accessToken)).user.id).toBe(result.user.id);
  await auth.refresh(result.tokens.refreshToken);
}

describe('socialLogin: new accounts and links', () => {
  it('creates a passwordless account, verified when the provider verified the email, and links it', async () => {
    const { auth, users, names } = setUp();
    const result = await auth.socialLogin('Ada@Example.com ', {
      emailVerified: true,
      identity: GOOGLE,
      from: { session: true, ip: '192.0.2.1' },
    });
    expect(result.user).toMatchObject({ email: 'ada@example.com', emailVerified: true });
    expect(result.amr).toEqual(['fed']);
    const stored = await users.findByEmail('ada@example.com');
    expect(stored?.passwordHash).toBeUndefined();
    // The same end as every sign-in: tokens that work, a session carrying amr, the login event.
    await stillSignedIn(auth, result);
    expect(await auth.sessionAuth(result.sessionId!)).toEqual({ user: result.user, amr: ['fed'] });
    expect(names()).toEqual(['auth:registered', 'auth:account_linked', 'auth:login']);
    expect(await auth.listAccountLinks(result.user.id)).toEqual([{ ...GOOGLE, createdAt: T0 }]);
    // A passwordless account has no password to sign in with.
    expect(await codeOf(auth.login('ada@example.com', ''))).toBe('401 AUTH_INVALID_CREDENTIALS');

    const unverified = await auth.socialLogin('bob@example.com', {
      identity: { provider: 'github', subject: 'b' },
    });
    expect(unverified.user.emailVerified).toBe(false);
  });

  it('follows the link on later sign-ins, even after the email changed at the provider', async () => {
    const { auth, users } = setUp();
    const first = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    const later = await auth.socialLogin('ada@new.example', { emailVerified: false, identity: GOOGLE });
    expect(later.user).toEqual(first.user);
    expect(later.amr).toEqual(['fed']);
    // The account's email is not changed, and no account is made for the new address.
    expect(await users.findByEmail('ada@new.example')).toBeNull();
    expect((await users.findById(first.user.id))?.email).toBe('ada@example.com');
    expect(await auth.listAccountLinks(first.user.id)).toHaveLength(1);
  });

  it('links a first sign-in to an existing account when the provider verified the email', async () => {
    const { auth, users, names } = setUp();
    const registered = await auth.register('ada@example.com', PASSWORD);
    await users.update!(registered.user.id, { emailVerified: true });
    const result = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    expect(result.user.id).toBe(registered.user.id);
    expect(names()).toEqual(['auth:registered', 'auth:account_linked', 'auth:login']);
    // A verified account keeps its password and what it signed in with.
    await auth.login('ada@example.com', PASSWORD);
    await stillSignedIn(auth, registered);
  });

  it('refuses a first sign-in by an email the provider did not verify: 403, nothing changed', async () => {
    const { auth, users, accountLinks, names } = setUp();
    const registered = await auth.register('ada@example.com', PASSWORD);
    const before = await users.findById(registered.user.id);
    for (const emailVerified of [false, undefined]) {
      expect(await codeOf(auth.socialLogin('ada@example.com', { emailVerified, identity: GOOGLE }))).toBe(
        '403 AUTH_SOCIAL_LINK_REFUSED',
      );
    }
    expect(await users.findById(registered.user.id)).toEqual(before);
    expect(await accountLinks.find(GOOGLE.provider, GOOGLE.subject)).toBeUndefined();
    expect(names()).toEqual(['auth:registered']);
    await auth.login('ada@example.com', PASSWORD);
    await stillSignedIn(auth, registered);
  });

  it("answers 409 for another subject of a provider the account is linked to, unless subjectConflict: 'link'", async () => {
    const { auth } = setUp();
    const first = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    const other = { provider: 'google', subject: 'g-other' };
    expect(await codeOf(auth.socialLogin('ada@example.com', { emailVerified: true, identity: other }))).toBe(
      '409 AUTH_ACCOUNT_LINK_CONFLICT',
    );
    // Allowed to link, but only with a verified email.
    expect(
      await codeOf(auth.socialLogin('ada@example.com', { identity: other, subjectConflict: 'link' })),
    ).toBe('403 AUTH_SOCIAL_LINK_REFUSED');
    expect(await auth.listAccountLinks(first.user.id)).toHaveLength(1);
    const linked = await auth.socialLogin('ada@example.com', {
      emailVerified: true,
      identity: other,
      subjectConflict: 'link',
    });
    expect(linked.user.id).toBe(first.user.id);
    expect((await auth.listAccountLinks(first.user.id)).map((link) => link.subject)).toEqual([
      'g-ada',
      'g-other',
    ]);
    // Another provider is no conflict.
    const github = await auth.socialLogin('ada@example.com', {
      emailVerified: true,
      identity: { provider: 'github', subject: 'gh-ada' },
    });
    expect(github.user.id).toBe(first.user.id);
  });

  it('follows a link made meanwhile by a concurrent sign-in when it names the same account, else 409', async () => {
    /** A store where, just before each link, another sign-in links the pair to `winner()`. */
    class Raced extends MemoryAccountLinkStore {
      winner: () => string = () => 'someone-else';
      override async link(...args: Parameters<MemoryAccountLinkStore['link']>) {
        await super.link({ ...args[0], userId: this.winner() });
        return super.link(...args);
      }
    }
    const accountLinks = new Raced();
    const { auth, users } = setUp({ accountLinks });
    expect(await codeOf(auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE }))).toBe(
      '409 AUTH_ACCOUNT_LINK_CONFLICT',
    );
    const ada = (await users.findByEmail('ada@example.com'))!;
    accountLinks.winner = () => ada.id;
    const other = { provider: 'github', subject: 'gh-ada' };
    const result = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: other });
    expect(result.user.id).toBe(ada.id);
    expect((await accountLinks.find(other.provider, other.subject))?.userId).toBe(ada.id);
  });

  it('treats a link whose account is gone as none, and removes it', async () => {
    const { auth, accountLinks } = setUp();
    await accountLinks.link({ ...GOOGLE, userId: 'deleted-user', createdAt: T0 - 1000 });
    const result = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    expect(result.user.id).not.toBe('deleted-user');
    expect((await accountLinks.find(GOOGLE.provider, GOOGLE.subject))?.userId).toBe(result.user.id);
    expect(await accountLinks.listByUser('deleted-user')).toEqual([]);
  });

  it('without an identity, the email alone decides and no link is made', async () => {
    const { auth, accountLinks } = setUp();
    const created = await auth.socialLogin('ada@example.com', { emailVerified: true });
    const again = await auth.socialLogin('ada@example.com', { emailVerified: true });
    expect(again.user.id).toBe(created.user.id);
    expect(await accountLinks.listByUser(created.user.id)).toEqual([]);
    expect(await codeOf(auth.socialLogin('ada@example.com'))).toBe('403 AUTH_SOCIAL_LINK_REFUSED');
  });

  it('refuses unknown options and an identity without a provider or subject', async () => {
    const { auth } = setUp();
    expect(await codeOf(auth.socialLogin('a@example.com', { emailVerifed: true } as never))).toBe(
      'OPTION_UNKNOWN',
    );
    expect(
      await codeOf(auth.socialLogin('a@example.com', { identity: { provider: '', subject: 's' } })),
    ).toBe('OPTION_INVALID');
    expect(
      await codeOf(auth.socialLogin('a@example.com', { identity: { provider: 'google' } as never })),
    ).toBe('OPTION_INVALID');
  });
});

describe('socialLogin: taking over an account that never verified its email', () => {
  it("revokes the previous holder's password, sessions, tokens, links, MFA, passkeys and keys, then links", async () => {
    const { auth, users, accountLinks, mfa, passkeys, apiKeys, events, enableMfa, addPasskey, advance } =
      setUp();
    // Someone opened an account with the address and never verified it.
    const squatter = await auth.register('ada@example.com', PASSWORD);
    const userId = squatter.user.id;
    const session = await auth.login('ada@example.com', PASSWORD, undefined, { session: true });
    const secret = await enableMfa(userId);
    await addPasskey(userId);
    const key = await apiKeys.issue({ userId, scopes: ['*'] });
    await accountLinks.link({ provider: 'github', subject: 'squatter', userId, createdAt: T0 });
    await auth.requestPasswordReset('ada@example.com');
    const resetToken = events.find((event) => event.name === 'auth:password_reset_requested')?.payload
      .token as string;
    advance(1000);

    const before = events.length;
    const owner = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    // What went is told first, about the account as it was; then the takeover, the owner's link, the sign-in.
    const previous = { ...squatter.user, emailVerified: false };
    expect(events.slice(before, before + 3)).toEqual([
      {
        name: 'auth:account_unlinked',
        payload: { user: previous, provider: 'github', subject: 'squatter' },
      },
      { name: 'auth:passkey_removed', payload: { user: previous, passkeyId: 'cHJldmlvdXM' } },
      { name: 'auth:mfa_disabled', payload: { user: previous } },
    ]);
    expect(events.slice(before + 3).map((event) => event.name)).toEqual([
      'auth:account_adopted',
      'auth:account_linked',
      'auth:login',
    ]);
    expect(owner.user).toEqual({ id: userId, email: 'ada@example.com', emailVerified: true });
    // The MFA was the previous holder's: gone, not asked for.
    expect(owner.amr).toEqual(['fed']);
    expect(await mfa.status(userId)).toEqual({ state: 'none', recoveryCodesLeft: 0 });
    expect(await codeOf(auth.login('ada@example.com', PASSWORD, codeAt(secret, T0 + 60_000)))).toBe(
      '401 AUTH_INVALID_CREDENTIALS',
    );
    expect((await users.findById(userId))?.passwordHash).toBeUndefined();
    expect(await auth.sessionAuth(session.sessionId ?? '')).toBeNull();
    expect(await codeOf(auth.refresh(squatter.tokens.refreshToken))).toBe('401 AUTH_REFRESH_INVALID');
    expect(await codeOf(auth.refresh(session.tokens.refreshToken))).toBe('401 AUTH_REFRESH_INVALID');
    expect(await codeOf(auth.resetPassword(resetToken, 'the squatter again'))).toBe('400 AUTH_TOKEN_INVALID');
    expect(await passkeys.list(userId)).toEqual([]);
    expect(await apiKeys.verify(key.key)).toEqual({ ok: false, reason: 'unknown' });
    expect(await accountLinks.find('github', 'squatter')).toBeUndefined();
    expect((await auth.listAccountLinks(userId)).map((link) => link.provider)).toEqual(['google']);
    // The owner's own sign-in is not caught by the revocation.
    await stillSignedIn(auth, owner);
    const adopted = events.find((event) => event.name === 'auth:account_adopted');
    expect(adopted?.payload).toEqual({ user: owner.user, provider: 'google' });
  });

  it('revokes before it links: a failure half-way leaves no link and the old password dead; a retry finishes', async () => {
    const accountLinks = new MemoryAccountLinkStore();
    let failures = 1;
    const removeByUser = accountLinks.removeByUser.bind(accountLinks);
    accountLinks.removeByUser = async (userId) => {
      if (failures-- > 0) throw new Error('database went away');
      return removeByUser(userId);
    };
    const { auth, users } = setUp({ accountLinks });
    const squatter = await auth.register('ada@example.com', PASSWORD);
    expect(await codeOf(auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE }))).toBe(
      'Error: database went away',
    );
    expect(await accountLinks.find(GOOGLE.provider, GOOGLE.subject)).toBeUndefined();
    expect(await codeOf(auth.login('ada@example.com', PASSWORD))).toBe('401 AUTH_INVALID_CREDENTIALS');
    expect((await users.findById(squatter.user.id))?.emailVerified).toBe(false);
    const owner = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    expect(owner.user).toMatchObject({ id: squatter.user.id, emailVerified: true });
  });
});

describe('socialLogin: the second factor', () => {
  it('asks an MFA account for its code (401 without, refused when wrong), and adds mfa to amr', async () => {
    const { auth, users, accountLinks, enableMfa, now, events } = setUp();
    const registered = await auth.register('ada@example.com', PASSWORD);
    await users.update!(registered.user.id, { emailVerified: true });
    const secret = await enableMfa(registered.user.id);
    const sign = (mfaCode?: string) =>
      auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE, mfaCode });

    expect(await codeOf(sign())).toBe('401 AUTH_MFA_REQUIRED');
    expect(await codeOf(sign('000000'))).toBe('401 AUTH_MFA_INVALID_CODE');
    // Checked before anything changed: no link yet.
    expect(await accountLinks.find(GOOGLE.provider, GOOGLE.subject)).toBeUndefined();
    expect(
      events.filter((event) => event.name === 'auth:login_failed').map((event) => event.payload.reason),
    ).toEqual(['mfa_required', 'mfa_invalid']);

    const result = await sign(codeAt(secret, now()));
    expect(result.amr).toEqual(['fed', 'mfa']);
    expect(events.at(-1)).toMatchObject({
      name: 'auth:login',
      payload: { amr: ['fed', 'mfa'], secondFactor: 'totp' },
    });
    // Through the link from now on: the code is still asked for, unless the caller skips it.
    expect(await codeOf(auth.socialLogin('ada@example.com', { identity: GOOGLE }))).toBe(
      '401 AUTH_MFA_REQUIRED',
    );
    const skipped = await auth.socialLogin('ada@example.com', { identity: GOOGLE, mfa: 'skip' });
    expect(skipped.amr).toEqual(['fed']);
  });

  it('spends the login throttle budget of the account: the fifth missing code locks it', async () => {
    const { auth, users, enableMfa } = setUp();
    const registered = await auth.register('ada@example.com', PASSWORD);
    await users.update!(registered.user.id, { emailVerified: true });
    await enableMfa(registered.user.id);
    const sign = () => auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    for (let attempt = 0; attempt < 4; attempt++) expect(await codeOf(sign())).toBe('401 AUTH_MFA_REQUIRED');
    expect(await codeOf(sign())).toBe('429 AUTH_LOCKED');
    // Locked: the right code is refused as well, as at password sign-in.
    expect(await codeOf(sign())).toBe('429 AUTH_LOCKED');
  });
});

describe('account links: listing and removal', () => {
  it("lists the user's links oldest first; removes one of theirs, 404 for another user's or an unknown one", async () => {
    const { auth, advance, events } = setUp();
    const ada = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    advance(1000);
    await auth.socialLogin('ada@example.com', {
      emailVerified: true,
      identity: { provider: 'github', subject: 'gh-ada' },
    });
    const bob = await auth.socialLogin('bob@example.com', {
      emailVerified: true,
      identity: { provider: 'github', subject: 'gh-bob' },
    });
    expect(await auth.listAccountLinks(ada.user.id)).toEqual([
      { ...GOOGLE, createdAt: T0 },
      { provider: 'github', subject: 'gh-ada', createdAt: T0 + 1000 },
    ]);
    expect(await codeOf(auth.removeAccountLink(ada.user, 'github', 'gh-bob'))).toBe(
      '404 AUTH_ACCOUNT_LINK_NOT_FOUND',
    );
    expect(await codeOf(auth.removeAccountLink(ada.user, 'github', 'nope'))).toBe(
      '404 AUTH_ACCOUNT_LINK_NOT_FOUND',
    );
    expect(await auth.listAccountLinks(bob.user.id)).toHaveLength(1);

    await auth.removeAccountLink(ada.user, 'github', 'gh-ada');
    expect(events.at(-1)).toEqual({
      name: 'auth:account_unlinked',
      payload: { user: ada.user, provider: 'github', subject: 'gh-ada' },
    });
    // The last way in of a passwordless account without a passkey stays.
    expect(await codeOf(auth.removeAccountLink(ada.user, GOOGLE.provider, GOOGLE.subject))).toBe(
      '409 AUTH_LAST_SIGN_IN_METHOD',
    );
    expect(await auth.listAccountLinks(ada.user.id)).toHaveLength(1);
    // 404 comes first: another user's link is not this user's, whatever they hold.
    expect(await codeOf(auth.removeAccountLink(ada.user, 'github', 'gh-bob'))).toBe(
      '404 AUTH_ACCOUNT_LINK_NOT_FOUND',
    );
  });

  it('removes the last link of an account that has a password or a passkey', async () => {
    const { auth, users, addPasskey } = setUp();
    const registered = await auth.register('ada@example.com', PASSWORD);
    await users.update!(registered.user.id, { emailVerified: true });
    await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    await auth.removeAccountLink(registered.user, GOOGLE.provider, GOOGLE.subject);
    expect(await auth.listAccountLinks(registered.user.id)).toEqual([]);

    const bob = await auth.socialLogin('bob@example.com', {
      emailVerified: true,
      identity: { provider: 'github', subject: 'b' },
    });
    await addPasskey(bob.user.id);
    await auth.removeAccountLink(bob.user, 'github', 'b');
    expect(await auth.listAccountLinks(bob.user.id)).toEqual([]);
  });

  it('a password reset keeps the links', async () => {
    const { auth, events } = setUp();
    const ada = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    await auth.requestPasswordReset('ada@example.com');
    const token = events.find((event) => event.name === 'auth:password_reset_requested')?.payload
      .token as string;
    await auth.resetPassword(token, 'a brand new password');
    expect(await auth.listAccountLinks(ada.user.id)).toHaveLength(1);
    await auth.login('ada@example.com', 'a brand new password');
  });
});

/** The token of the last mail event `name` (a verification or reset link). */
function mailToken(events: { name: string; payload: Record<string, unknown> }[], name: string): string {
  const found = events.filter((event) => event.name === name).at(-1);
  return found?.payload.token as string;
}

describe("an account opened through an unverified email, then proved by the address's owner", () => {
  const OPENER = { provider: 'github', subject: 'gh-opener' };

  /** Someone signs in with a provider that did not verify ada@example.com: an unverified account, linked. */
  async function openedUnproved(auth: Auth) {
    const opened = await auth.socialLogin('ada@example.com', { emailVerified: false, identity: OPENER });
    expect(opened.user.emailVerified).toBe(false);
    // The owner cannot register the address.
    expect(await codeOf(auth.register('ada@example.com', PASSWORD))).toBe('409 AUTH_EMAIL_TAKEN');
    return opened;
  }

  it("the owner's password reset removes the opener's link: it no longer signs in to the account", async () => {
    const { auth, events } = setUp();
    const opened = await openedUnproved(auth);
    await auth.requestPasswordReset('ada@example.com');
    const before = events.length;
    const reset = await auth.resetPassword(
      mailToken(events, 'auth:password_reset_requested'),
      'the owner now',
    );
    expect(reset).toEqual({ ...opened.user, emailVerified: true });
    expect(events.slice(before)).toEqual([
      { name: 'auth:account_unlinked', payload: { user: opened.user, ...OPENER } },
      { name: 'auth:password_reset', payload: { user: reset } },
    ]);
    expect(await auth.listAccountLinks(opened.user.id)).toEqual([]);
    // The opener's identity now takes the existing-account path, refused without a verified email.
    expect(
      await codeOf(auth.socialLogin('ada@example.com', { emailVerified: false, identity: OPENER })),
    ).toBe('403 AUTH_SOCIAL_LINK_REFUSED');
    expect(await codeOf(auth.refresh(opened.tokens.refreshToken))).toBe('401 AUTH_REFRESH_INVALID');
    expect((await auth.login('ada@example.com', 'the owner now')).user.id).toBe(opened.user.id);
  });

  it("the owner's password reset also takes away the second factor and passkeys the opener added", async () => {
    const { auth, events, enableMfa, addPasskey, passkeys } = setUp();
    const opened = await auth.register('ada@example.com', 'the squatter password');
    await enableMfa(opened.user.id);
    await addPasskey(opened.user.id);
    await auth.requestPasswordReset('ada@example.com');
    const before = events.length;
    await auth.resetPassword(mailToken(events, 'auth:password_reset_requested'), 'the owner now');
    expect(events.slice(before).map((event) => event.name)).toEqual([
      'auth:passkey_removed',
      'auth:mfa_disabled',
      'auth:password_reset',
    ]);
    expect(await auth.isMfaEnabled(opened.user.id)).toBe(false);
    expect(await passkeys.list(opened.user.id)).toEqual([]);
    // No code is asked of the owner: the opener's second factor is gone.
    expect((await auth.login('ada@example.com', 'the owner now')).amr).toEqual(['pwd']);
  });

  it('a password reset of a verified account keeps its second factor and passkeys', async () => {
    const { auth, events, enableMfa, addPasskey, passkeys, users } = setUp();
    const owner = await auth.register('ada@example.com', 'the owner password');
    await users.update!(owner.user.id, { emailVerified: true });
    await enableMfa(owner.user.id);
    await addPasskey(owner.user.id);
    await auth.requestPasswordReset('ada@example.com');
    await auth.resetPassword(mailToken(events, 'auth:password_reset_requested'), 'the owner again');
    expect(await auth.isMfaEnabled(owner.user.id)).toBe(true);
    expect(await passkeys.list(owner.user.id)).toHaveLength(1);
  });

  it("the owner's email verification (a link the opener asked for) removes the opener's link", async () => {
    const { auth, events } = setUp();
    const opened = await openedUnproved(auth);
    // The opener asks for the verification mail; it reaches the owner, who follows it.
    await auth.requestEmailVerification('ada@example.com');
    const before = events.length;
    const verified = await auth.verifyEmail(mailToken(events, 'auth:verify_requested'));
    expect(verified).toEqual({ ...opened.user, emailVerified: true });
    expect(events.slice(before)).toEqual([
      { name: 'auth:account_unlinked', payload: { user: opened.user, ...OPENER } },
      { name: 'auth:email_verified', payload: { user: verified } },
    ]);
    expect(await auth.listAccountLinks(opened.user.id)).toEqual([]);
    expect(
      await codeOf(auth.socialLogin('ada@example.com', { emailVerified: false, identity: OPENER })),
    ).toBe('403 AUTH_SOCIAL_LINK_REFUSED');
    // The owner links through a provider that verified the address.
    const owner = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    expect(owner.user).toEqual(verified);
  });

  it('removes the links before the email is marked verified: a removal that fails leaves it unverified', async () => {
    const accountLinks = new MemoryAccountLinkStore();
    let failures = 1;
    const removeByUser = accountLinks.removeByUser.bind(accountLinks);
    accountLinks.removeByUser = async (userId) => {
      if (failures-- > 0) throw new Error('database went away');
      return removeByUser(userId);
    };
    const { auth, users, events } = setUp({ accountLinks });
    const opened = await openedUnproved(auth);
    await auth.requestEmailVerification('ada@example.com');
    expect(await codeOf(auth.verifyEmail(mailToken(events, 'auth:verify_requested')))).toBe(
      'Error: database went away',
    );
    expect((await users.findById(opened.user.id))?.emailVerified).toBe(false);
    // Still unverified, so the owner can ask again and finish.
    await auth.requestEmailVerification('ada@example.com');
    await auth.verifyEmail(mailToken(events, 'auth:verify_requested'));
    expect(await accountLinks.listByUser(opened.user.id)).toEqual([]);
  });
});

describe('taking over with a user source that ignores passwordHash: null', () => {
  /** An application source written before null removed the password: it leaves the hash as it is. */
  class KeepsPassword extends MemoryUserSource {
    override async update(id: string, patch: UserPatch): Promise<AuthUser | null> {
      const { passwordHash, ...rest } = patch;
      return super.update(id, passwordHash === null ? rest : patch);
    }
  }

  it('stops the takeover with 500 AUTH_UPDATE_UNSUPPORTED before anything is revoked or linked', async () => {
    const { auth, users, accountLinks, names } = setUp({ users: new KeepsPassword() });
    const squatter = await auth.register('ada@example.com', PASSWORD);
    await accountLinks.link({
      provider: 'github',
      subject: 'squatter',
      userId: squatter.user.id,
      createdAt: T0,
    });
    const refused = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE }).then(
      () => undefined,
      (error: { status?: number; code?: string; message?: string }) => error,
    );
    expect(refused).toMatchObject({ status: 500, code: 'AUTH_UPDATE_UNSUPPORTED' });
    expect(refused?.message).toContain('passwordHash: null');
    expect(await accountLinks.find(GOOGLE.provider, GOOGLE.subject)).toBeUndefined();
    expect(await accountLinks.find('github', 'squatter')).toBeDefined();
    expect((await users.findById(squatter.user.id))?.emailVerified).toBe(false);
    expect(names()).toEqual(['auth:registered']);
  });
});

describe('concurrent first sign-ins of two subjects of one provider for one new email', () => {
  /** The first link waits until a second one is done (or a second has passed): the creator links last. */
  class SecondFirst extends MemoryAccountLinkStore {
    private calls = 0;
    private release: () => void = () => undefined;
    override async link(...args: Parameters<MemoryAccountLinkStore['link']>) {
      if (this.calls++ === 0) {
        await new Promise<void>((resolve) => {
          this.release = resolve;
          setTimeout(resolve, 1000);
        });
        return super.link(...args);
      }
      const result = await super.link(...args);
      this.release();
      return result;
    }
  }

  it("link one of them; the other answers 409 unless subjectConflict: 'link'", async () => {
    const accountLinks = new SecondFirst();
    const { auth, users, names } = setUp({ accountLinks });
    const sign = (subject: string) =>
      codeOf(
        auth.socialLogin('race@example.com', {
          emailVerified: true,
          identity: { provider: 'google', subject },
        }),
      );
    const outcomes = await Promise.all([sign('g-one'), sign('g-two')]);
    expect([...outcomes].sort()).toEqual(['409 AUTH_ACCOUNT_LINK_CONFLICT', 'ok']);
    const account = (await users.findByEmail('race@example.com'))!;
    expect(await accountLinks.listByUser(account.id)).toHaveLength(1);
    expect(names().filter((name) => name === 'auth:account_linked')).toHaveLength(1);

    const allowed = new SecondFirst();
    const other = setUp({ accountLinks: allowed });
    const both = await Promise.all(
      ['g-one', 'g-two'].map((subject) =>
        other.auth.socialLogin('race@example.com', {
          emailVerified: true,
          identity: { provider: 'google', subject },
          subjectConflict: 'link',
        }),
      ),
    );
    const [first, second] = both as [LoginResult, LoginResult];
    expect(first.user.id).toBe(second.user.id);
    expect(await allowed.listByUser(first.user.id)).toHaveLength(2);
  });
});

describe('the last way to sign in', () => {
  /** A source that answers a passwordless account with `passwordHash` null or '' rather than absent. */
  function blankHashes(blank: null | '') {
    return new (class extends MemoryUserSource {
      override async findById(id: string): Promise<AuthUser | null> {
        const user = await super.findById(id);
        return user && ({ ...user, passwordHash: user.passwordHash ?? blank } as unknown as AuthUser);
      }
    })();
  }

  for (const blank of [null, ''] as const) {
    it(`a passwordHash of ${JSON.stringify(blank)} is no password: the last link stays`, async () => {
      const { auth } = setUp({ users: blankHashes(blank) });
      const ada = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
      expect(await codeOf(auth.removeAccountLink(ada.user, GOOGLE.provider, GOOGLE.subject))).toBe(
        '409 AUTH_LAST_SIGN_IN_METHOD',
      );
      expect(await auth.listAccountLinks(ada.user.id)).toHaveLength(1);
    });
  }

  it("refuses removing a passwordless account's only passkey once its links are gone", async () => {
    const { auth, passkeys, addPasskey, names } = setUp();
    const ada = await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    await addPasskey(ada.user.id, 'a2V5LW9uZQ');
    // The passkey is another way in, so the only link may go.
    await auth.removeAccountLink(ada.user, GOOGLE.provider, GOOGLE.subject);
    const refused = await auth.removePasskey(ada.user, ['hwk'], 'a2V5LW9uZQ').then(
      () => undefined,
      (error: { status?: number; code?: string; message?: string }) => error,
    );
    expect(refused).toMatchObject({ status: 409, code: 'AUTH_LAST_SIGN_IN_METHOD' });
    expect(refused?.message).toContain('passkey');
    expect((await passkeys.list(ada.user.id)).map((passkey) => passkey.id)).toEqual(['a2V5LW9uZQ']);
    expect(names()).not.toContain('auth:passkey_removed');
    // An unknown passkey, or another account's, is still 404.
    expect(await codeOf(auth.removePasskey(ada.user, ['hwk'], 'bm9uZQ'))).toBe('404 PASSKEY_NOT_FOUND');

    // With a second passkey, or a link, or a password, one may go.
    await addPasskey(ada.user.id, 'a2V5LXR3bw');
    await auth.removePasskey(ada.user, ['hwk'], 'a2V5LW9uZQ');
    await auth.socialLogin('ada@example.com', { emailVerified: true, identity: GOOGLE });
    await auth.removePasskey(ada.user, ['hwk'], 'a2V5LXR3bw');
    expect(await passkeys.list(ada.user.id)).toEqual([]);
    const bob = await auth.register('bob@example.com', PASSWORD);
    await addPasskey(bob.user.id, 'Ym9iLWtleQ');
    await auth.removePasskey(bob.user, ['hwk'], 'Ym9iLWtleQ');
    expect(await passkeys.list(bob.user.id)).toEqual([]);
  });
});

/** Two Auths on the same stores, or on stores over the same data: two processes of one service. */
type Pair = readonly [ReturnType<typeof setUp>, ReturnType<typeof setUp>];

function raceContract(name: string, makePair: () => Promise<Pair>): void {
  describe(`races: ${name}`, () => {
    it('10 concurrent first sign-ins of one new identity make one account and one link, and all sign in', async () => {
      const pair = await makePair();
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, index) =>
          pair[index % 2]!.auth.socialLogin('race@example.com', { emailVerified: true, identity: GOOGLE }),
        ),
      );
      const ids = new Set(results.map((result) => result.user.id));
      expect(ids.size).toBe(1);
      const [userId] = ids;
      expect((await pair[0].users.findByEmail('race@example.com'))?.id).toBe(userId);
      expect(await pair[0].accountLinks.listByUser(userId!)).toHaveLength(1);
      const linked = pair.flatMap((side) =>
        side.events.filter((event) => event.name === 'auth:account_linked'),
      );
      expect(linked).toHaveLength(1);
    });

    it('taking over an unverified account removes its password from the user source (UserPatch null)', async () => {
      const [side] = await makePair();
      const squatter = await side.auth.register('taken@example.com', PASSWORD);
      const owner = await side.auth.socialLogin('taken@example.com', {
        emailVerified: true,
        identity: GOOGLE,
      });
      expect(owner.user).toEqual({ ...squatter.user, emailVerified: true });
      expect((await side.users.findById(squatter.user.id))?.passwordHash).toBeUndefined();
      expect(await codeOf(side.auth.login('taken@example.com', PASSWORD))).toBe(
        '401 AUTH_INVALID_CREDENTIALS',
      );
      // A patch without the field leaves the password alone; a new hash sets it again.
      await side.users.update!(squatter.user.id, { passwordHash: 'scrypt$x' });
      await side.users.update!(squatter.user.id, { emailVerified: true });
      expect((await side.users.findById(squatter.user.id))?.passwordHash).toBe('scrypt$x');
    });

    it("two concurrent removals of a passwordless account's two links: exactly one succeeds", async () => {
      const pair = await makePair();
      for (let round = 0; round < 5; round++) {
        const email = `two-${round}@example.com`;
        const first = { provider: 'google', subject: `g-${round}` };
        const second = { provider: 'github', subject: `gh-${round}` };
        const ada = await pair[0].auth.socialLogin(email, { emailVerified: true, identity: first });
        await pair[0].auth.socialLogin(email, { emailVerified: true, identity: second });
        const outcomes = await Promise.all([
          codeOf(pair[0].auth.removeAccountLink(ada.user, first.provider, first.subject)),
          codeOf(pair[1].auth.removeAccountLink(ada.user, second.provider, second.subject)),
        ]);
        expect([...outcomes].sort()).toEqual(['409 AUTH_LAST_SIGN_IN_METHOD', 'ok']);
        expect(await pair[1].auth.listAccountLinks(ada.user.id)).toHaveLength(1);
      }
    });
  });
}

raceContract('memory', async () => {
  const users = new MemoryUserSource();
  const accountLinks = new MemoryAccountLinkStore();
  return [setUp({ users, accountLinks }), setUp({ users, accountLinks })];
});

describe('on PGlite', () => {
  let client: SqlClient;
  beforeAll(async () => {
    client = await openSqlClient('pglite:memory');
    await migrate(client);
  });
  afterAll(async () => {
    await client?.close();
  });
  raceContract('SQL stores on PGlite', async () => {
    await client.query('TRUNCATE svc_users, svc_account_links');
    const { users, accountLinks } = sqlStores(client);
    return [setUp({ users, accountLinks }), setUp({ users, accountLinks })];
  });
});

describe('on PostgreSQL, two pools', () => {
  let database: TestDatabase | undefined;
  const clients: SqlClient[] = [];
  beforeAll(async () => {
    database = await createDatabase();
    clients.push(await openSqlClient(database.url), await openSqlClient(database.url));
    await migrate(clients[0]!);
  });
  afterAll(async () => {
    for (const client of clients) await client.close();
    await database?.drop();
  });
  raceContract('SQL stores on PostgreSQL (two processes)', async () => {
    await clients[0]!.query('TRUNCATE svc_users, svc_account_links');
    const [a, b] = clients.map((client) => sqlStores(client));
    return [
      setUp({ users: a!.users, accountLinks: a!.accountLinks }),
      setUp({ users: b!.users, accountLinks: b!.accountLinks }),
    ];
  });
});
