// How the CLI reports failures: spec problems with their positions, usage errors with the usage text,
// anything else as one line. Returns the exit code.
import { SpecError, formatProblems } from '../spec/index.js';
import { UsageError } from './usage.js';

export function reportFailure(error: unknown, cwd: string): number {
  if (error instanceof UsageError) {
    process.stderr.write(`${error.message}\n\n${error.usage}\n`);
    return 1;
  }
  if (error instanceof SpecError) {
    const count = error.problems.length;
    process.stderr.write(
      `${formatProblems(error.problems, { cwd })}\n\n${count} problem${count === 1 ? '' : 's'} found.\n`,
    );
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`svc: ${message}\n`);
  return 1;
}
