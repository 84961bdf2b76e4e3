// The logger seam: one Logger interface, JSON lines on stderr by default, injectable per app.
export {
  LOG_LEVELS,
  isLogger,
  loggerFrom,
  type LogEntry,
  type LogFields,
  type LogLevel,
  type Logger,
} from './logger.js';
export { defaultLogger, jsonLogger, jsonLogLine, safeJson, type JsonLoggerOptions } from './json-logger.js';
export { collectingLogger, type CollectingLogger } from './collecting-logger.js';
export { forwardingLogger, type ForwardingLogger } from './forwarding-logger.js';
export { errorFields } from './error-fields.js';
export {
  isUndeclaredErrorCode,
  undeclaredErrorWarning,
  UNDECLARED_ERROR_MESSAGE,
  UNDECLARED_ERRORS_CAPPED_MESSAGE,
  MAX_WARNED_PAIRS,
} from './undeclared-error-codes.js';
