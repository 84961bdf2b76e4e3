// Reading one built-in module's settings from svc.config.yaml `modules`: `true` enables it with its defaults,
// a mapping enables it with those options, `false` or nothing leaves it off. A plugin's own option check
// (an OptionError naming the option) becomes CONFIG_INVALID naming the setting, so a bad value in the spec
// refuses to boot with the same error as any other bad setting. CONFIG_INVALID is for configuration only
// (svc.config.yaml, the environment); a plugin called from code with bad options throws the OptionError.
import { errors } from '../../generated/modules/errors.js';
import { unknownOptionMessage } from './known-options.js';
import { OptionError } from './option-errors.js';

/** The settings of an enabled module, `{}` for `true`; undefined when it is off. */
export function moduleSettings(value: unknown, option: string): Record<string, unknown> | undefined {
  if (value === undefined || value === false || value === null) return undefined;
  if (value === true) return {};
  if (typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  throw invalidSetting(option, `expected true, false or a mapping of options, got ${JSON.stringify(value)}`);
}

/**
 * Runs a plugin factory on settings from the spec; its OptionError becomes CONFIG_INVALID for `option`. Any
 * other error (a bug, a BootError) passes unchanged.
 */
export function fromSettings<T>(option: string, build: () => T): T {
  try {
    return build();
  } catch (error) {
    if (error instanceof OptionError) throw invalidSetting(option, error.message);
    throw error;
  }
}

/** CONFIG_INVALID for `modules.<option>`. */
export function invalidSetting(option: string, message: string): Error {
  const from = 'svc.config.yaml';
  return errors.CONFIG_INVALID({
    message: `modules.${option}: ${message} (from ${from})`,
    details: { problems: [{ option: `modules.${option}`, message, from }] },
  });
}

/** CONFIG_INVALID for `modules.<option>` naming the first setting not in `known`. */
export function rejectUnknownSettings(
  settings: Readonly<Record<string, unknown>>,
  known: readonly string[],
  option: string,
): void {
  for (const name of Object.keys(settings)) {
    if (!known.includes(name)) throw invalidSetting(option, unknownOptionMessage(name, known));
  }
}

/** CONFIG_INVALID for an environment variable the runtime reads itself (OTEL_EXPORTER_OTLP_*, …). */
export function invalidEnvSetting(variable: string, message: string): Error {
  const from = 'the environment';
  return errors.CONFIG_INVALID({
    message: `${variable}: ${message} (from ${from})`,
    details: { problems: [{ option: variable, message, from }] },
  });
}
