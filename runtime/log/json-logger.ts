// The default logger: one JSON object per line, `{"level","time","msg",...fields}`, on stderr. Lines below
// the chosen level are dropped; writing never throws (cycles become '[Circular]', BigInt a string).
import { loggerFrom, LOG_LEVELS, type LogFields, type Logger, type LogLevel } from './logger.js';

export interface JsonLoggerOptions {
  /** Lowest level written. Default 'info'. */
  level?: LogLevel;
  /** Receives each line without its newline. Default: written to process.stderr with one. */
  write?: (line: string) => void;
  /** The `time` field's clock. Default `() => new Date()`. */
  now?: () => Date;
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
    return JSON.stringify({ level: 'error', msg: 'svc log line could not be serialised' });
  }
}

/** The line for one entry: level, time and msg first; a field of the same name does not replace them. */
export function jsonLogLine(level: LogLevel, time: Date, msg: string, fields: LogFields): string {
  const line: Record<string, unknown> = { level, time: time.toISOString(), msg };
  for (const [key, value] of Object.entries(fields)) if (!(key in line)) line[key] = value;
  return safeJson(line);
}

const writeToStderr = (line: string): void => {
  process.stderr.write(`${line}\n`);
};

export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const lowest = LOG_LEVELS.indexOf(options.level ?? 'info');
  const write = options.write ?? writeToStderr;
  const now = options.now ?? (() => new Date());
  return loggerFrom((level, msg, fields) => {
    if (LOG_LEVELS.indexOf(level) < lowest) return;
    try {
      write(jsonLogLine(level, now(), msg, fields));
    } catch {
      // Logging is best effort: a closed stderr never fails the caller.
    }
  });
}

/** The process-wide default: JSON lines on stderr from 'info' up. */
export const defaultLogger: Logger = jsonLogger();
