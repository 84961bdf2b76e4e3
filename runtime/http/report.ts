// Error reporting: every 5xx and every unexpected error goes to one reporter with what a log line needs,
// including internalDetails, which never reach the client. The default writes one JSON line to stderr.

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

function errorFields(error: unknown): Record<string, unknown> {
  if (error instanceof Error) {
    const code = (error as { code?: unknown }).code;
    return {
      name: error.name,
      message: error.message,
      ...(code === undefined ? {} : { code }),
      stack: error.stack,
    };
  }
  return { value: String(error) };
}

/** JSON.stringify that never throws: cycles become '[Circular]', BigInt a string. */
export function safeJson(value: unknown): string {
  const seen = new WeakSet<object>();
  try {
    return JSON.stringify(value, (_key, item: unknown) => {
      if (typeof item === 'bigint') return item.toString();
      if (item !== null && typeof item === 'object') {
        if (seen.has(item)) return '[Circular]';
        seen.add(item);
      }
      return item;
    });
  } catch {
    return JSON.stringify({ level: 'error', msg: 'svc error report could not be serialised' });
  }
}

/** The default reporter: one JSON line on stderr. */
export const stderrReporter: ErrorReporter = (report) => {
  const line = safeJson({
    level: 'error',
    time: new Date().toISOString(),
    msg: 'request failed',
    code: report.code,
    status: report.status,
    requestId: report.requestId,
    method: report.method,
    route: report.route,
    error: errorFields(report.error),
    internalDetails: report.internalDetails,
  });
  process.stderr.write(`${line}\n`);
};

/** The reporter an adapter uses: the given one, the default when undefined, none when false. */
export function resolveReporter(option: ErrorReporter | false | undefined): ErrorReporter | undefined {
  if (option === false) return undefined;
  return option ?? stderrReporter;
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
