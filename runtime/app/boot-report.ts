// What a person sees when the service refuses to start: the code, the message, the offending option, file or
// directory, and what to do about it (the catalog's `hint`), with no stack and no object dump, because a
// refusal is a setting to fix, not a bug to trace. SVC_DEBUG=1 adds the stack and the causes. Anything that
// is not a refusal (a bug) is shown the way node shows an uncaught error: with its stack.
import { inspect } from 'node:util';
import { catalog } from '../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { OptionError } from '../config/option-errors.js';
import { SvcError } from '../http/errors.js';

export interface FormatBootFailureOptions {
  /** Add the stack, the causes and the error's own fields (SVC_DEBUG=1). Default false. */
  debug?: boolean;
  /** Paths under this directory are shown relative to it (default: shown as they are). */
  cwd?: string;
}

export interface ReportBootFailureOptions {
  /** Where SVC_DEBUG is read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Where the report goes (default: process.stderr). */
  write?: (text: string) => void;
  /** Paths under this directory are shown relative to it (default: process.cwd()). */
  cwd?: string;
}

/** The variable that turns on the stack and causes in a boot report. */
export const BOOT_DEBUG_ENV = 'SVC_DEBUG';

const FORMAT_OPTIONS = optionKeys<FormatBootFailureOptions>({ debug: true, cwd: true });
const REPORT_OPTIONS = optionKeys<ReportBootFailureOptions>({ env: true, write: true, cwd: true });

/** Not a catalog code, so its hint lives here: the one system error a start commonly meets. */
const ADDRESS_IN_USE_HINT =
  'stop the process listening there, or set PORT to another port (PORT=0 picks a free one)';

/** The parts of a refusal a person needs, read from whichever error kind carries them. */
interface Refusal {
  code: string;
  /** The first line says what happened; further lines list the problems. */
  lines: string[];
  /** `option: …`, `file: …`: where the mistake is, when the message does not already say it. */
  where: string[];
  hint: string | undefined;
}

/** A CONFIG_INVALID problem (runtime/config/svc-config.ts, module-settings.ts). */
interface ConfigProblem {
  option: string;
  message: string;
  from: string;
}

/**
 * The report for `error`: for a refusal (an SvcError or OptionError with its code, EADDRINUSE from serve()),
 * `Refused to start (<CODE>): <message>` and indented lines for the problems, the offending option or file and
 * the hint; for anything else, the error as node prints an uncaught one. Ends with a newline.
 */
export function formatBootFailure(error: unknown, options: FormatBootFailureOptions = {}): string {
  rejectUnknownOptions(options, FORMAT_OPTIONS, 'formatBootFailure()');
  const refusal = refusalOf(error);
  if (refusal === undefined) return `${inspect(error)}\n`;
  const relative = relativeTo(options.cwd);
  const [headline = '', ...rest] = refusal.lines.map(relative);
  const out = [`Refused to start (${refusal.code}): ${headline}`];
  for (const line of rest) out.push(`  ${line}`);
  for (const line of refusal.where) out.push(`  ${relative(line)}`);
  if (refusal.hint !== undefined) out.push(`  hint: ${refusal.hint}`);
  if (options.debug) out.push(indent(inspect(error)));
  else out.push(`  (${BOOT_DEBUG_ENV}=1 shows the stack)`);
  return `${out.join('\n')}\n`;
}

/** Writes formatBootFailure's report (debug when SVC_DEBUG=1) and returns the exit code, 1. */
export function reportBootFailure(error: unknown, options: ReportBootFailureOptions = {}): number {
  rejectUnknownOptions(options, REPORT_OPTIONS, 'reportBootFailure()');
  const env = options.env ?? process.env;
  const write = options.write ?? ((text: string) => process.stderr.write(text));
  const debug = env[BOOT_DEBUG_ENV] === '1' || env[BOOT_DEBUG_ENV] === 'true';
  write(formatBootFailure(error, { debug, cwd: options.cwd ?? process.cwd() }));
  return 1;
}

