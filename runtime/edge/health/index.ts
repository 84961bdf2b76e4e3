// `healthPlugin({ checks })`: the liveness and readiness probes. /livez answers
// without touching anything, so an orchestrator never restarts a process because a database is slow;
// /readyz runs every check and answers 503 while any fails, so a load balancer stops sending traffic.
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type { Route, RouteHandler } from '../../http/types.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

/** What a readiness check reports. `detail` is for logs and debugging; it is never sent to the client. */
export interface HealthCheckResult {
  ok: boolean;
  detail?: unknown;
}

export type HealthCheck = () => HealthCheckResult | Promise<HealthCheckResult>;

export interface HealthPluginOptions {
  /** Readiness checks by name, run together on every /readyz; a check that throws or times out fails. */
  checks?: Readonly<Record<string, HealthCheck>>;
  /** How long one check may take before it counts as failed, in ms (default 5000). */
  checkTimeoutMs?: number;
}

/** Default time one readiness check may take. */
export const DEFAULT_HEALTH_CHECK_TIMEOUT_MS = 5000;

export interface ReadinessReport {
  status: 'ok' | 'unavailable';
  checks: Record<string, { ok: boolean }>;
}

const CHECK_TIMED_OUT = Symbol('timed out');

/** The keys of HealthPluginOptions; any other is refused at creation. */
const HEALTH_OPTIONS = optionKeys<HealthPluginOptions>({
  checks: true,
  checkTimeoutMs: true,
});

/** Runs one check: ok only when it returns `{ ok: true }` in time; a throw, a timeout or anything else fails. */
async function runCheck(check: HealthCheck, timeoutMs: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<typeof CHECK_TIMED_OUT>((resolve) => {
    timer = setTimeout(() => resolve(CHECK_TIMED_OUT), timeoutMs);
  });
  try {
    const result = await Promise.race([Promise.resolve().then(check), timeout]);
    return result !== CHECK_TIMED_OUT && result !== null && typeof result === 'object' && result.ok === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}

/** Runs every check at once and builds the /readyz body. */
export async function readiness(
  checks: Readonly<Record<string, HealthCheck>>,
  timeoutMs: number,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const results = await Promise.all(names.map((name) => runCheck(checks[name] as HealthCheck, timeoutMs)));
  const report: ReadinessReport = { status: 'ok', checks: {} };
  names.forEach((name, index) => {
    const ok = results[index] === true;
    report.checks[name] = { ok };
    if (!ok) report.status = 'unavailable';
  });
  return report;
}

const OWNER = 'healthPlugin()';

function checkedOptions(options: HealthPluginOptions): {
  checks: Record<string, HealthCheck>;
  timeoutMs: number;
} {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOptions(OWNER, 'an object { checks?, checkTimeoutMs? }');
  }
  // `checks` is a map of names the application chooses: only the options object itself has fixed keys.
  rejectUnknownOptions(options, HEALTH_OPTIONS, OWNER);
  const checks = options.checks ?? {};
  if (checks === null || typeof checks !== 'object' || Array.isArray(checks)) {
    throw invalidOption(OWNER, 'checks', 'an object of named check functions');
  }
  for (const [name, check] of Object.entries(checks)) {
    if (typeof check !== 'function') throw invalidOption(OWNER, `check "${name}"`, 'a function');
  }
  const timeoutMs = options.checkTimeoutMs ?? DEFAULT_HEALTH_CHECK_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw invalidOption(OWNER, 'checkTimeoutMs', 'a positive number of milliseconds');
  }
  return { checks: { ...checks }, timeoutMs };
}

function edgeRoute(url: string, handler: RouteHandler): Route {
  return { method: 'GET', url, edge: true, meta: {}, handler: handler as Route['handler'] };
}

/** /livez and /readyz, public edge routes: `app.register(healthPlugin({ checks: { db: () => db.ping() } }))`. */
export function healthPlugin(options: HealthPluginOptions = {}): Plugin {
  const { checks, timeoutMs } = checkedOptions(options);
  return {
    name: 'svc:health',
    setup(app: App) {
      app.metadata.add(
        'http:routes',
        edgeRoute('/livez', ({ reply }) => {
          reply.header('cache-control', 'no-store');
          return { status: 'ok' };
        }),
        edgeRoute('/readyz', async ({ reply }) => {
          const report = await readiness(checks, timeoutMs);
          reply.header('cache-control', 'no-store');
          reply.status(report.status === 'ok' ? 200 : 503);
          return report;
        }),
      );
    },
  };
}
