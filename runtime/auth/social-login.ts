// The account rules of social sign-in: which account a provider's person signs in to, when an account may be
// linked to a provider identity, and what an account taken over by its email's owner loses. The protocol (the
// redirect, the code exchange, the checks on the provider's reply) is elsewhere (runtime/auth/oauth/); this
// acts on what it asserts: an email, whether the provider verified it, and the identity (provider, subject).
//
// The rules:
// - A linked identity signs in to its account, whatever email the provider gives now (the account's email is
//   not changed). A link whose account is gone is removed and the sign-in goes on as if it never existed.
// - A first sign-in whose email has no account creates one, passwordless, verified when the provider verified
//   the email, and links the identity to it (`auth:registered`, then `auth:account_linked`).
// - A first sign-in whose email has an account links to it only when the provider verified the email (403
//   AUTH_SOCIAL_LINK_REFUSED otherwise, nothing changed), and only when the account holds no other subject of
//   the same provider (409 AUTH_ACCOUNT_LINK_CONFLICT), unless `subjectConflict: 'link'`. The same holds for
//   the account a first sign-in has just created: of two subjects of one provider racing to open it, one is
//   linked and the other answers 409.
// - An account that never verified its email may have been opened by someone who does not own the address: the
//   owner takes it over. Everything the previous holder could still get in with is revoked first (password,
//   sessions, refresh tokens, pending reset and verification links, API keys, passkeys, svckit's MFA, account
//   links), then the email is marked verified (`auth:account_adopted`), then the identity is linked. Events
//   tell what went: `auth:account_unlinked` per link and `auth:passkey_removed` per passkey removed, then
//   `auth:mfa_disabled` when svckit's MFA was on, all before `auth:account_adopted` (sessions, tokens and keys
//   go without an event of their own, as at a password reset). A failure half-way leaves the account locked
//   rather than the old password working beside the new link; the next sign-in takes it over again from the
//   start. A user source that does not remove the password on `passwordHash: null` stops the takeover (500
//   AUTH_UPDATE_UNSUPPORTED) before anything else is revoked or linked.
// - The same distrust holds when the owner proves the address another way (Auth.verifyEmail, Auth.resetPassword
//   of an account that was not verified): every link is removed first (`auth:account_unlinked` each), since it
//   was made by whoever asserted an address they had not proved. The owner links again by signing in through
//   a provider that verified the email.
// - An account with two-factor sign-in needs its code (as every sign-in: 401 AUTH_MFA_REQUIRED without it,
//   AUTH_MFA_INVALID_CODE when wrong, both spending the login throttle's budgets), unless `mfa: 'skip'` (an
//   application whose provider enforces its own second factor). Checked before anything is changed.
// - Concurrent first sign-ins of one identity make one account and one link: the source refuses the second
//   account (AUTH_EMAIL_TAKEN), which then takes the existing-account path once; a link lost to a concurrent
//   one is followed when it names the same account, else 409 AUTH_ACCOUNT_LINK_CONFLICT.
// amr is `['fed']` (RFC 8176: a federated assertion), plus `'mfa'` when a code was checked.
import { errors } from '../../generated/modules/errors.js';
import { HttpError } from '../http/errors.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import type { LoginContext, LoginResult } from './auth.js';
import type { AuthEventName, AuthEventPayloads } from './events.js';
import type { AcceptedCode, MfaService } from './mfa/service.js';
import type { PasskeyService } from './passkeys/service.js';
import type { AccountLink, AccountLinkStore } from './stores/account-links.js';
import type { OneTimeTokenStore } from './stores/one-time-tokens.js';
import {
  normalizeEmail,
  publicUser,
  type AuthUser,
  type PublicUser,
  type UserSource,
} from './stores/users.js';

const FEDERATED_AMR = 'fed';

/** A provider's person: the provider's configured name and its stable id of them. */
export interface SocialIdentity {
  provider: string;
  subject: string;
}

export interface SocialLoginOptions {
  /** True only when the provider verified the email. */
  emailVerified?: boolean | undefined;
  /** The account's second-factor code, when it has one. */
  mfaCode?: string | undefined;
  /** 'skip': no second factor is asked for (the provider enforces its own). */
  mfa?: 'skip' | undefined;
  /** Who signed in at the provider; without it no link is read or made and the email alone decides. */
  identity?: SocialIdentity | undefined;
  /** 'link': a second subject of a provider the account is linked to is linked too (409 otherwise). */
  subjectConflict?: 'link' | undefined;
  /** Where the sign-in comes from (throttle, events) and whether it starts a session. */
  from?: LoginContext | undefined;
}