/** Whether `error` is a refusal formatBootFailure reports without a stack (else: a bug, shown with it). */
export function isBootRefusal(error: unknown): boolean {
  return refusalOf(error) !== undefined;
}

function refusalOf(error: unknown): Refusal | undefined {
  if (!(error instanceof Error)) return undefined;
  if (isAddressInUse(error)) {
    return { code: 'EADDRINUSE', lines: [error.message], where: [], hint: ADDRESS_IN_USE_HINT };
  }
  const code = (error as { code?: unknown }).code;
  if (typeof code !== 'string' || !isSvcLike(error, code)) return undefined;
  const hint = (error as { hint?: unknown }).hint;
  const problems = configProblems((error as { details?: unknown }).details);
  const lines =
    problems.length > 1
      ? [catalogEntry(code)?.message ?? 'Invalid configuration.', ...problems.map(problemLine)]
      : error.message.split('\n').map((line) => line.trim());
  return {
    code,
    lines,
    where: whereLines(error, lines, problems),
    hint: typeof hint === 'string' ? hint : catalogEntry(code)?.hint,
  };
}

/**
 * svckit's own errors. Checked by shape as well as by class: the service may load another copy of svckit
 * than the one reporting (an entry run by a globally installed `svc`).
 */
function isSvcLike(error: Error, code: string): boolean {
  if (error instanceof SvcError || error instanceof OptionError) return true;
  const svcNames = ['SvcError', 'HttpError', 'BootError', 'OptionError'];
  return svcNames.includes(error.name) || catalogEntry(code) !== undefined;
}

function isAddressInUse(error: Error): boolean {
  const codeOf = (value: unknown) => (value as { code?: unknown } | null | undefined)?.code;
  return codeOf(error) === 'EADDRINUSE' || codeOf(error.cause) === 'EADDRINUSE';
}

function catalogEntry(code: string): { message: string; hint?: string } | undefined {
  return Object.hasOwn(catalog, code)
    ? (catalog as Record<string, { message: string; hint?: string }>)[code]
    : undefined;
}

function configProblems(details: unknown): ConfigProblem[] {
  const problems = (details as { problems?: unknown } | null | undefined)?.problems;
  if (!Array.isArray(problems)) return [];
  return problems.filter(
    (problem): problem is ConfigProblem =>
      typeof problem === 'object' &&
      problem !== null &&
      typeof (problem as ConfigProblem).option === 'string' &&
      typeof (problem as ConfigProblem).message === 'string' &&
      typeof (problem as ConfigProblem).from === 'string',
  );
}

function problemLine(problem: ConfigProblem): string {
  return `${problem.option}: ${problem.message} (from ${problem.from})`;
}

/** The option, file or directory at fault, when the lines shown do not already name it. */
function whereLines(error: Error, lines: readonly string[], problems: readonly ConfigProblem[]): string[] {
  const shown = lines.join('\n');
  const where: string[] = [];
  const add = (label: string, value: unknown, of = '') => {
    if (typeof value === 'string' && value !== '' && !shown.includes(value))
      where.push(`${label}: ${value}${of}`);
  };
  if (error instanceof OptionError || error.name === 'OptionError') {
    const { owner, option } = error as OptionError;
    add('option', option, typeof owner === 'string' ? ` of ${owner}` : '');
  }
  for (const problem of problems) add('option', problem.option, ` (from ${problem.from})`);
  const details = (error as { details?: unknown }).details;
  if (typeof details === 'object' && details !== null) {
    const { file, dir } = details as { file?: unknown; dir?: unknown };
    add('file', file);
    add('directory', dir);
  }
  return where;
}

function relativeTo(cwd: string | undefined): (line: string) => string {
  if (cwd === undefined || cwd === '/' || cwd === '') return (line) => line;
  const prefix = cwd.endsWith('/') ? cwd : `${cwd}/`;
  return (line) => line.split(prefix).join('');
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
