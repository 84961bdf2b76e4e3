// A logger that keeps what it receives instead of writing it: for tests that assert on a line, and for any
// test that must not print.
import { loggerFrom, type LogEntry, type Logger, type LogLevel } from './logger.js';

export interface CollectingLogger extends Logger {
  readonly entries: LogEntry[];
  /** The entries of one level. */
  at(level: LogLevel): LogEntry[];
}

export function collectingLogger(): CollectingLogger {
  const entries: LogEntry[] = [];
  const logger = loggerFrom((level, msg, fields) => {
    entries.push({ level, msg, fields });
  });
  return { ...logger, entries, at: (level) => entries.filter((entry) => entry.level === level) };
}