/** The keys of SocialLoginOptions; any other is refused. */
const SOCIAL_LOGIN_OPTIONS = optionKeys<SocialLoginOptions>({
  emailVerified: true,
  mfaCode: true,
  mfa: true,
  identity: true,
  subjectConflict: true,
  from: true,
});

/** What the links routes show of a link. */
export interface AccountLinkView {
  provider: string;
  subject: string;
  createdAt: number;
}

/** What the rules use of the Auth: its stores and services, and the steps every sign-in shares. */
export interface SocialSignInHost {
  readonly users: UserSource;
  readonly links: AccountLinkStore;
  readonly oneTimeTokens: OneTimeTokenStore;
  readonly passkeys: PasskeyService | undefined;
  /** svckit's MFA, which an adoption can remove; another second factor is kept and asked for. */
  readonly mfa: MfaService | undefined;
  clock(): number;
  /** What a password reset ends: every session, refresh token (dated `at`) and API key, and reset links. */
  revokeAccess(userId: string, at: number): Promise<void>;
  isMfaEnabled(userId: string): Promise<boolean>;
  /** The account's code, checked as at every sign-in (throttle budgets, `auth:login_failed`), or throws. */
  requireCode(
    user: AuthUser,
    mfaCode: string | undefined,
    ip: string | undefined,
  ): Promise<{ secondFactor: AcceptedCode | undefined }>;
  /** Tokens dated `started`, a session when asked, the `auth:login` event. */
  complete(
    user: AuthUser,
    amr: string[],
    started: number,
    secondFactor: AcceptedCode | undefined,
    from: LoginContext,
  ): Promise<LoginResult>;
  emit<E extends AuthEventName>(event: E, payload: AuthEventPayloads[E]): Promise<void>;
}

/** One sign-in: what was asserted and asked for. */
interface Attempt {
  address: string;
  verified: boolean;
  identity: SocialIdentity | undefined;
  options: SocialLoginOptions;
  from: LoginContext;
  started: number;
}

export class SocialSignIn {
  constructor(private readonly host: SocialSignInHost) {}

  async signIn(email: string, options: SocialLoginOptions = {}): Promise<LoginResult> {
    rejectUnknownOptions(options, SOCIAL_LOGIN_OPTIONS, 'auth.socialLogin()');
    const identity = options.identity === undefined ? undefined : checkedIdentity(options.identity);
    const attempt: Attempt = {
      address: normalizeEmail(email),
      verified: options.emailVerified === true,
      identity,
      options,
      from: options.from ?? {},
      started: this.host.clock(),
    };
    const linked = identity === undefined ? undefined : await this.follow(identity);
    if (linked !== undefined) return this.finish(linked, attempt);
    const existing = await this.host.users.findByEmail(attempt.address);
    if (existing !== null) return this.signInExisting(existing, attempt);
    let created: AuthUser;
    try {
      created = await this.host.users.create({ email: attempt.address, emailVerified: attempt.verified });
    } catch (error) {
      if (!(error instanceof HttpError && error.code === 'AUTH_EMAIL_TAKEN')) throw error;
      // A concurrent sign-in (this identity's, most likely) made the account first: its link, else the account.
      const followed = identity === undefined ? undefined : await this.follow(identity);
      if (followed !== undefined) return this.finish(followed, attempt);
      const holder = await this.host.users.findByEmail(attempt.address);
      if (holder === null) throw error;
      return this.signInExisting(holder, attempt);
    }
    await this.host.emit('auth:registered', { user: publicUser(created) });
    // Another subject of the provider may have taken the existing-account path to this account meanwhile.
    if (identity !== undefined) await this.link(created, identity, options.subjectConflict !== 'link');
    // A new account has no second factor yet.
    return this.complete(created, attempt, { checked: false });
  }

  /** The user's links, oldest first. */
  async list(userId: string): Promise<AccountLinkView[]> {
    return (await this.host.links.listByUser(userId)).map(({ provider, subject, createdAt }) => ({
      provider,
      subject,
      createdAt,
    }));
  }

  /**
   * Removes one of the user's links: 404 AUTH_ACCOUNT_LINK_NOT_FOUND for any other (unknown, or another
   * account's), 409 AUTH_LAST_SIGN_IN_METHOD when the account has no password, no passkey and no other link.
   * The last-link rule is the store's `keepOne`, decided in one step with the removal, so two removals racing
   * over a passwordless account's two links leave one.
   */
  async unlink(user: PublicUser, provider: string, subject: string): Promise<void> {
    const account = await this.host.users.findById(user.id);
    // As at login: a null or empty hash is no password.
    const otherWay =
      Boolean(account?.passwordHash) ||
      (this.host.passkeys !== undefined && (await this.host.passkeys.list(user.id)).length > 0);
    const removed = await this.host.links.remove(user.id, provider, subject, { keepOne: !otherWay });
    if (removed === 'not_found') throw errors.AUTH_ACCOUNT_LINK_NOT_FOUND();
    if (removed === 'last') throw errors.AUTH_LAST_SIGN_IN_METHOD();
    await this.host.emit('auth:account_unlinked', { user, provider, subject });
  }

