// Loaded with `--import` into the service `svc start`, `svc dev` and `svc mcp` run (cli/child.ts), before the
// project's entry: a start that fails with an uncaught refusal (a BootError, an OptionError, CONFIG_INVALID, a
// port in use) prints the code, message, option and hint for a person, without a stack, and exits 1. An
// entry's top-level `await` that rejects arrives here too (as an uncaught exception from a promise).
import { isBootRefusal, reportBootFailure } from '../runtime/app/boot-report.js';

function onUncaught(error: unknown): void {
  // Anything else is a bug: an application that handles uncaught errors itself keeps them; otherwise it is
  // printed with its stack, as node would, and the process ends the same way.
  if (!isBootRefusal(error) && process.listenerCount('uncaughtException') > 1) return;
  process.exit(reportBootFailure(error));
}

process.on('uncaughtException', onUncaught);
