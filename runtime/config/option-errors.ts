// Option errors in the catalog, like Fastify's FST_ERR_*: every programming-error option check (an unknown
// key, a wrong type, a value out of range) throws an OptionError, a TypeError carrying a catalog code
// (OPTION_UNKNOWN, OPTION_INVALID in spec/errors.yaml) and a message naming the owner and the option, in one
// wording. Configuration read from svc.config.yaml is refused with CONFIG_INVALID instead (module-settings.ts).
import type { catalog } from '../../generated/modules/errors.js';

/** The catalog codes an OptionError carries (a code missing from the catalog fails to compile). */
export type OptionErrorCode = Extract<keyof typeof catalog, 'OPTION_UNKNOWN' | 'OPTION_INVALID'>;

export class OptionError extends TypeError {
  readonly code: OptionErrorCode;
  /** Who takes the option: `securityPlugin()`, `MemoryRateLimitStore`, `mcpRoutes: rateLimit`. */
  readonly owner: string;
  /** The option as a path from the owner's options (`rateLimit.windowMs`), or the unknown key. */
  readonly option: string;

  constructor(code: OptionErrorCode, owner: string, option: string, message: string) {
    super(`${owner}: ${message}`);
    this.name = 'OptionError';
    this.code = code;
    this.owner = owner;
    this.option = option;
  }
}

/**
 * OPTION_INVALID: `<owner>: <option> must be <expected>.` `expected` says what is accepted ("a whole
 * number, 1 or more"); `detail`, when given, follows after a semicolon (what was given, a hint).
 */
export function invalidOption(owner: string, option: string, expected: string, detail?: string): OptionError {
  const tail = detail === undefined ? '' : `; ${detail}`;
  return new OptionError('OPTION_INVALID', owner, option, `${option} must be ${expected}${tail}.`);
}

/** OPTION_INVALID for the options argument itself: `<owner>: options must be <expected>.` */
export function invalidOptions(owner: string, expected = 'an object'): OptionError {
  return invalidOption(owner, 'options', expected);
}
