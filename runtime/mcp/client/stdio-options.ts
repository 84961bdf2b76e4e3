// What starts a stdio tool server, checked once when the transport (or mcpClientPlugin) is created: a bad
// shape throws a TypeError naming the option, which module settings turn into CONFIG_INVALID.
import { positiveWholeNumber } from '../../config/whole-number.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { isJsonObject } from '../protocol/json-rpc.js';
import { invalidOption } from '../../config/option-errors.js';

export interface StdioServerParameters {
  /** The program to run, found on the child's PATH unless it is a path. */
  command: string;
  args?: string[];
  /** Variables set in the child, over anything inherited. */
  env?: Record<string, string>;
  /** More parent variables to forward by name, or `true` for the whole parent environment. */
  inheritEnv?: true | string[];
  /** Working directory of the child. Default the parent's. */
  cwd?: string;
  /** The child's stderr: 'inherit' (default: its logs join the parent's), 'ignore', or 'pipe' (kept for errors). */
  stderr?: 'inherit' | 'ignore' | 'pipe';
  /** Longest line read from the child, in bytes; a longer one stops it. Default 16 MiB. */
  maxLineBytes?: number;
}

export const STDIO_OPTION_NAMES: readonly string[] = [
  'command',
  'args',
  'env',
  'inheritEnv',
  'cwd',
  'stderr',
  'maxLineBytes',
];

const STDERR_MODES = ['inherit', 'ignore', 'pipe'];
/** Variable names a process environment can carry (no '=' and no NUL). */
const ENV_NAME = /^[^=\0]+$/;

/** The options with defaults applied; throws TypeError `<owner>: <option> ...` on a bad shape. */
export function checkedStdioOptions(
  options: unknown,
  owner: string,
  extraKeys: readonly string[] = [],
): StdioServerParameters & Required<Pick<StdioServerParameters, 'command' | 'args' | 'stderr'>> {
  const fail = (option: string, expected: string): never => {
    throw invalidOption(owner, option, expected);
  };
  if (!isJsonObject(options)) fail('options', 'an object');
  const record = options as Record<string, unknown>;
  rejectUnknownOptions(record, [...extraKeys, ...STDIO_OPTION_NAMES], owner);
  const { command, args = [], env, inheritEnv, cwd, stderr = 'inherit', maxLineBytes } = record;
  if (typeof command !== 'string' || command === '') fail('command', 'a non-empty string');
  if (!Array.isArray(args) || args.some((arg) => typeof arg !== 'string'))
    fail('args', 'an array of strings');
  if (env !== undefined) {
    if (!isJsonObject(env)) fail('env', 'an object of variable names to string values');
    for (const [name, value] of Object.entries(env as Record<string, unknown>)) {
      if (!ENV_NAME.test(name) || typeof value !== 'string') fail(`env.${name}`, 'a string');
    }
  }
  if (
    inheritEnv !== undefined &&
    inheritEnv !== true &&
    (!Array.isArray(inheritEnv) ||
      inheritEnv.some((name) => typeof name !== 'string' || !ENV_NAME.test(name)))
  ) {
    fail('inheritEnv', 'true or an array of variable names');
  }
  if (cwd !== undefined && (typeof cwd !== 'string' || cwd === '')) fail('cwd', 'a non-empty string');
  if (typeof stderr !== 'string' || !STDERR_MODES.includes(stderr)) {
    fail('stderr', `one of ${STDERR_MODES.join(', ')}`);
  }
  if (maxLineBytes !== undefined) positiveWholeNumber(maxLineBytes, 0, owner, 'maxLineBytes');
  return {
    command: command as string,
    args: [...(args as string[])],
    env: env === undefined ? undefined : { ...(env as Record<string, string>) },
    inheritEnv:
      inheritEnv === true ? true : inheritEnv === undefined ? undefined : [...(inheritEnv as string[])],
    cwd: cwd as string | undefined,
    stderr: stderr as 'inherit' | 'ignore' | 'pipe',
    maxLineBytes: maxLineBytes as number | undefined,
  };
}
