// Two-factor sign-in for one service: enrolment (a TOTP secret, sealed at rest), activation with a first code
// (10 recovery codes, shown once, kept as hashes), verification at sign-in and for disabling, status, and
// re-sealing after a key rotation. Every step that must happen once is a compare-and-set in the store: a TOTP
// time step is accepted once (a replayed code is refused), a recovery code is spent once, an activation
// applies only to the enrolment it was started from.
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import type { SecondFactor } from '../options.js';
import type { UserSource } from '../stores/users.js';
import { classifyCode, newRecoveryCodes } from './recovery-codes.js';
import type { SecretBox } from './secret-box.js';
import type { MfaRecord, MfaStore } from './store.js';
import { matchTotp, newTotpSecret, otpauthUri } from './totp.js';

export interface MfaServiceOptions {
  store: MfaStore;
  /** Seals the TOTP secrets at rest. */
  box: SecretBox;
  /** The issuer authenticator apps show: the service's name. */
  issuer: string;
  /** For the account label of the otpauth URI (the user's email). */
  users: Pick<UserSource, 'findById'>;
  /** Unix ms now. Default Date.now. */
  clock?: () => number;
}

const OPTIONS = optionKeys<MfaServiceOptions>({
  store: true,
  box: true,
  issuer: true,
  users: true,
  clock: true,
});

export interface MfaEnrollment {
  /** Base32, for typing into an authenticator app. */
  secret: string;
  /** `otpauth://totp/...`, for a QR code. */
  otpauthUri: string;
}

export interface MfaStatus {
  /** `none`: not enrolled; `pending`: enrolled, waiting for a first code; `enabled`. */
  state: 'none' | 'pending' | 'enabled';
  /** Recovery codes not used yet (0 unless enabled). */
  recoveryCodesLeft: number;
}

/** How a code was accepted: a TOTP code, or a recovery code (spent). */
export type AcceptedCode = 'totp' | 'recovery';

export class MfaService implements SecondFactor {
  private readonly store: MfaStore;
  private readonly box: SecretBox;
  private readonly issuer: string;
  private readonly users: Pick<UserSource, 'findById'>;
  private readonly now: () => number;

  constructor(options: MfaServiceOptions) {
    rejectUnknownOptions(options, OPTIONS, 'MfaService');
    // Authenticator apps split the label at ':': an issuer holding one would be misread.
    if (typeof options.issuer !== 'string' || options.issuer === '' || options.issuer.includes(':')) {
      throw invalidOption('MfaService', 'issuer', 'the service name, without ":"');
    }
    this.store = options.store;
    this.box = options.box;
    this.issuer = options.issuer;
    this.users = options.users;
    this.now = options.clock ?? Date.now;
  }

  /**
   * Starts (or restarts) an enrolment: a new secret, sealed for this user. An account whose MFA is enabled
   * must disable it first (409 AUTH_MFA_ALREADY_ENABLED): re-enrolling would let a stolen session replace
   * the second factor.
   */
  async enroll(userId: string): Promise<MfaEnrollment> {
    const user = await this.users.findById(userId);
    if (user === null) throw errors.AUTH_REQUIRED();
    const secret = newTotpSecret();
    const started = await this.store.enroll(userId, this.box.seal(userId, secret), this.now());
    if (!started) throw errors.AUTH_MFA_ALREADY_ENABLED();
    return { secret, otpauthUri: otpauthUri({ secret, issuer: this.issuer, account: user.email }) };
  }

  /** Turns a pending enrolment on with a first TOTP code; answers the 10 recovery codes, once. */
  async activate(userId: string, code: string): Promise<{ recoveryCodes: string[] }> {
    const record = await this.store.get(userId);
    if (record === undefined) throw errors.AUTH_MFA_NOT_ENROLLED();
    if (record.state === 'enabled') throw errors.AUTH_MFA_ALREADY_ENABLED();
    const step = matchTotp(this.box.open(userId, record.secret), code, { now: this.now() });
    if (step === undefined) throw errors.AUTH_MFA_INVALID_CODE();
    const { codes, hashes } = newRecoveryCodes();
    // Only the enrolment this code was checked against: one restarted meanwhile is not activated.
    if (!(await this.store.activate(userId, record.secret, hashes, step, this.now()))) {
      // Lost to a concurrent activation, or the enrolment was restarted or removed meanwhile.
      const now = await this.store.get(userId);
      throw now?.state === 'enabled' ? errors.AUTH_MFA_ALREADY_ENABLED() : errors.AUTH_MFA_NOT_ENROLLED();
    }
    return { recoveryCodes: codes };
  }

