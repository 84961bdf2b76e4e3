// Spec problems: every mistake the loader finds, with file:line:column, a message and a one-line hint.
// The loader collects as many as it can and throws them together as one SpecError.
import { isAbsolute, relative } from 'node:path';
import type { SourceLocation, SpecSourcesIR } from '../../shared/ir.js';

export interface SpecProblem {
  /** Absolute path of the file at fault. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  message: string;
  /** One concrete line telling the user what to write. */
  hint?: string;
  /** Dot-joined path of the value at fault, e.g. 'routes.getNote.meta.atuh'; '' for the document root. */
  path: string;
}

export interface FormatOptions {
  /** Files are shown relative to this directory (default: the process's working directory). */
  cwd?: string;
}

/** One block per problem, sorted by file, line and column:
 *  `svc.config.yaml:12:7 error: unknown key 'atuh' in routes.getNote.meta\n  hint: did you mean 'auth'?` */
export function formatProblems(problems: readonly SpecProblem[], options: FormatOptions = {}): string {
  const cwd = options.cwd ?? process.cwd();
  return sortProblems(problems)
    .map((problem) => {
      const head = `${displayPath(problem.file, cwd)}:${problem.line}:${problem.column} error: ${problem.message}`;
      return problem.hint ? `${head}\n  hint: ${problem.hint}` : head;
    })
    .join('\n');
}

/** A spec that cannot be loaded. `message` is the formatted list of every problem found. */
export class SpecError extends Error {
  readonly problems: SpecProblem[];
  /** The files (and pattern-listed directories) read before the load failed, when it got that far. */
  sources?: SpecSourcesIR;

  constructor(problems: readonly SpecProblem[]) {
    const sorted = sortProblems(problems);
    super(formatProblems(sorted));
    this.name = 'SpecError';
    this.problems = sorted;
  }
}

export function sortProblems(problems: readonly SpecProblem[]): SpecProblem[] {
  return [...problems].sort(
    (a, b) =>
      (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
      a.line - b.line ||
      a.column - b.column ||
      (a.message < b.message ? -1 : a.message > b.message ? 1 : 0),
  );
}

/**
 * A file as problems show it: relative to `cwd` (default the working directory), or absolute outside it,
 * where a relative path ('../../tmp/x.yaml') reads worse than the absolute one.
 */
export function displayPath(file: string, cwd: string = process.cwd()): string {
  if (!isAbsolute(file)) return file;
  const rel = relative(cwd, file);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? file : rel;
}

/** Collects problems for one load; the same problem at the same place is kept once. */
export class Problems {
  private readonly list: SpecProblem[] = [];
  private readonly seen = new Set<string>();

  add(
    loc: SourceLocation,
    path: readonly (string | number)[] | string,
    message: string,
    hint?: string,
  ): void {
    const dotted = typeof path === 'string' ? path : path.join('.');
    const key = `${loc.file}\0${loc.line}\0${loc.column}\0${message}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    const problem: SpecProblem = {
      file: loc.file,
      line: loc.line,
      column: loc.column,
      message,
      path: dotted,
    };
    if (hint !== undefined) problem.hint = hint;
    this.list.push(problem);
  }

  get count(): number {
    return this.list.length;
  }

  all(): SpecProblem[] {
    return sortProblems(this.list);
  }

  /** Throws one SpecError carrying every problem collected so far, if there is any. */
  throwIfAny(): void {
    if (this.list.length > 0) throw new SpecError(this.list);
  }
}
