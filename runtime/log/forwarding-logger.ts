// For parts built before the app that will own them exists (an exporter or Auth created when the plugin is,
// used once it is registered): lines go to the default logger until `attach` names the app's.
import { defaultLogger } from './json-logger.js';
import { loggerFrom, type Logger } from './logger.js';

export interface ForwardingLogger extends Logger {
  /** From now on, lines go to `target`. */
  attach(target: Logger): void;
}

export function forwardingLogger(initial: Logger = defaultLogger): ForwardingLogger {
  let target = initial;
  const logger = loggerFrom((level, msg, fields) => target[level](msg, fields));
  return {
    ...logger,
    attach(next) {
      target = next;
    },
  };
}
