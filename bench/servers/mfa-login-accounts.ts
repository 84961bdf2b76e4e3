// The accounts of the MFA login bench and how the runner learns them. A TOTP code is accepted once per 30 s
// step per account, so 50 clients signing in for seconds need many accounts, each used at most once a step.
// The server enrols them at start (TOTP secrets are made at random) and writes them, before it listens, to
// the file the runner names in BENCH_MFA_ACCOUNTS_FILE; the runner reads it back to compute a fresh code for
// every request. The same TOTP parameters as runtime/auth/mfa/totp.ts: what every authenticator app uses.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Secret, TOTP } from 'otpauth';

/** Whether the server enrols its accounts in MFA (`on`) or leaves them without (`off`). */
export const BENCH_MFA_ENV = 'BENCH_MFA';
/** Where the server writes its accounts for the runner. */
export const BENCH_MFA_ACCOUNTS_FILE_ENV = 'BENCH_MFA_ACCOUNTS_FILE';
export type BenchMfaMode = 'on' | 'off';

/**
 * Well above the logins of one step at the rate this bench reaches (about 15/s, so 450 a step): the rotation
 * never comes back to an account within the step it last used.
 */
export const MFA_LOGIN_ACCOUNT_COUNT = 2000;
export const MFA_LOGIN_PASSWORD = 'bench password 1';
const TOTP_PERIOD_SECONDS = 30;

export function benchMfaMode(value: string | undefined): BenchMfaMode {
  if (value === 'on' || value === 'off') return value;
  throw new Error(`${BENCH_MFA_ENV} must be on or off, not ${String(value)}`);
}

export function mfaLoginEmail(index: number): string {
  return `bench-${index}@example.com`;
}

/** One account as the runner needs it: the email; with MFA also the secret and the step it used last. */
export interface MfaLoginAccount {
  email: string;
  secret?: string;
  lastStep?: number;
}

function totp(secret: string): TOTP {
  return new TOTP({
    secret: Secret.fromBase32(secret),
    digits: 6,
    period: TOTP_PERIOD_SECONDS,
    algorithm: 'SHA1',
  });
}

/** The code an authenticator app shows for `secret` at `timestamp` (unix ms). */
export function totpCodeAt(secret: string, timestamp: number): string {
  return totp(secret).generate({ timestamp });
}

/** The time step `timestamp` falls in: the one a code generated then belongs to. */
export function totpStepAt(timestamp: number): number {
  return TOTP.counter({ period: TOTP_PERIOD_SECONDS, timestamp });
}

/** The code generator of one account, made once: the runner computes a code per request. */
export function totpGenerator(secret: string): (timestamp: number) => string {
  const generator = totp(secret);
  return (timestamp) => generator.generate({ timestamp });
}

/** Runner side: a fresh file for one server's accounts, and how to remove it. */
export function newMfaLoginAccountsFile(): { file: string; remove: () => void } {
  const directory = mkdtempSync(path.join(tmpdir(), 'svc-bench-mfa-login-'));
  return {
    file: path.join(directory, 'accounts.json'),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** Server side: records the accounts where the runner asked. */
export function publishMfaLoginAccounts(
  file: string | undefined,
  accounts: readonly MfaLoginAccount[],
): void {
  if (file === undefined || file === '') throw new Error(`${BENCH_MFA_ACCOUNTS_FILE_ENV} is not set`);
  writeFileSync(file, JSON.stringify(accounts));
}

/** Runner side: the accounts the server wrote. */
export function readMfaLoginAccounts(file: string): MfaLoginAccount[] {
  return JSON.parse(readFileSync(file, 'utf8')) as MfaLoginAccount[];
}