  /** Turns MFA off; needs a valid code (TOTP or recovery), like signing in. */
  async disable(userId: string, code: string): Promise<void> {
    const record = await this.store.get(userId);
    if (record?.state !== 'enabled' || record.enabledAt === undefined) throw errors.AUTH_MFA_NOT_ENROLLED();
    if ((await this.acceptCode(userId, code, record)) === undefined) throw errors.AUTH_MFA_INVALID_CODE();
    // Only the activation the code was checked against: a disable that stalled never removes a later one.
    if (!(await this.store.remove(userId, { enabledAt: record.enabledAt }))) {
      throw errors.AUTH_MFA_NOT_ENROLLED();
    }
  }

  /**
   * Removes the user's two-factor sign-in, pending or enabled, without a code: for an account whose email's
   * owner takes it over (social sign-in), where the factor was the previous holder's. True when there was one.
   */
  async revoke(userId: string): Promise<boolean> {
    return this.store.remove(userId);
  }

  async isEnabled(userId: string): Promise<boolean> {
    return (await this.store.get(userId))?.state === 'enabled';
  }

  async status(userId: string): Promise<MfaStatus> {
    const record = await this.store.get(userId);
    if (record === undefined) return { state: 'none', recoveryCodesLeft: 0 };
    return {
      state: record.state,
      recoveryCodesLeft: record.state === 'enabled' ? record.recoveryHashes.length : 0,
    };
  }

  /** SecondFactor: true when the code is accepted (a TOTP step once, a recovery code spent). */
  async verify(userId: string, code: string): Promise<boolean> {
    return (await this.accept(userId, code)) !== undefined;
  }

  /** How `code` was accepted for the user's enabled MFA, or undefined when it was not. */
  async accept(userId: string, code: string): Promise<AcceptedCode | undefined> {
    return this.acceptCode(userId, code, undefined);
  }

  /** accept(), checking a TOTP code against `read` when the caller has just read the record. */
  private async acceptCode(
    userId: string,
    code: string,
    read: MfaRecord | undefined,
  ): Promise<AcceptedCode | undefined> {
    const kind = classifyCode(code);
    if (kind === undefined) return undefined;
    if (kind.kind === 'recovery') {
      return (await this.store.useRecoveryCode(userId, kind.hash)) ? 'recovery' : undefined;
    }
    const record = read ?? (await this.store.get(userId));
    if (record?.state !== 'enabled' || record.enabledAt === undefined) return undefined;
    const step = matchTotp(this.box.open(userId, record.secret), kind.code, { now: this.now() });
    if (step === undefined) return undefined;
    // Accepted once, and only on the activation whose secret the code was checked against: the same code
    // replayed within its window, or one of a secret disabled and enrolled again meanwhile, is refused here.
    return (await this.store.useStep(userId, step, { enabledAt: record.enabledAt })) ? 'totp' : undefined;
  }

  /** After a key rotation: seals the user's secret with the current key. */
  async reencrypt(userId: string): Promise<'resealed' | 'current' | 'none'> {
    const record = await this.store.get(userId);
    if (record === undefined) return 'none';
    // A concurrent change (a new enrolment) is sealed with the current key anyway.
    return (await this.reseal(record)) === 'resealed' ? 'resealed' : 'current';
  }

  /**
   * Re-seals a record as read (a scan's page): `'changed'` when the stored secret is no longer the one read
   * (removed or enrolled again meanwhile; the compare-and-set leaves it alone).
   */
  async reseal(record: MfaRecord): Promise<'resealed' | 'current' | 'changed'> {
    if (!this.box.needsReseal(record.secret)) return 'current';
    const resealed = this.box.seal(record.userId, this.box.open(record.userId, record.secret));
    return (await this.store.replaceSecret(record.userId, record.secret, resealed)) ? 'resealed' : 'changed';
  }
}
