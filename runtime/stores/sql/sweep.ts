// Expired rows are dead weight: every read already ignores them (`expires_at > now`), so deleting them is only
// about space and index size. sweepExpired deletes them; SqlSweeper runs it on a timer. An API key is the
// exception: it is read after it expires, to refuse it as expired, so its row is kept a while longer.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { errorFields } from '../../log/error-fields.js';
import { defaultLogger } from '../../log/json-logger.js';
import type { Logger } from '../../log/logger.js';
import type { SqlQueryable } from './client.js';

/**
 * Tables with an `expires_at` column (BIGINT epoch ms, NULL for a row that never expires), after which a row is
 * never read again (for svc_api_keys: from 30 days after it).
 */
export const EXPIRING_TABLES = [
  'svc_sessions',
  'svc_refresh_tokens',
  'svc_refresh_families',
  'svc_one_time_tokens',
  'svc_login_throttle',
  'svc_rate_limits',
  'svc_idempotency',
  'svc_mcp_sessions',
  'svc_webauthn_challenges',
  'svc_api_keys',
  'svc_file_reservations',
] as const;

export type ExpiringTable = (typeof EXPIRING_TABLES)[number];

/**
 * How long a row outlives its expiry, in ms (0 when not listed). An expired API key answers AUTH_TOKEN_EXPIRED
 * for a month, then it is simply unknown.
 */
const KEPT_AFTER_EXPIRY_MS: Partial<Record<ExpiringTable, number>> = {
  svc_api_keys: 30 * 24 * 60 * 60 * 1000,
};

/**
 * Deletes every row with `expires_at <= now` (less what the table keeps after expiry), one DELETE per table;
 * answers how many each lost.
 */
export async function sweepExpired(
  client: SqlQueryable,
  now: number,
): Promise<Record<ExpiringTable, number>> {
  const deleted = {} as Record<ExpiringTable, number>;
  for (const table of EXPIRING_TABLES) {
    // Separate statements, not one transaction: each DELETE stands alone and holds its locks briefly.
    const before = now - (KEPT_AFTER_EXPIRY_MS[table] ?? 0);
    const { rowCount } = await client.query(`DELETE FROM ${table} WHERE expires_at <= $1`, [before]);
    deleted[table] = rowCount;
  }
  return deleted;
}

export const DEFAULT_SWEEP_INTERVAL_MS = 600_000;

export interface SqlSweeperOptions {
  /** Time between sweeps, in ms. Default 600000 (10 minutes). */
  intervalMs?: number;
  /** Clock in epoch ms. Default Date.now. */
  now?: () => number;
  /**
   * Receives a failed sweep (the database is down, ...); the next one runs on schedule. Default: a warning
   * through `logger`.
   */
  onError?: (error: unknown) => void;
  /** Where the default `onError` writes (the app's logger). Default: JSON lines on stderr. */
  logger?: Logger;
}

/** The keys of SqlSweeperOptions; any other is refused. */
const SWEEPER_OPTIONS = optionKeys<SqlSweeperOptions>({
  intervalMs: true,
  now: true,
  onError: true,
  logger: true,
});

/** The default onError: one warning naming the failure; the sweep runs again on schedule. */
function sweepErrorLogger(logger: Logger): (error: unknown) => void {
  return (error) => logger.warn('sweeping expired rows failed', { error: errorFields(error) });
}

/**
 * Runs sweepExpired every `intervalMs` from construction until `stop()`. The timer is unref'd: it never keeps
 * the process alive. A sweep never overlaps the previous one.
 */
export class SqlSweeper {
  readonly intervalMs: number;
  private readonly now: () => number;
  private readonly onError: (error: unknown) => void;
  private readonly timer: NodeJS.Timeout;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly client: SqlQueryable,
    options: SqlSweeperOptions = {},
  ) {
    rejectUnknownOptions(options, SWEEPER_OPTIONS, 'SqlSweeper');
    this.intervalMs = positiveWholeNumber(
      options.intervalMs,
      DEFAULT_SWEEP_INTERVAL_MS,
      'SqlSweeper',
      'intervalMs',
    );
    this.now = options.now ?? Date.now;
    this.onError = options.onError ?? sweepErrorLogger(options.logger ?? defaultLogger);
    this.timer = setInterval(() => void this.sweep(), this.intervalMs);
    this.timer.unref();
  }

  /** Sweeps now (unless a sweep is running: then waits for that one). Never rejects; failures go to onError. */
  sweep(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= sweepExpired(this.client, this.now())
      .then(
        () => undefined,
        (error: unknown) => {
          try {
            this.onError(error);
          } catch {
            // A throwing reporter must not turn a failed sweep into an unhandled rejection.
          }
        },
      )
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }

  /** Stops the timer and waits for a running sweep, so the client can be closed after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
