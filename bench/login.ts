// The login bench (event-loop p99 delay < 20 ms while 50 clients sign in at once): 50 connections
// POST /auth/login with the right password for the duration; the server measures its own event-loop delay
// (bench/servers/svc-login.ts). scrypt runs on libuv's thread pool, so the loop stays free while hashes run.
import autocannon from 'autocannon';
import { startServer } from './lib/processes.js';
import { median } from './lib/results.js';
import { LOGIN_USER } from './servers/auth-secret.js';

export const LOGIN_CONNECTIONS = 50;

export interface LoginBenchOptions {
  runs: number;
  durationSeconds: number;
}

export interface LoginSample {
  loginsPerSecond: number;
  latencyP99: number;
  delayP50: number;
  delayP99: number;
  delayMax: number;
}

/** The login server a round starts: its script and environment (the shared-stores bench picks its stores so). */
export interface LoginServer {
  name: string;
  script: string;
  env?: Readonly<Record<string, string>>;
}

const LOGIN_SERVER: LoginServer = { name: 'svc-login', script: 'bench/servers/svc-login.ts' };

/** One round: a fresh server, its delay histogram reset, then the logins for the duration. */
export async function loginRound(
  durationSeconds: number,
  login: LoginServer = LOGIN_SERVER,
): Promise<LoginSample> {
  const server = await startServer(login.name, login.script, undefined, login.env);
  try {
    const body = JSON.stringify(LOGIN_USER);
    await fetch(`${server.url}/__delay/reset`, { method: 'POST' });
    const result = await autocannon({
      url: `${server.url}/auth/login`,
      method: 'POST',
      connections: LOGIN_CONNECTIONS,
      duration: durationSeconds,
      headers: { 'content-type': 'application/json' },
      body,
    });
    if (result.non2xx > 0 || result.errors > 0) {
      throw new Error(`login bench: ${result.non2xx} non-2xx answers, ${result.errors} errors`);
    }
    const delay = (await (await fetch(`${server.url}/__delay`)).json()) as {
      p50Ms: number;
      p99Ms: number;
      maxMs: number;
    };
    return {
      loginsPerSecond: result.requests.average,
      latencyP99: result.latency.p99,
      delayP50: delay.p50Ms,
      delayP99: delay.p99Ms,
      delayMax: delay.maxMs,
    };
  } finally {
    await server.stop();
  }
}

export async function runLoginBench(options: LoginBenchOptions): Promise<string> {
  const samples: LoginSample[] = [];
  for (let n = 0; n < options.runs; n++) {
    const sample = await loginRound(options.durationSeconds);
    process.stdout.write(
      `  login round ${n + 1}: event loop p99 ${sample.delayP99.toFixed(1)} ms, ${Math.round(sample.loginsPerSecond)} logins/s\n`,
    );
    samples.push(sample);
  }
  const pick = (key: keyof LoginSample, digits: number) =>
    median(samples.map((sample) => sample[key])).toFixed(digits);
  return [
    '## Login under 50 concurrent clients: event-loop delay (target p99 < 20 ms)',
    '',
    `${options.runs} rounds; each starts the server afresh (one user, scrypt N=2^15, r=8, p=1), then ${LOGIN_CONNECTIONS}`,
    `connections POST /auth/login with the right password for ${options.durationSeconds} s. Server on core 0, autocannon on core 1;`,
    'the delay is measured inside the server (perf_hooks.monitorEventLoopDelay sampling every 10 ms; a sample',
    'records the whole interval, so the delay is what exceeds 10 ms). The server process, its event loop and',
    "libuv's four scrypt threads all share core 0, so the loop competes with the hashes for one core. Medians of the rounds.",
    '',
    '| logins/s | login p99 ms | event loop p50 ms | event loop p99 ms | event loop max ms |',
    '| -------- | ------------ | ----------------- | ----------------- | ----------------- |',
    `| ${pick('loginsPerSecond', 1)} | ${pick('latencyP99', 0)} | ${pick('delayP50', 1)} | **${pick('delayP99', 1)}** | ${pick('delayMax', 1)} |`,
  ].join('\n');
}
