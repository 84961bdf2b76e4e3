// The Auth class: accounts, access and refresh tokens, sessions, email
// verification and password reset over replaceable stores. The HTTP routes and the enricher call these
// methods; applications may call them directly (a CLI, a test fixture, a custom route).
import { errors } from '../../generated/modules/errors.js';
import { Hooks, type HookEvents } from '../app/hooks.js';
import { HttpError } from '../http/errors.js';
import { errorFields } from '../log/error-fields.js';
import { forwardingLogger, type ForwardingLogger } from '../log/forwarding-logger.js';
import type { Logger } from '../log/logger.js';
import { invalidOption } from '../config/option-errors.js';
import type { AuthEventName, AuthEventPayloads, LoginFailureReason } from './events.js';
import {
  AUTH_OPTION_KEYS,
  resolveTtls,
  type AuthOptions,
  type AuthTtls,
  type SecondFactor,
} from './options.js';
import { rejectUnknownOptions } from '../config/known-options.js';
import type { ApiKeys, ApiKeyView, IssuedApiKey } from './apikeys/service.js';
import type { AcceptedCode, MfaEnrollment, MfaService, MfaStatus } from './mfa/service.js';
import type {
  PasskeyAuthenticationOptions,
  PasskeyRegistrationOptions,
  PasskeyService,
  PasskeyView,
} from './passkeys/service.js';
import {
  hashPassword,
  passwordHashNeedsUpgrade,
  verifyPassword,
  type PasswordHashParams,
} from './password.js';
import { SocialSignIn, type AccountLinkView, type SocialLoginOptions } from './social-login.js';
import type { AccountLinkStore } from './stores/account-links.js';
import { MemoryAccountLinkStore } from './stores/memory-account-links.js';
import { MemoryOneTimeTokenStore } from './stores/memory-one-time-tokens.js';
import { MemoryRefreshTokenStore } from './stores/memory-refresh-tokens.js';
import { MemorySessionStore } from './stores/memory-sessions.js';
import { MemoryUserSource } from './stores/memory-users.js';
import type { OneTimeTokenPurpose, OneTimeTokenStore } from './stores/one-time-tokens.js';
import type { RefreshTokenStore } from './stores/refresh-tokens.js';
import type { SessionStore } from './stores/sessions.js';
import {
  normalizeEmail,
  publicUser,
  type AuthUser,
  type PublicUser,
  type UserSource,
} from './stores/users.js';
import { LoginThrottle, type LoginAttempt, type LoginReservation } from './throttle/login-throttle.js';
import { AccessTokens } from './tokens/access-tokens.js';
import { hashToken, newOpaqueToken } from './tokens/opaque.js';
import { SessionIds } from './tokens/session-ids.js';

export interface TokenPair {
  accessToken: string;
  refreshToken: string;
}

export interface LoginResult {
  user: PublicUser;
  tokens: TokenPair;
  amr: string[];
  /** Set when the login was asked for a session (`{ session: true }`). */
  sessionId?: string;
}

/** A verified credential: the user it names and how they signed in. */
export interface Authenticated {
  user: PublicUser;
  amr: string[];
}

/** Where a sign-in comes from, for the per-IP throttle and the events. */
export interface LoginContext {
  ip?: string | undefined;
  /** Also start a browser session; its id comes back as `sessionId`. */
  session?: boolean;
}

/** Where a passkey sign-in comes from, and the second factor an MFA account gives without user verification. */
export interface PasskeyLoginContext extends LoginContext {
  mfaCode?: string | undefined;
}

const PASSWORD_AMR = ['pwd'];
/**
 * RFC 8176: `hwk`, proof of possession of a key held in hardware (or a platform authenticator); with the user
 * verified by the authenticator (PIN, biometrics) it is multi-factor in itself, `mfa`.
 */
const PASSKEY_AMR = ['hwk'];
const PASSKEY_VERIFIED_AMR = ['hwk', 'mfa'];
/**
 * The user id a sign-in naming an unknown email is bound to: no account has it (a random part follows), so
 * any passkey is refused as another account's would be, and the answer does not tell the email is unknown.
 */
const NO_ACCOUNT_ID_PREFIX = 'svc:no-account:';

export class Auth {
  readonly hooks: Hooks;
  readonly ttls: Readonly<AuthTtls>;
  readonly users: UserSource;
  readonly sessions: SessionStore;
  readonly refreshTokens: RefreshTokenStore;
  readonly oneTimeTokens: OneTimeTokenStore;
  /** Social sign-in: which account each provider identity signs in to. */
  readonly accountLinks: AccountLinkStore;
  readonly throttle: LoginThrottle | undefined;
  private readonly accessTokens: AccessTokens;
  private readonly sessionIds: SessionIds;
  private readonly secondFactor: SecondFactor | undefined;
  private readonly mfa: MfaService | undefined;
  /** Passkeys (WebAuthn), when the Auth has them: the routes call it for the ceremonies and the list. */
  readonly passkeys: PasskeyService | undefined;
  /** API keys, when the Auth has them: the routes issue, list and revoke the caller's through it. */
  readonly apiKeys: ApiKeys | undefined;
  private readonly hashParams: PasswordHashParams | undefined;
  private readonly clock: () => number;
  private readonly onEventError: (error: unknown, event: string) => void;
  /** The logger given, else the app's once authPlugin attaches it (the default logger until then). */
  private readonly log: ForwardingLogger;
  private readonly loggerGiven: boolean;
  /** A hash no password matches, verified for unknown emails so their answer takes as long as a wrong password. */
  private decoyHash: Promise<string> | undefined;

