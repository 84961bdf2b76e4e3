// The MFA login bench (login with MFA vs without under 50 concurrent clients, event-loop p99 < 20 ms): the
// login bench's load against two servers alike but for the second factor (bench/servers/svc-mfa-login.ts).
// Without MFA, 50 connections POST /auth/login with the right password; with it, every request also carries a
// valid TOTP code the runner computes as it sends it, from the account's secret. A code is accepted once per
// 30 s step per account, so the requests rotate through MFA_LOGIN_ACCOUNT_COUNT accounts and never name one
// twice in a step. The server measures its own event-loop delay, as in the login bench.
import autocannon from 'autocannon';
import { LOGIN_CONNECTIONS } from './login.js';
import { startServer } from './lib/processes.js';
import { median } from './lib/results.js';
import {
  BENCH_MFA_ACCOUNTS_FILE_ENV,
  BENCH_MFA_ENV,
  MFA_LOGIN_ACCOUNT_COUNT,
  MFA_LOGIN_PASSWORD,
  newMfaLoginAccountsFile,
  readMfaLoginAccounts,
  totpGenerator,
  totpStepAt,
  type BenchMfaMode,
  type MfaLoginAccount,
} from './servers/mfa-login-accounts.js';

export const MFA_LOGIN_ID = 'mfa-login';
const SCRIPT = 'bench/servers/svc-mfa-login.ts';
const TARGET_DELAY_P99_MS = 20;
/**
 * 50 connections queue on a few logins a second, so an answer can take longer than autocannon's default
 * 10 s on a busy machine; a code is still inside its one-step window when it arrives within 30 s.
 */
const REQUEST_TIMEOUT_SECONDS = 30;
const MODES: readonly BenchMfaMode[] = ['off', 'on'];
const LABELS: Record<BenchMfaMode, string> = {
  off: 'password only (accounts without MFA)',
  on: 'password + TOTP code (accounts with MFA)',
};

export interface MfaLoginBenchOptions {
  runs: number;
  durationSeconds: number;
}

interface MfaLoginSample {
  loginsPerSecond: number;
  latencyP50: number;
  latencyP99: number;
  delayP50: number;
  delayP99: number;
  delayMax: number;
}

/**
 * The login bodies, one per request, round the accounts. An account with MFA gets the code of the moment the
 * request leaves and is skipped while it has already used the current step; running out of accounts is
 * counted (the server then refuses the reused code, and the round fails with that count).
 */
class AccountRotation {
  private readonly accounts: { email: string; code?: (timestamp: number) => string; lastStep: number }[];
  private cursor = 0;
  /** Requests that found every account used in their step. */
  exhausted = 0;

  constructor(accounts: readonly MfaLoginAccount[]) {
    this.accounts = accounts.map(({ email, secret, lastStep }) => ({
      email,
      ...(secret === undefined ? {} : { code: totpGenerator(secret) }),
      lastStep: lastStep ?? Number.NEGATIVE_INFINITY,
    }));
  }

  nextBody(): string {
    const now = Date.now();
    const step = totpStepAt(now);
    for (let tried = 0; tried < this.accounts.length; tried++) {
      const account = this.accounts[this.cursor]!;
      this.cursor = (this.cursor + 1) % this.accounts.length;
      if (account.lastStep >= step) continue;
      if (account.code === undefined)
        return JSON.stringify({ email: account.email, password: MFA_LOGIN_PASSWORD });
      account.lastStep = step;
      return JSON.stringify({
        email: account.email,
        password: MFA_LOGIN_PASSWORD,
        mfaCode: account.code(now),
      });
    }
    this.exhausted++;
    const account = this.accounts[this.cursor]!;
    return JSON.stringify({
      email: account.email,
      password: MFA_LOGIN_PASSWORD,
      mfaCode: account.code?.(now),
    });
  }
}

/** One round: a fresh server, its delay histogram reset, then the logins for the duration. */
async function mfaLoginRound(mode: BenchMfaMode, durationSeconds: number): Promise<MfaLoginSample> {
  const accountsFile = newMfaLoginAccountsFile();
  const server = await startServer(`svc-mfa-login-${mode}`, SCRIPT, undefined, {
    [BENCH_MFA_ENV]: mode,
    [BENCH_MFA_ACCOUNTS_FILE_ENV]: accountsFile.file,
  });
  try {
    const rotation = new AccountRotation(readMfaLoginAccounts(accountsFile.file));
    let firstRefusal: string | undefined;
    await fetch(`${server.url}/__delay/reset`, { method: 'POST' });
    const result = await autocannon({
      url: server.url,
      connections: LOGIN_CONNECTIONS,
      duration: durationSeconds,
      timeout: REQUEST_TIMEOUT_SECONDS,
      requests: [
        {
          method: 'POST',
          path: '/auth/login',
          headers: { 'content-type': 'application/json' },
          setupRequest: (request) => ({ ...request, body: rotation.nextBody() }),
          onResponse: (status, body) => {
            if (status >= 300 && firstRefusal === undefined) firstRefusal = `${status} ${body.slice(0, 200)}`;
          },
        },
      ],
    });
    if (result.non2xx > 0 || result.errors > 0 || rotation.exhausted > 0) {
      throw new Error(
        `mfa-login bench (${mode}): ${result.non2xx} non-2xx answers (first: ${firstRefusal ?? 'none'}), ` +
          `${result.errors} errors (${result.timeouts} timeouts), ${rotation.exhausted} requests with every account used in their step`,
      );
    }
    const delay = (await (await fetch(`${server.url}/__delay`)).json()) as {
      p50Ms: number;
      p99Ms: number;
      maxMs: number;
    };
    return {
      loginsPerSecond: result.requests.average,
      latencyP50: result.latency.p50,
      latencyP99: result.latency.p99,
      delayP50: delay.p50Ms,
      delayP99: delay.p99Ms,
      delayMax: delay.maxMs,
    };
  } finally {
    await server.stop();
    accountsFile.remove();
  }
}

