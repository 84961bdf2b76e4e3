// The MFA store contract (docs/stores.md, "MFA"): one record per user with two-factor sign-in, pending from
// enrolment until a first code activates it, then enabled until removed. Every transition is one
// compare-and-set, atomic in every implementation (one SQL statement; one synchronous map update in memory),
// never a read followed by a write: a TOTP step is accepted once, a recovery code is spent once, and an
// activation applies only to the enrolment its code was checked against, on any number of processes.
// Durable data: a record never expires and is never evicted (losing one would switch a user's second factor
// off), so it lives in the database whenever one is configured, never in Redis.
import { invalidOption } from '../../config/option-errors.js';

export type MfaState = 'pending' | 'enabled';

export interface MfaRecord {
  userId: string;
  /** The sealed TOTP secret (an opaque string to the store). */
  secret: string;
  state: MfaState;
  /** Hashes of the recovery codes not used yet (empty while pending). */
  recoveryHashes: string[];
  /** The last TOTP time step accepted; a code of this step or an earlier one is refused. */
  lastStep: number | undefined;
  /** When the enrolment (or its latest restart) began, Unix ms. */
  createdAt: number;
  /** When the enrolment was activated, Unix ms; undefined while pending. */
  enabledAt: number | undefined;
}

export interface MfaStore {
  /** The user's record (a copy), or undefined without one. */
  get(userId: string): Promise<MfaRecord | undefined>;
  /**
   * Starts or restarts an enrolment with `secret`: a pending record dated `now`, replacing a pending one. An
   * enabled record is kept and the answer is false: replacing it would let a stolen session swap the factor.
   */
  enroll(userId: string, secret: string, now: number): Promise<boolean>;
  /**
   * pending → enabled with the recovery hashes and `step` as lastStep, dated `now`, only while the record is
   * pending with exactly `secret` (a restarted enrolment in between makes it false).
   */
  activate(
    userId: string,
    secret: string,
    recoveryHashes: readonly string[],
    step: number,
    now: number,
  ): Promise<boolean>;
  /**
   * Accepts `step` once: true only when the record is enabled and step > lastStep, which becomes step. With
   * `enabledAt`, only on the activation of that moment: a code checked against a secret since disabled and
   * enrolled again is never accepted on the new one.
   */
  useStep(userId: string, step: number, only?: { enabledAt: number }): Promise<boolean>;
  /**
   * Spends one recovery code: true only when the record is enabled and held `hash`, which is removed (every
   * copy, were it listed twice).
   */
  useRecoveryCode(userId: string, hash: string): Promise<boolean>;
  /**
   * Disables: deletes the record, pending or enabled. True when there was one. With `enabledAt`, only the
   * activation of that moment (a disable checked against one activation never removes a later one; a re-seal
   * keeps it).
   */
  remove(userId: string, only?: { enabledAt: number }): Promise<boolean>;
  /**
   * Re-sealing after a key rotation: replaces the secret, pending or enabled, only while it still equals
   * `expected`. Nothing else of the record changes.
   */
  replaceSecret(userId: string, expected: string, next: string): Promise<boolean>;
  /**
   * Up to `limit` (a whole number, 1 or more) records, of the users strictly after `after` (from the first
   * when undefined), ascending by user id in code-point order (PostgreSQL's "C" collation, whatever the
   * database's locale): a resumable scan for re-sealing, one read per batch.
   */
  recordsAfter(after: string | undefined, limit: number): Promise<MfaRecord[]>;
}

/** Refuses a scan limit that is not a whole number, 1 or more (OPTION_INVALID), the same on every backend. */
export function checkScanLimit(owner: string, limit: number): void {
  if (!Number.isSafeInteger(limit) || limit < 1) {
    throw invalidOption(owner, 'limit', 'a whole number, 1 or more', `got ${String(limit)}`);
  }
}