  constructor(options: AuthOptions) {
    rejectUnknownOptions(options, AUTH_OPTION_KEYS, 'new Auth()');
    this.ttls = resolveTtls(options);
    this.clock = options.clock ?? Date.now;
    this.hooks = options.hooks ?? new Hooks();
    this.users = options.users ?? new MemoryUserSource();
    this.sessions = options.sessions ?? new MemorySessionStore();
    this.refreshTokens = options.refreshTokens ?? new MemoryRefreshTokenStore();
    this.oneTimeTokens = options.oneTimeTokens ?? new MemoryOneTimeTokenStore();
    this.accountLinks = options.accountLinks ?? new MemoryAccountLinkStore();
    this.throttle =
      options.loginThrottle === false
        ? undefined
        : (options.loginThrottle ?? new LoginThrottle({ clock: this.clock }));
    const nodeEnv = { nodeEnv: 'nodeEnv' in options ? options.nodeEnv : process.env.NODE_ENV };
    this.accessTokens = new AccessTokens({
      secret: options.secret,
      ttlMs: this.ttls.accessTtl,
      clock: this.clock,
      ...nodeEnv,
    });
    this.sessionIds = new SessionIds({ secret: options.secret, ...nodeEnv });
    if (options.mfa !== undefined && options.secondFactor !== undefined) {
      throw invalidOption('new Auth()', 'mfa', 'either mfa or secondFactor, not both');
    }
    this.mfa = options.mfa;
    this.passkeys = options.passkeys;
    this.apiKeys = options.apiKeys;
    this.secondFactor = options.mfa ?? options.secondFactor;
    this.hashParams = options.passwordHash;
    this.log = forwardingLogger(options.logger);
    this.loggerGiven = options.logger !== undefined;
    this.onEventError =
      options.onEventError ??
      ((error, event) => this.log.error('auth event listener failed', { event, error: errorFields(error) }));
  }

  /** Logs through the app's logger from now on, unless the Auth was given a logger of its own (authPlugin). */
  logTo(logger: Logger): void {
    if (!this.loggerGiven) this.log.attach(logger);
    this.apiKeys?.logTo(logger);
  }

  // ── accounts ──────────────────────────────────────────────────────────────────────────────────────────

  /** Creates an account (409 AUTH_EMAIL_TAKEN when the email exists, ignoring case) and signs it in. */
  async register(email: string, password: string): Promise<LoginResult> {
    const address = normalizeEmail(email);
    if (await this.users.findByEmail(address)) throw errors.AUTH_EMAIL_TAKEN();
    const passwordHash = await hashPassword(password, this.hashParams);
    // The source refuses a duplicate created meanwhile (AUTH_EMAIL_TAKEN): the check above only saves a hash.
    const user = publicUser(await this.users.create({ email: address, passwordHash, emailVerified: false }));
    await this.emit('auth:registered', { user });
    return { user, tokens: await this.issueTokens(user, PASSWORD_AMR), amr: [...PASSWORD_AMR] };
  }

  /**
   * Signs in with email and password (and the second factor once the account has one). Every attempt first
   * reserves its place in the throttle's counters, per email and per IP, so no more passwords are checked than
   * the limits allow however many arrive at once; a locked email or address answers 429 AUTH_LOCKED even for
   * the right password. Failures keep their reservations; a success clears the email's counter.
   */
  async login(
    email: string,
    password: string,
    mfaCode?: string,
    from: LoginContext = {},
  ): Promise<LoginResult> {
    // Tokens are dated from here: a password reset landing while this sign-in checks the old password
    // revokes them (RefreshTokenStore.revokeUser).
    const started = this.clock();
    const address = normalizeEmail(email);
    const reservation = await this.reserveAttempt({ email: address, ip: from.ip });
    let found: AuthUser | null;
    try {
      found = await this.users.findByEmail(address);
    } catch (error) {
      // No password was checked: the attempt gives its places back.
      if (reservation) await this.throttle?.release(reservation);
      throw error;
    }
    const verdict = await this.signInVerdict(found, password, mfaCode);
    if (!('user' in verdict)) {
      await this.emit('auth:login_failed', { email: address, reason: verdict.reason, ip: from.ip });
      if (reservation) await this.throttle?.recordFailure(reservation);
      throw verdict.error;
    }
    const { user, amr, secondFactor } = verdict;
    if (reservation) await this.throttle?.recordSuccess(reservation);
    return this.completeSignIn(user, amr, {
      from,
      started,
      secondFactor,
      afterSession: async (sessionId) => {
        await this.withdrawIfPasswordChanged(user, sessionId);
        await this.upgradeHash(user, password);
      },
    });
  }

  /**
   * The end of every sign-in: the token pair (dated `started`), a session when `from.session`, then
   * `afterSession` (password login's own steps), then the `auth:login` event.
   */
  private async completeSignIn(
    user: AuthUser,
    amr: string[],
    sign: {
      from: LoginContext;
      started: number;
      secondFactor: AcceptedCode | undefined;
      afterSession?: (sessionId: string | undefined) => Promise<void>;
    },
  ): Promise<LoginResult> {
    const { from, secondFactor } = sign;
    const shown = publicUser(user);
    const tokens = await this.issueTokens(shown, amr, newOpaqueToken(), sign.started);
    const sessionId = from.session === true ? await this.createSession(user.id, { amr }) : undefined;
    await sign.afterSession?.(sessionId);
    await this.emit('auth:login', {
      user: shown,
      amr: [...amr],
      ip: from.ip,
      ...(secondFactor === undefined ? {} : { secondFactor }),
    });
    return { user: shown, tokens, amr, ...(sessionId === undefined ? {} : { sessionId }) };
  }