/** Both servers each round, one at a time, alternating which goes first. */
export async function runMfaLoginBench(options: MfaLoginBenchOptions): Promise<string> {
  const samples: Record<BenchMfaMode, MfaLoginSample[]> = { off: [], on: [] };
  const ratios: number[] = [];
  for (let n = 0; n < options.runs; n++) {
    const order = n % 2 === 0 ? MODES : [...MODES].reverse();
    const round: Partial<Record<BenchMfaMode, MfaLoginSample>> = {};
    for (const mode of order) {
      const sample = await mfaLoginRound(mode, options.durationSeconds);
      round[mode] = sample;
      samples[mode].push(sample);
    }
    const off = round.off!;
    const on = round.on!;
    ratios.push(on.loginsPerSecond / off.loginsPerSecond);
    process.stdout.write(
      `  ${MFA_LOGIN_ID} round ${n + 1}: without MFA ${off.loginsPerSecond.toFixed(1)} logins/s (loop p99 ${off.delayP99.toFixed(1)} ms), ` +
        `with MFA ${on.loginsPerSecond.toFixed(1)} logins/s (loop p99 ${on.delayP99.toFixed(1)} ms)\n`,
    );
  }
  const medianOf = (mode: BenchMfaMode, key: keyof MfaLoginSample) =>
    median(samples[mode].map((sample) => sample[key]));
  const meets = (mode: BenchMfaMode) => medianOf(mode, 'delayP99') < TARGET_DELAY_P99_MS;
  const row = (mode: BenchMfaMode, ratio: string) =>
    `| ${LABELS[mode]} | ${medianOf(mode, 'loginsPerSecond').toFixed(1)} | ${medianOf(mode, 'latencyP50').toFixed(0)} | ` +
    `${medianOf(mode, 'latencyP99').toFixed(0)} | ${medianOf(mode, 'delayP50').toFixed(1)} | ` +
    `**${medianOf(mode, 'delayP99').toFixed(1)}** | ${medianOf(mode, 'delayMax').toFixed(1)} | ${meets(mode) ? 'yes' : '**no**'} | ${ratio} |`;
  const spread = `${(Math.min(...ratios) * 100).toFixed(0)}–${(Math.max(...ratios) * 100).toFixed(0)} %`;
  const meeting = MODES.filter(meets);
  const target = `event-loop p99 < ${TARGET_DELAY_P99_MS} ms`;
  const verdict =
    meeting.length === MODES.length
      ? `Both sides meet the target (${target}).`
      : meeting.length === 0
        ? `Neither side meets the target (${target}).`
        : `Only the server ${meeting[0] === 'on' ? 'with' : 'without'} MFA meets the target (${target}).`;
  return [
    `## Login with MFA vs without under ${LOGIN_CONNECTIONS} concurrent clients: event-loop delay (target p99 < ${TARGET_DELAY_P99_MS} ms)`,
    '',
    `${options.runs} rounds; each starts the server without MFA, then the one with it (the other way round every second`,
    `round), each afresh, and has ${LOGIN_CONNECTIONS} connections POST /auth/login with the right password for ${options.durationSeconds} s. Both servers`,
    `are the login bench's (scrypt N=2^15, r=8, p=1, stores in memory, no throttle) with two-factor sign-in configured`,
    `(MfaService, in-memory store) and ${MFA_LOGIN_ACCOUNT_COUNT} accounts sharing one password hash; on the MFA server every account is`,
    'enrolled and activated through the Auth API at start, and every login also sends a valid TOTP code, computed',
    "by the runner from the account's secret as the request leaves. A code is accepted once per 30 s step per",
    'account, so the requests rotate through the accounts and name each at most once a step (every login succeeds;',
    `a refused one fails the round). Server on core 0, autocannon on core 1 (request timeout ${REQUEST_TIMEOUT_SECONDS} s); event-loop delay as in the login`,
    'bench. MFA / no MFA is the median of the per-round logins/s ratios (range in brackets); other columns are medians.',
    '',
    `| accounts | logins/s | login p50 ms | login p99 ms | event loop p50 ms | event loop p99 ms | event loop max ms | loop p99 < ${TARGET_DELAY_P99_MS} ms | MFA / no MFA logins/s |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    row('off', ''),
    row('on', `**${(median(ratios) * 100).toFixed(1)} %** (${spread})`),
    '',
    verdict,
  ].join('\n');
}