  /**
   * Removes every link of an account whose email its owner has just proved (a verification or reset link that
   * reached the address): `auth:account_unlinked` per link. The links listed are the ones reported; one made
   * between the listing and the removal goes without its event.
   */
  async unlinkAll(user: PublicUser): Promise<void> {
    for (const link of await this.takeLinks(user.id)) {
      await this.host.emit('auth:account_unlinked', { user, provider: link.provider, subject: link.subject });
    }
  }

  /**
   * The ways in an account gained while its email was unproved, beyond what a password reset always revokes:
   * its provider links, passkeys and svckit's second factor, each gone with its event. Whoever opened the
   * account may not own the address; the owner proving it must not find the opener's factors still working.
   */
  async revokeUnprovedFactors(user: PublicUser): Promise<void> {
    const { host } = this;
    const mfaWasOn = (await host.mfa?.isEnabled(user.id)) === true;
    const [mfaRemoved, passkeysRemoved] = await Promise.all([
      host.mfa?.revoke(user.id),
      this.removePasskeys(user.id),
      this.unlinkAll(user),
    ]);
    for (const passkeyId of passkeysRemoved) await host.emit('auth:passkey_removed', { user, passkeyId });
    if (mfaWasOn && mfaRemoved === true) await host.emit('auth:mfa_disabled', { user });
  }

  /** Removes every link of the user; answers those it listed first, for the events. */
  private async takeLinks(userId: string): Promise<AccountLink[]> {
    const held = await this.host.links.listByUser(userId);
    await this.host.links.removeByUser(userId);
    return held;
  }

  /** The account the identity is linked to; a link whose account is gone is removed and counts as none. */
  private async follow(identity: SocialIdentity): Promise<AuthUser | undefined> {
    const link = await this.host.links.find(identity.provider, identity.subject);
    if (link === undefined) return undefined;
    const user = await this.host.users.findById(link.userId);
    if (user !== null) return user;
    await this.host.links.remove(link.userId, link.provider, link.subject);
    return undefined;
  }

  /** A first sign-in of the identity (or one without) to an account that holds the email. */
  private async signInExisting(user: AuthUser, attempt: Attempt): Promise<LoginResult> {
    const { identity, options } = attempt;
    if (!attempt.verified) throw errors.AUTH_SOCIAL_LINK_REFUSED();
    // The previous holder's links go with the adoption: only a verified account's are the owner's.
    const adopt = !user.emailVerified;
    const conflictAllowed = options.subjectConflict === 'link';
    if (identity !== undefined && !adopt && !conflictAllowed) {
      // The same pair held already is a concurrent first sign-in of this identity that linked first: no conflict.
      const held = await this.host.links.listByUser(user.id);
      const other = held.some(
        (link) => link.provider === identity.provider && link.subject !== identity.subject,
      );
      if (other) throw errors.AUTH_ACCOUNT_LINK_CONFLICT();
    }
    // svckit's MFA goes with an adoption (the previous holder's factor); another second factor cannot be
    // removed, so it is asked for like any account's.
    const keepsFactor = !adopt || this.host.mfa === undefined;
    const code = keepsFactor ? await this.checkCode(user, attempt) : { checked: false };
    let account = user;
    if (adopt) {
      const adopted = await this.adopt(user, identity);
      account = adopted.user;
      // Dated after the revocation, or the new refresh token would be born revoked.
      attempt.started = adopted.revokedAt + 1;
    }
    if (identity !== undefined) await this.link(account, identity, !adopt && !conflictAllowed);
    return this.complete(account, attempt, code);
  }