  /** Checks credentials without side effects (no throttle, no events, no tokens): the user, or null. */
  async attempt(email: string, password: string): Promise<PublicUser | null> {
    const found = await this.users.findByEmail(normalizeEmail(email));
    const user = await this.checkPassword(found, password);
    return typeof user === 'string' ? null : publicUser(user);
  }

  /** Bulk lookup with the same answer whatever the source does: order of ids, no duplicates, no hash. */
  async usersByIds(ids: readonly string[]): Promise<PublicUser[]> {
    if (ids.length === 0) return [];
    const unique = [...new Set(ids)];
    const found = this.users.findByIds
      ? await this.users.findByIds(unique)
      : (await Promise.all(unique.map((id) => this.users.findById(id)))).filter((user) => user !== null);
    const byId = new Map(found.map((user) => [user.id, publicUser(user)]));
    return unique.flatMap((id) => byId.get(id) ?? []);
  }

  // ── access and refresh tokens ─────────────────────────────────────────────────────────────────────────

  /** The user and amr an access token carries; 401 AUTH_TOKEN_INVALID or AUTH_TOKEN_EXPIRED. */
  async verifyAccess(accessToken: string): Promise<Authenticated> {
    const claims = await this.accessTokens.verify(accessToken);
    // svc's own tokens always carry the user's email: one without it was not made by this Auth.
    if (claims.email === undefined || claims.emailVerified === undefined) throw errors.AUTH_TOKEN_INVALID();
    return {
      user: { id: claims.userId, email: claims.email, emailVerified: claims.emailVerified },
      amr: claims.amr,
    };
  }

  /**
   * Rotates a refresh token: the first presentation gets a new pair, and the token is spent. A second
   * presentation, or losing the compare-and-swap to a concurrent one, revokes the whole family (every token
   * rotated from the same sign-in): 401 AUTH_REFRESH_REUSED.
   */
  async refresh(refreshToken: string): Promise<TokenPair> {
    const tokenHash = hashToken(refreshToken);
    const now = this.clock();
    const record = await this.refreshTokens.get(tokenHash, now);
    if (!record) throw errors.AUTH_REFRESH_INVALID();
    if (record.usedAt !== undefined || !(await this.refreshTokens.markUsed(tokenHash, now))) {
      if (record.revokedAt !== undefined && record.usedAt === undefined) throw errors.AUTH_REFRESH_INVALID();
      await this.refreshTokens.revokeFamily(record.familyId, now, now + this.ttls.refreshTtl);
      throw errors.AUTH_REFRESH_REUSED();
    }
    const user = await this.users.findById(record.userId);
    if (!user) throw errors.AUTH_REFRESH_INVALID();
    // Dated from the start of the rotation, so a password reset that lands meanwhile revokes the new token.
    return this.issueTokens(publicUser(user), record.amr, record.familyId, now);
  }

  /** Logout with a refresh token: its whole family is revoked. Unknown tokens are ignored. */
  async revoke(refreshToken: string): Promise<void> {
    const now = this.clock();
    const record = await this.refreshTokens.get(hashToken(refreshToken), now);
    if (record) await this.refreshTokens.revokeFamily(record.familyId, now, now + this.ttls.refreshTtl);
    await this.emit('auth:logout', { userId: record?.userId, kind: 'refresh' });
  }

  // ── sessions ──────────────────────────────────────────────────────────────────────────────────────────

  /** Starts a session; the returned id (cookie or x-session-id value) carries `amr`, HMAC-signed. */
  async createSession(userId: string, options: { amr?: string[] } = {}): Promise<string> {
    const amr = options.amr ?? [...PASSWORD_AMR];
    const id = this.sessionIds.create(amr);
    const now = this.clock();
    await this.sessions.create(hashToken(id), {
      userId,
      amr,
      createdAt: now,
      expiresAt: now + this.ttls.sessionTtl,
    });
    return id;
  }

  async sessionUser(sessionId: string): Promise<PublicUser | null> {
    return (await this.sessionAuth(sessionId))?.user ?? null;
  }

  /**
   * The user and amr of a live session, or null. An id whose signature does not match (a forged `amr`), or
   * whose signed amr differs from the stored one, is null as well.
   */
  async sessionAuth(sessionId: string): Promise<Authenticated | null> {
    const signed = this.sessionIds.parse(sessionId);
    if (!signed) return null;
    const record = await this.sessions.get(hashToken(sessionId), this.clock());
    if (!record || !sameList(record.amr, signed.amr)) return null;
    const user = await this.users.findById(record.userId);
    return user ? { user: publicUser(user), amr: [...record.amr] } : null;
  }

  /** Whether `sessionId` is well-formed and signed by this secret (no store lookup). */
  isSignedSessionId(sessionId: string): boolean {
    return this.sessionIds.parse(sessionId) !== undefined;
  }

  async logout(sessionId: string): Promise<void> {
    const idHash = hashToken(sessionId);
    const record = this.sessionIds.parse(sessionId)
      ? await this.sessions.get(idHash, this.clock())
      : undefined;
    if (record) await this.sessions.delete(idHash);
    await this.emit('auth:logout', { userId: record?.userId, kind: 'session' });
  }

