// Error reporting: every 5xx and every unexpected error goes to one reporter with what a log line needs,
// including internalDetails, which never reach the client. The default writes one error line through the
// app's logger (JSON on stderr unless the app chose another).
import { errorFields } from '../log/error-fields.js';
import { defaultLogger } from '../log/json-logger.js';
import type { Logger } from '../log/logger.js';

export interface ErrorReport {
  /** The error as thrown (or as the framework raised it). */
  error: unknown;
  /** The code that was answered (INTERNAL_ERROR for unexpected errors). */
  code: string;
  status: number;
  requestId: string | undefined;
  method: string | undefined;
  /** The route template (`/notes/:id`), or undefined when no route matched. */
  route: string | undefined;
  /** The error's internalDetails, when it has any. */
  internalDetails: unknown;
}

export type ErrorReporter = (report: ErrorReport) => void;

/** A reporter writing one `request failed` error line through `logger`. */
export function loggerReporter(logger: Logger): ErrorReporter {
  return (report) =>
    logger.error('request failed', {
      code: report.code,
      status: report.status,
      requestId: report.requestId,
      method: report.method,
      route: report.route,
      error: errorFields(report.error),
      internalDetails: report.internalDetails,
    });
}

/** The default reporter: one JSON line on stderr (through defaultLogger). */
export const stderrReporter: ErrorReporter = loggerReporter(defaultLogger);

/** The reporter an adapter uses: the given one, `logger`'s (else the default) when undefined, none when false. */
export function resolveReporter(
  option: ErrorReporter | false | undefined,
  logger?: Logger,
): ErrorReporter | undefined {
  if (option === false) return undefined;
  return option ?? (logger === undefined ? stderrReporter : loggerReporter(logger));
}

/** Calls the reporter; a reporter that throws never affects the response. */
export function report(reporter: ErrorReporter | undefined, entry: ErrorReport): void {
  if (reporter === undefined) return;
  try {
    reporter(entry);
  } catch {
    // Reporting is best effort.
  }
}

/** internalDetails of a deliberate error, else undefined. */
export function internalDetailsOf(error: unknown): unknown {
  if (error !== null && typeof error === 'object' && 'internalDetails' in error) {
    return (error as { internalDetails?: unknown }).internalDetails;
  }
  return undefined;
}
