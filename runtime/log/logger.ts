// The one seam every part of svckit logs through: a level, a message and structured fields. The app holds one
// (`createApp({ logger })`, default JSON lines on stderr) and every plugin reaches it as `app.logger`, so an
// application sends all of svckit's lines where it wants, in the format it wants, by passing one object.

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

/** Structured fields of a line: JSON-serialisable values (an Error goes through errorFields first). */
export type LogFields = Readonly<Record<string, unknown>>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
}

/** One line as a logger received it. */
export interface LogEntry {
  level: LogLevel;
  msg: string;
  fields: LogFields;
}

/** Whether `value` can serve as a Logger (an object with the four level methods). */
export function isLogger(value: unknown): value is Logger {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return LOG_LEVELS.every((level) => typeof candidate[level] === 'function');
}

/** A Logger whose four methods all call `write(level, msg, fields)`. */
export function loggerFrom(write: (level: LogLevel, msg: string, fields: LogFields) => void): Logger {
  return {
    debug: (msg, fields = {}) => write('debug', msg, fields),
    info: (msg, fields = {}) => write('info', msg, fields),
    warn: (msg, fields = {}) => write('warn', msg, fields),
    error: (msg, fields = {}) => write('error', msg, fields),
  };
}