  // ── email verification and password reset ─────────────────────────────────────────────────────────────

  /**
   * Emits auth:verify_requested with a single-use token when the email belongs to an unverified account;
   * otherwise does nothing. Callers answer the same either way, so the reply reveals nothing.
   */
  async requestEmailVerification(email: string): Promise<void> {
    // Checked before the lookup: failing only for existing emails would reveal which exist.
    this.requireUpdate();
    const user = await this.users.findByEmail(normalizeEmail(email));
    if (!user || user.emailVerified) return;
    const { token, expiresAt } = await this.oneTimeToken('verify-email', user, this.ttls.verificationTtl);
    this.emitDetached('auth:verify_requested', { user: publicUser(user), token, expiresAt });
  }

  /**
   * Spends a verification token and marks the email verified; 400 AUTH_TOKEN_INVALID when not usable. An
   * account verified only now loses its provider links first (see `unlinkUnproved`).
   */
  async verifyEmail(token: string): Promise<PublicUser> {
    const update = this.requireUpdate();
    const record = await this.oneTimeTokens.consume(hashToken(token), 'verify-email', this.clock());
    const user = record && (await this.users.findById(record.userId));
    // The token proves control of the address it was sent to; if the account's email changed since, it proves nothing.
    if (!record || !user || normalizeEmail(user.email) !== record.email) throw invalidLink();
    await this.unlinkUnproved(user);
    const updated = await update(user.id, { emailVerified: true });
    if (!updated) throw invalidLink();
    const shown = publicUser(updated);
    await this.emit('auth:email_verified', { user: shown });
    return shown;
  }

  /** Emits auth:password_reset_requested with a single-use token when the email has an account. */
  async requestPasswordReset(email: string): Promise<void> {
    this.requireUpdate();
    const user = await this.users.findByEmail(normalizeEmail(email));
    if (!user) return;
    const { token, expiresAt } = await this.oneTimeToken('reset-password', user, this.ttls.resetTtl);
    this.emitDetached('auth:password_reset_requested', { user: publicUser(user), token, expiresAt });
  }

  /**
   * Spends a reset token and replaces the password. Every session, refresh token and API key of the user is
   * revoked and other reset links die. The address is verified too: the link reached it; an account verified
   * only now also loses its provider links, passkeys and second factor first (whoever opened it may not own the
   * address), a verified one keeps them.
   */
  async resetPassword(token: string, newPassword: string): Promise<PublicUser> {
    const update = this.requireUpdate();
    const now = this.clock();
    const record = await this.oneTimeTokens.consume(hashToken(token), 'reset-password', now);
    const user = record && (await this.users.findById(record.userId));
    if (!record || !user || normalizeEmail(user.email) !== record.email) throw invalidLink();
    const passwordHash = await hashPassword(newPassword, this.hashParams);
    // An account never verified may have been opened by someone else: the owner resetting gets it bare.
    if (!user.emailVerified) await this.social.revokeUnprovedFactors(publicUser(user));
    let updated: AuthUser | null;
    try {
      updated = await update(user.id, { passwordHash, emailVerified: true });
    } finally {
      // Whatever the update answered (a 503 when the new password is stored but its invalidation could not be
      // confirmed to every process included), every session, token and key of the user ends: the stores
      // decide who is signed in, and a reset that stops half-way must not leave the old holder signed in.
      await this.revokeAccess(user.id, this.clock());
    }
    if (!updated) throw invalidLink();
    const shown = publicUser(updated);
    await this.emit('auth:password_reset', { user: shown });
    return shown;
  }

