// Command-line parsing on node's util.parseArgs in strict mode: an unknown flag or a missing value is a
// usage error, never silently ignored.
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { COMMAND_USAGE, MAIN_USAGE, UsageError } from './usage.js';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedCommand<V> {
  values: V;
  positionals: string[];
}

const COMMON: Options = {
  dir: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
};

export function parseCommand<O extends Options>(
  command: string,
  args: string[],
  options: O,
  positionals: { min: number; max: number },
): ParsedCommand<Record<string, string | boolean | undefined>> {
  const usage = COMMAND_USAGE[command] ?? MAIN_USAGE;
  let parsed;
  try {
    parsed = parseArgs({ args, options: { ...COMMON, ...options }, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error), usage);
  }
  const values = parsed.values as Record<string, string | boolean | undefined>;
  if (!values.help) {
    if (parsed.positionals.length < positionals.min)
      throw new UsageError(`svc ${command}: missing argument.`, usage);
    if (parsed.positionals.length > positionals.max) {
      throw new UsageError(
        `svc ${command}: unexpected argument '${parsed.positionals[positionals.max]}'.`,
        usage,
      );
    }
  }
  return { values, positionals: parsed.positionals };
}