  /**
   * Takes an unverified account over for its email's owner: revoke first, link last (the caller links).
   * Answers the account as updated (email verified, no password) and when its refresh tokens were revoked.
   */
  private async adopt(
    user: AuthUser,
    identity: SocialIdentity | undefined,
  ): Promise<{ user: AuthUser; revokedAt: number }> {
    // A source without `update` cannot take the password away: refused before anything is revoked.
    const update = this.host.users.update?.bind(this.host.users);
    if (update === undefined) throw errors.AUTH_UPDATE_UNSUPPORTED();
    const { host } = this;
    // What a password reset revokes. Run whatever the update answered: a 503 may come once the password is
    // already gone (its invalidation not confirmed to every process), and the previous holder must not stay
    // signed in because the adoption stopped there.
    const revokeHolder = (at: number) =>
      Promise.all([host.revokeAccess(user.id, at), host.oneTimeTokens.deleteByUser(user.id, 'verify-email')]);
    // The password first: from here on, whatever fails, the previous holder's password no longer signs in.
    let stripped: AuthUser | null;
    try {
      stripped = await update(user.id, { passwordHash: null });
    } catch (error) {
      await revokeHolder(host.clock());
      throw error;
    }
    if (stripped === null) throw errors.AUTH_INVALID_CREDENTIALS();
    // A source that ignores null would leave the old password working beside the owner's link: stop here.
    if (stripped.passwordHash) {
      throw errors.AUTH_UPDATE_UNSUPPORTED({
        message:
          'The user source did not remove the password: update(id, { passwordHash: null }) must remove it.',
      });
    }
    const now = host.clock();
    await revokeHolder(now);
    // Then what the owner proving the address revokes (with their events).
    await this.revokeUnprovedFactors(publicUser(user));
    const updated = await update(user.id, { emailVerified: true });
    if (updated === null) throw errors.AUTH_INVALID_CREDENTIALS();
    await host.emit('auth:account_adopted', { user: publicUser(updated), provider: identity?.provider });
    return { user: updated, revokedAt: now };
  }

  /** Removes the user's passkeys; answers the ids this removed. */
  private async removePasskeys(userId: string): Promise<string[]> {
    const passkeys = this.host.passkeys;
    if (passkeys === undefined) return [];
    const removed: string[] = [];
    for (const passkey of await passkeys.list(userId)) {
      try {
        await passkeys.remove(userId, passkey.id);
        removed.push(passkey.id);
      } catch (error) {
        // Removed meanwhile: gone either way, and reported by whoever removed it.
        if (!(error instanceof HttpError && error.code === 'PASSKEY_NOT_FOUND')) throw error;
      }
    }
    return removed;
  }

  /**
   * Links the identity to the account. A pair linked meanwhile is followed when it names this account, else
   * 409; so is `onePerProvider` refusing a second subject of the provider.
   */
  private async link(user: AuthUser, identity: SocialIdentity, onePerProvider: boolean): Promise<void> {
    const link: AccountLink = { ...identity, userId: user.id, createdAt: this.host.clock() };
    const result = await this.host.links.link(link, { onePerProvider });
    if (result === 'linked') {
      await this.host.emit('auth:account_linked', { user: publicUser(user), ...identity });
      return;
    }
    if (result === 'taken') {
      const winner = await this.host.links.find(identity.provider, identity.subject);
      if (winner?.userId === user.id) return;
    }
    throw errors.AUTH_ACCOUNT_LINK_CONFLICT();
  }

  /** Signs in to an account found through its link: the code first, when it has a second factor. */
  private async finish(user: AuthUser, attempt: Attempt): Promise<LoginResult> {
    return this.complete(user, attempt, await this.checkCode(user, attempt));
  }

  /** The account's code when it has a second factor, unless `mfa: 'skip'`. */
  private async checkCode(
    user: AuthUser,
    attempt: Attempt,
  ): Promise<{ checked: boolean; secondFactor?: AcceptedCode | undefined }> {
    if (attempt.options.mfa === 'skip' || !(await this.host.isMfaEnabled(user.id))) return { checked: false };
    const { secondFactor } = await this.host.requireCode(user, attempt.options.mfaCode, attempt.from.ip);
    return { checked: true, secondFactor };
  }

  private complete(
    user: AuthUser,
    attempt: Attempt,
    code: { checked: boolean; secondFactor?: AcceptedCode | undefined },
  ): Promise<LoginResult> {
    const amr = code.checked ? [FEDERATED_AMR, 'mfa'] : [FEDERATED_AMR];
    return this.host.complete(user, amr, attempt.started, code.secondFactor, attempt.from);
  }
}

/** The identity as given, refused unless both parts are non-empty strings. */
function checkedIdentity(identity: SocialIdentity): SocialIdentity {
  rejectUnknownOptions(identity, ['provider', 'subject'], 'auth.socialLogin(): identity');
  const { provider, subject } = identity;
  if (typeof provider !== 'string' || provider === '') {
    throw invalidOption('auth.socialLogin()', 'identity.provider', 'the provider name, a non-empty string');
  }
  if (typeof subject !== 'string' || subject === '') {
    throw invalidOption('auth.socialLogin()', 'identity.subject', "the provider's id of the person");
  }
  return { provider, subject };
}