  /**
   * Before an account's email is marked verified for the first time: its provider links were made while the
   * address was unproved, by whoever asserted it (a provider that did not verify it opened the account), so
   * they go, each with `auth:account_unlinked`. Removed before the account is verified, so no moment has the
   * verified account and such a link together.
   */
  private async unlinkUnproved(user: AuthUser): Promise<void> {
    if (!user.emailVerified) await this.social.unlinkAll(publicUser(user));
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────────────────

  /** Issues an access token and a refresh token of `familyId` (a new family for a new sign-in). */
  async issueTokens(
    user: PublicUser,
    amr: readonly string[],
    familyId = newOpaqueToken(),
    createdAt = this.clock(),
  ): Promise<TokenPair> {
    const refreshToken = newOpaqueToken();
    const now = createdAt;
    const [accessToken] = await Promise.all([
      this.accessTokens.sign({ userId: user.id, email: user.email, emailVerified: user.emailVerified, amr }),
      this.refreshTokens.create(hashToken(refreshToken), {
        userId: user.id,
        familyId,
        amr: [...amr],
        createdAt: now,
        expiresAt: now + this.ttls.refreshTtl,
      }),
    ]);
    return { accessToken, refreshToken };
  }

  /** The reservation of a sign-in attempt (none without a throttle); a refusal is reported as an event. */
  private async reserveAttempt(attempt: LoginAttempt): Promise<LoginReservation | undefined> {
    try {
      return await this.throttle?.reserve(attempt);
    } catch (error) {
      if (error instanceof HttpError && error.code === 'AUTH_LOCKED') {
        await this.emit('auth:login_failed', { email: attempt.email, reason: 'locked', ip: attempt.ip });
      }
      throw error;
    }
  }

  /** The password, then the second factor once the account has one: the user and amr, or why not. */
  private async signInVerdict(
    found: AuthUser | null,
    password: string,
    mfaCode: string | undefined,
  ): Promise<
    | { user: AuthUser; amr: string[]; secondFactor?: AcceptedCode }
    | { reason: LoginFailureReason; error: Error }
  > {
    const user = await this.checkPassword(found, password);
    if (typeof user === 'string') return { reason: user, error: errors.AUTH_INVALID_CREDENTIALS() };
    const amr = [...PASSWORD_AMR];
    if (this.secondFactor && (await this.secondFactor.isEnabled(user.id))) {
      // Only a right password learns that a code is needed; it spends the same budgets as a wrong one.
      const code = await this.codeVerdict(user.id, mfaCode);
      if ('reason' in code) return code;
      amr.push('mfa');
      return code.secondFactor === undefined ? { user, amr } : { user, amr, secondFactor: code.secondFactor };
    }
    return { user, amr };
  }

  /** The second factor's code of an account that has one: accepted (and how), or why not. */
  private async codeVerdict(
    userId: string,
    mfaCode: string | undefined,
  ): Promise<{ secondFactor: AcceptedCode | undefined } | { reason: LoginFailureReason; error: Error }> {
    if (mfaCode === undefined || mfaCode === '') {
      return { reason: 'mfa_required', error: errors.AUTH_MFA_REQUIRED() };
    }
    const invalid = { reason: 'mfa_invalid', error: errors.AUTH_MFA_INVALID_CODE() } as const;
    if (this.mfa) {
      // svckit's own says how the code was accepted, for the event: a recovery code is one fewer left.
      const secondFactor = await this.mfa.accept(userId, mfaCode);
      return secondFactor === undefined ? invalid : { secondFactor };
    }
    if (!(await this.secondFactor?.verify(userId, mfaCode))) return invalid;
    return { secondFactor: undefined };
  }

  /** `user` when the password matches, else why not. Unknown emails pay for one scrypt as well. */
  private async checkPassword(
    user: AuthUser | null,
    password: string,
  ): Promise<AuthUser | 'unknown_email' | 'wrong_password' | 'no_password'> {
    if (!user?.passwordHash) {
      this.decoyHash ??= hashPassword(newOpaqueToken(), this.hashParams);
      await verifyPassword(password, await this.decoyHash);
      return user ? 'no_password' : 'unknown_email';
    }
    return (await verifyPassword(password, user.passwordHash)) ? user : 'wrong_password';
  }

  /**
   * A password reset that finished while this sign-in checked the old password wins: the session this
   * sign-in started is ended and it fails like a wrong password. (Its refresh token is dated before the
   * reset, which revokes it.)
   */
  private async withdrawIfPasswordChanged(user: AuthUser, sessionId: string | undefined): Promise<void> {
    const current = await this.users.findById(user.id);
    if (current?.passwordHash === user.passwordHash) return;
    if (sessionId !== undefined) await this.sessions.delete(hashToken(sessionId));
    throw errors.AUTH_INVALID_CREDENTIALS();
  }

  /** Rehash-on-login when the stored hash was made with other parameters; never fails the sign-in. */
  private async upgradeHash(user: AuthUser, password: string): Promise<void> {
    if (!this.users.update || !user.passwordHash) return;
    if (!passwordHashNeedsUpgrade(user.passwordHash, this.hashParams)) return;
    try {
      await this.users.update(user.id, { passwordHash: await hashPassword(password, this.hashParams) });
    } catch (error) {
      this.onEventError(error, 'password-rehash');
    }
  }

  private async oneTimeToken(
    purpose: OneTimeTokenPurpose,
    user: AuthUser,
    ttl: number,
  ): Promise<{ token: string; expiresAt: number }> {
    const token = newOpaqueToken();
    const now = this.clock();
    const expiresAt = now + ttl;
    await this.oneTimeTokens.create(hashToken(token), {
      purpose,
      userId: user.id,
      email: normalizeEmail(user.email),
      createdAt: now,
      expiresAt,
    });
    return { token, expiresAt };
  }

  private requireUpdate(): NonNullable<UserSource['update']> {
    const update = this.users.update;
    if (!update) throw errors.AUTH_UPDATE_UNSUPPORTED();
    return update.bind(this.users);
  }

  // ── passkeys ──────────────────────────────────────────────────────────────────────────────────────────

  /** Whether this Auth has passkeys (the `passkeys` option). */
  get passkeysEnabled(): boolean {
    return this.passkeys !== undefined;
  }

  /**
   * Starts a passkey sign-in bound to `sessionKey`. With an email, only that account's passkeys are accepted
   * at the finish (another account's: 403 WEBAUTHN_SUBJECT_MISMATCH). The answer never lists passkeys, with
   * or without an email, and is the same for an email that has no account: listing an account's passkeys
   * would tell that it exists. Every passkey is discoverable (registration requires a resident key), so the
   * browser offers those it holds for the site.
   */
  async startPasskeySignIn(
    sessionKey: string,
    options: { email?: string | undefined } = {},
  ): Promise<PasskeyAuthenticationOptions> {
    const passkeys = this.requirePasskeys();
    let userId: string | undefined;
    if (options.email !== undefined) {
      const user = await this.users.findByEmail(normalizeEmail(options.email));
      userId = user?.id ?? `${NO_ACCOUNT_ID_PREFIX}${newOpaqueToken()}`;
    }
    return passkeys.startAuthentication(sessionKey, userId);
  }

  /**
   * Finishes the passkey sign-in started under `sessionKey` and signs the user in, like `login`: tokens, a
   * session with `{ session: true }`, the `auth:login` event. amr is `['hwk', 'mfa']` when the authenticator
   * verified the user, `['hwk']` when it did not; an account with a second factor then needs its code as well
   * (`mfaCode`: 401 AUTH_MFA_REQUIRED without, AUTH_MFA_INVALID_CODE when wrong, both spending the login
   * throttle's budgets as a password sign-in does), which adds 'mfa'. A passkey whose account is gone: 401
   * WEBAUTHN_VERIFICATION_FAILED.
   */
  async signInWithPasskey(
    sessionKey: string,
    response: unknown,
    from: PasskeyLoginContext = {},
  ): Promise<LoginResult> {
    const started = this.clock();
    const signIn = await this.requirePasskeys().finishAuthentication(sessionKey, response);
    const user = await this.users.findById(signIn.userId);
    if (user === null) throw errors.WEBAUTHN_VERIFICATION_FAILED();
    const amr = [...(signIn.userVerified ? PASSKEY_VERIFIED_AMR : PASSKEY_AMR)];
    let secondFactor: AcceptedCode | undefined;
    if (!signIn.userVerified && (await this.isMfaEnabled(user.id))) {
      // A key alone is one factor: the account's second one is asked for, and guessed no faster than at login.
      ({ secondFactor } = await this.requireSignInCode(user, from.mfaCode, from.ip));
      amr.push('mfa');
    }
    return this.completeSignIn(user, amr, { from, started, secondFactor });
  }

  /**
   * Starts adding a passkey for the caller (see `checkPasskeyManagement`): the creation options, bound to
   * `sessionKey` and the user.
   */
  async startPasskeyRegistration(
    sessionKey: string,
    user: PublicUser,
    amr: readonly string[] | undefined,
  ): Promise<PasskeyRegistrationOptions> {
    const passkeys = this.requirePasskeys();
    await this.checkPasskeyManagement(user.id, amr);
    return passkeys.startRegistration(sessionKey, { id: user.id, name: user.email });
  }

  /** Finishes adding the passkey started under `sessionKey`; emits `auth:passkey_added`. */
  async finishPasskeyRegistration(
    sessionKey: string,
    user: PublicUser,
    amr: readonly string[] | undefined,
    response: unknown,
    label?: string,
  ): Promise<PasskeyView> {
    const passkeys = this.requirePasskeys();
    await this.checkPasskeyManagement(user.id, amr);
    const added = await passkeys.finishRegistration(sessionKey, user.id, response, label);
    await this.emit('auth:passkey_added', { user, passkey: added });
    return added;
  }

  /**
   * Removes one of the caller's passkeys (404 PASSKEY_NOT_FOUND otherwise); 409 AUTH_LAST_SIGN_IN_METHOD when
   * it is the account's last way in (no password, no other passkey, no provider link). Emits
   * `auth:passkey_removed`.
   */
  async removePasskey(
    user: PublicUser,
    amr: readonly string[] | undefined,
    credentialId: string,
  ): Promise<void> {
    const passkeys = this.requirePasskeys();
    await this.checkPasskeyManagement(user.id, amr);
    await this.checkOtherWayIn(passkeys, user.id, credentialId);
    await passkeys.remove(user.id, credentialId);
    await this.emit('auth:passkey_removed', { user, passkeyId: credentialId });
  }

  /**
   * Refuses to remove the passkey that is the account's last way in: a passwordless account (social sign-in)
   * with no other passkey and no provider link would be locked out. Another account's or an unknown passkey is
   * left to the removal, which answers 404. Best effort: the passkeys and the links are two stores, read here
   * one after the other, so a link removed at the same moment (its own last-way check saw this passkey) can
   * leave the account with neither; only the link store's `keepOne` is atomic, and over links alone.
   */
  private async checkOtherWayIn(
    passkeys: PasskeyService,
    userId: string,
    credentialId: string,
  ): Promise<void> {
    const [account, held, links] = await Promise.all([
      this.users.findById(userId),
      passkeys.list(userId),
      this.accountLinks.listByUser(userId),
    ]);
    // As at login: a null or empty hash is no password.
    if (Boolean(account?.passwordHash) || links.length > 0) return;
    if (!held.some((passkey) => passkey.id === credentialId) || held.length > 1) return;
    throw errors.AUTH_LAST_SIGN_IN_METHOD({
      message:
        "This passkey is the account's last way to sign in (no password, no other passkey, no linked provider).",
    });
  }

  /**
   * Adding or removing a passkey needs a sign-in as strong as the account's factors: with two-factor sign-in
   * enabled, a credential obtained with it (amr 'mfa'); with a passkey already, one obtained with a passkey
   * or a second factor ('hwk' or 'mfa'). Otherwise a password-only credential (stolen, or issued before the
   * factor was added) could add a key of its own that counts as multi-factor, or take the owner's away:
   * 403 AUTH_MFA_REQUIRED. An account with neither adds its first passkey from any sign-in.
   */
  private async checkPasskeyManagement(userId: string, amr: readonly string[] | undefined): Promise<void> {
    await this.checkStrongSignIn(userId, amr, 'Managing passkeys');
  }

  /**
   * The rule of `checkPasskeyManagement` for anything that hands out or takes away a lasting way in (a passkey,
   * an API key): `what` names it in the refusal.
   */
  private async checkStrongSignIn(
    userId: string,
    amr: readonly string[] | undefined,
    what: string,
  ): Promise<void> {
    const methods = amr ?? [];
    if (methods.includes('mfa')) return;
    if (await this.isMfaEnabled(userId)) {
      throw errors.AUTH_MFA_REQUIRED({
        status: 403,
        message: `${what} needs a sign-in with your second factor.`,
      });
    }
    await this.checkFactorAddition(userId, methods);
  }

  /**
   * Adding a factor (a passkey, or TOTP through the MFA routes) to an account that holds a passkey needs a
   * sign-in with one, or with a second factor: else a password alone would add a factor of its own and sign
   * in with it as multi-factor, then take the owner's passkeys away. 403 AUTH_MFA_REQUIRED.
   */
  private async checkFactorAddition(userId: string, amr: readonly string[]): Promise<void> {
    if (amr.includes('mfa') || amr.includes('hwk') || this.passkeys === undefined) return;
    if ((await this.passkeys.list(userId)).length > 0) {
      throw errors.AUTH_MFA_REQUIRED({
        status: 403,
        message: 'Managing sign-in factors needs a sign-in with a passkey or a second factor.',
      });
    }
  }

  private requirePasskeys(): PasskeyService {
    if (this.passkeys === undefined) {
      throw invalidOption('new Auth()', 'passkeys', 'a PasskeyService, for passkey sign-in');
    }
    return this.passkeys;
  }

  // ── API keys ────────────────────────────────────────────────────────────────────────────────────────────

  /**
   * Issues a key for the signed-in caller, in `tenantId` (the request's tenant, their membership confirmed) or
   * in none. A key outlives the sign-in that made it, so it needs a sign-in as strong as the account's
   * factors (see `checkPasskeyManagement`): otherwise a stolen password-only session could leave itself a way
   * back in. Emits `auth:apikey_issued`.
   */
  async issueApiKey(
    user: PublicUser,
    amr: readonly string[] | undefined,
    input: { name?: string | undefined; scopes: readonly string[]; expiresAt?: number | undefined },
    tenantId: string | undefined,
  ): Promise<IssuedApiKey> {
    const apiKeys = this.requireApiKeys();
    await this.checkStrongSignIn(user.id, amr, 'Creating an API key');
    const issued = await apiKeys.issue({ ...input, userId: user.id, tenantId });
    await this.emit('auth:apikey_issued', { user, key: issued.record });
    return issued;
  }

  /** The caller's live keys in `tenantId` (or of no tenant), oldest first. */
  async listApiKeys(user: PublicUser, tenantId: string | undefined): Promise<ApiKeyView[]> {
    return this.requireApiKeys().list({ userId: user.id, tenantId: tenantId ?? null });
  }

  /**
   * Revokes one of the caller's keys in `tenantId` (or of no tenant): 404 AUTH_APIKEY_NOT_FOUND for any other,
   * whoever's it is. Revoking needs no stronger sign-in than the caller's: taking a way in away is what a
   * user who suspects a leak must be able to do at once. Emits `auth:apikey_revoked`.
   */
  async revokeApiKey(user: PublicUser, keyId: string, tenantId: string | undefined): Promise<void> {
    const revoked = await this.requireApiKeys().revoke(keyId, {
      userId: user.id,
      tenantId: tenantId ?? null,
    });
    if (!revoked) throw errors.AUTH_APIKEY_NOT_FOUND();
    await this.emit('auth:apikey_revoked', { user, keyId });
  }

  private requireApiKeys(): ApiKeys {
    if (this.apiKeys === undefined) {
      throw invalidOption('new Auth()', 'apiKeys', 'an ApiKeys, for API keys');
    }
    return this.apiKeys;
  }

  // ── social sign-in ────────────────────────────────────────────────────────────────────────────────────

  /**
   * Signs in someone a provider vouched for (social-login.ts has the rules): through the identity's link,
   * else to the account holding the email (linking it: only when the provider verified the email, 403
   * AUTH_SOCIAL_LINK_REFUSED otherwise; an account that never verified its email is taken over, everything
   * its previous holder could get in with revoked first), else to a new passwordless account. The same end
   * as `login`: tokens, a session with `from.session`, `auth:login`. amr `['fed']`, plus 'mfa' when the
   * account's code was checked (401 AUTH_MFA_REQUIRED without it, unless `mfa: 'skip'`).
   */
  async socialLogin(email: string, options: SocialLoginOptions = {}): Promise<LoginResult> {
    return this.social.signIn(email, options);
  }

  /** The provider identities linked to the user, oldest first. */
  async listAccountLinks(userId: string): Promise<AccountLinkView[]> {
    return this.social.list(userId);
  }

  /**
   * Removes one of the caller's links (404 AUTH_ACCOUNT_LINK_NOT_FOUND for any other, whoever's it is); 409
   * AUTH_LAST_SIGN_IN_METHOD when nothing else would sign the account in (no password, passkey or other link).
   * Like revoking an API key, it needs no stronger sign-in. Emits `auth:account_unlinked`.
   */
  async removeAccountLink(user: PublicUser, provider: string, subject: string): Promise<void> {
    await this.social.unlink(user, provider, subject);
  }

  /**
   * What a password reset ends, and an account adoption too: every session, refresh token (dated `at`) and
   * API key of the user, and its other reset links.
   */
  private async revokeAccess(userId: string, at: number): Promise<void> {
    await Promise.all([
      this.sessions.deleteByUser(userId),
      this.refreshTokens.revokeUser(userId, at),
      this.oneTimeTokens.deleteByUser(userId, 'reset-password'),
      this.apiKeys?.revokeAllOf(userId),
    ]);
  }

  private socialRules: SocialSignIn | undefined;

  private get social(): SocialSignIn {
    this.socialRules ??= new SocialSignIn({
      users: this.users,
      links: this.accountLinks,
      oneTimeTokens: this.oneTimeTokens,
      passkeys: this.passkeys,
      mfa: this.mfa,
      clock: this.clock,
      revokeAccess: (userId, at) => this.revokeAccess(userId, at),
      isMfaEnabled: (userId) => this.isMfaEnabled(userId),
      requireCode: (user, mfaCode, ip) => this.requireSignInCode(user, mfaCode, ip),
      complete: (user, amr, started, secondFactor, from) =>
        this.completeSignIn(user, amr, { from, started, secondFactor }),
      emit: (event, payload) => this.emit(event, payload),
    });
    return this.socialRules;
  }

  /**
   * The second factor of a sign-in whose first factor is not a password (a passkey without user
   * verification, a provider): guessed no faster than at login, each attempt spending the throttle's budgets
   * of the account's email and the address.
   */
  private async requireSignInCode(
    user: AuthUser,
    mfaCode: string | undefined,
    ip: string | undefined,
  ): Promise<{ secondFactor: AcceptedCode | undefined }> {
    const email = normalizeEmail(user.email);
    const reservation = await this.reserveAttempt({ email, ip });
    const code = await this.codeVerdict(user.id, mfaCode);
    if ('reason' in code) {
      await this.emit('auth:login_failed', { email, reason: code.reason, ip });
      if (reservation) await this.throttle?.recordFailure(reservation);
      throw code.error;
    }
    if (reservation) await this.throttle?.recordSuccess(reservation);
    return { secondFactor: code.secondFactor };
  }

  // ── two-factor sign-in ──────────────────────────────────────────────────────────────────────────────────

  /** Whether this Auth has svckit's two-factor sign-in (the `mfa` option). */
  get mfaEnabled(): boolean {
    return this.mfa !== undefined;
  }

  /**
   * Starts (or restarts) the user's enrolment: a TOTP secret and its otpauth URI, for an authenticator app.
   * With `amr` (the caller's credential, as the routes pass it), refused when the account's passkeys ask for a
   * stronger sign-in (see `checkFactorAddition`).
   */
  async enrollMfa(userId: string, amr?: readonly string[]): Promise<MfaEnrollment> {
    const mfa = this.requireMfa();
    if (amr !== undefined) await this.checkFactorAddition(userId, amr);
    return mfa.enroll(userId);
  }

  /**
   * Turns the enrolment on with a first code; answers the 10 recovery codes, shown this once. With `amr` (the
   * caller's credential, as the routes pass it), refused when the account's passkeys ask for a stronger
   * sign-in (see `checkFactorAddition`).
   */
  async activateMfa(
    userId: string,
    code: string,
    amr?: readonly string[],
  ): Promise<{ recoveryCodes: string[] }> {
    const mfa = this.requireMfa();
    if (amr !== undefined) await this.checkFactorAddition(userId, amr);
    const activated = await mfa.activate(userId, code);
    await this.emitAbout(userId, 'auth:mfa_enabled');
    return activated;
  }

  /** Turns MFA off, with a valid code (TOTP or recovery). */
  async disableMfa(userId: string, code: string): Promise<void> {
    await this.requireMfa().disable(userId, code);
    await this.emitAbout(userId, 'auth:mfa_disabled');
  }

  async isMfaEnabled(userId: string): Promise<boolean> {
    return this.secondFactor === undefined ? false : this.secondFactor.isEnabled(userId);
  }

  async mfaStatus(userId: string): Promise<MfaStatus> {
    return this.requireMfa().status(userId);
  }

  /** True when the code is accepted (a TOTP step once, a recovery code spent). */
  async verifyMfaCode(userId: string, code: string): Promise<boolean> {
    return this.requireMfa().verify(userId, code);
  }

  /** After a key rotation: seals the user's TOTP secret with the current key. */
  async reencryptMfaSecret(userId: string): Promise<'resealed' | 'current' | 'none'> {
    return this.requireMfa().reencrypt(userId);
  }

  private requireMfa(): MfaService {
    if (this.mfa === undefined) {
      throw invalidOption('new Auth()', 'mfa', 'an MfaService, for two-factor sign-in');
    }
    return this.mfa;
  }

  /** An MFA event about the user, when the account still exists. */
  private async emitAbout(userId: string, event: 'auth:mfa_enabled' | 'auth:mfa_disabled'): Promise<void> {
    const user = await this.users.findById(userId);
    if (user !== null) await this.emit(event, { user: publicUser(user) });
  }

  /** Events inform; a failing listener is reported and never fails the request that raised the event. */
  private async emit<E extends AuthEventName>(event: E, payload: AuthEventPayloads[E]): Promise<void> {
    try {
      await this.hooks.emit(event, payload as HookEvents[E]);
    } catch (error) {
      this.onEventError(error, event);
    }
  }

  /**
   * For the mail events: the answer must not wait for the listener (sending mail), or its timing would tell
   * an existing email from an unknown one.
   */
  private emitDetached<E extends AuthEventName>(event: E, payload: AuthEventPayloads[E]): void {
    void this.emit(event, payload);
  }
}

function invalidLink(): Error {
  return errors.AUTH_TOKEN_INVALID({ status: 400 });
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}
