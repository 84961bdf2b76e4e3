// How the CLI reports failures: spec problems with their positions, usage errors with the usage text,
// anything else as one line. Returns the exit code.
import { SpecError, formatProblems } from '../spec/index.js';
import type { CliIo } from './io.js';
import { UsageError } from './usage.js';

/** Positions are shown relative to `cwd` (default: the directory the command runs in). */
export function reportFailure(error: unknown, io: CliIo, cwd: string = io.cwd): number {
  if (error instanceof UsageError) {
    io.stderr.write(`${error.message}\n\n${error.usage}\n`);
    return 1;
  }
  if (error instanceof SpecError) {
    const count = error.problems.length;
    io.stderr.write(
      `${formatProblems(error.problems, { cwd })}\n\n${count} problem${count === 1 ? '' : 's'} found.\n`,
    );
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  io.stderr.write(`svc: ${message}\n`);
  return 1;
}
