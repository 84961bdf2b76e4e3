// The MFA login bench server: the login bench server (scrypt at its default cost, stores in memory, no
// throttle) with two-factor sign-in configured and MFA_LOGIN_ACCOUNT_COUNT accounts. With BENCH_MFA=on every
// account is enrolled and activated through the Auth API, so each login needs a TOTP code; with off the
// accounts have no MFA and sign in with the password alone. The accounts go to the runner through a file
// the runner names (mfa-login-accounts.ts).
import { randomBytes } from 'node:crypto';
import { Auth, MemoryMfaStore, MemoryUserSource, MfaService, SecretBox } from 'svckit';
import { BENCH_AUTH_SECRET } from './auth-secret.js';
import { startLoginBenchServer } from './login-server.js';
import {
  BENCH_MFA_ACCOUNTS_FILE_ENV,
  BENCH_MFA_ENV,
  MFA_LOGIN_ACCOUNT_COUNT,
  MFA_LOGIN_PASSWORD,
  benchMfaMode,
  mfaLoginEmail,
  publishMfaLoginAccounts,
  totpCodeAt,
  totpStepAt,
  type MfaLoginAccount,
} from './mfa-login-accounts.js';

const STEP_MS = 30_000;
/** One more try covers a step boundary passing between computing the code and checking it. */
const ACTIVATION_TRIES = 2;
const mode = benchMfaMode(process.env[BENCH_MFA_ENV]);

const users = new MemoryUserSource();
const mfa = new MfaService({
  store: new MemoryMfaStore(),
  box: new SecretBox({ keys: [{ id: 'bench', material: randomBytes(32) }] }),
  issuer: 'svckit bench',
  users,
});
const auth = new Auth({ secret: BENCH_AUTH_SECRET, loginThrottle: false, users, mfa });

// One hash serves every account: a login verifies the same scrypt hash whichever account it names, and
// hashing thousands of passwords would only slow the start.
const first = await auth.register(mfaLoginEmail(0), MFA_LOGIN_PASSWORD);
const { passwordHash } = (await users.findById(first.user.id))!;
const userIds = [first.user.id];
for (let index = 1; index < MFA_LOGIN_ACCOUNT_COUNT; index++) {
  const user = await users.create({ email: mfaLoginEmail(index), passwordHash, emailVerified: false });
  userIds.push(user.id);
}

/**
 * Activates with the previous step's code (inside the one-step window), so the step used last is behind the
 * current one and the runner can sign in at once; retried when a step boundary passed meanwhile.
 */
async function enrol(userId: string, email: string): Promise<MfaLoginAccount> {
  const { secret } = await auth.enrollMfa(userId);
  for (let tries = 1; ; tries++) {
    const previous = Date.now() - STEP_MS;
    try {
      await auth.activateMfa(userId, totpCodeAt(secret, previous));
      return { email, secret, lastStep: totpStepAt(previous) };
    } catch (error) {
      if ((error as { code?: string }).code !== 'AUTH_MFA_INVALID_CODE' || tries >= ACTIVATION_TRIES)
        throw error;
    }
  }
}

const accounts: MfaLoginAccount[] = [];
for (const [index, userId] of userIds.entries()) {
  const email = mfaLoginEmail(index);
  accounts.push(mode === 'on' ? await enrol(userId, email) : { email });
}
publishMfaLoginAccounts(process.env[BENCH_MFA_ACCOUNTS_FILE_ENV], accounts);
await startLoginBenchServer(auth);
