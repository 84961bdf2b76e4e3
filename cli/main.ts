// The `svc` command: dispatches to one module per command; every failure becomes a message and exit 1.
import { MAKE_USAGE } from '../make/usage.js';
import { packageVersion } from '../shared/package-root.js';
import { processIo, type CliIo } from './io.js';
import { reportFailure } from './report.js';
import { MAIN_USAGE, UsageError } from './usage.js';

type Command = (args: string[], io: CliIo) => Promise<number>;

/** Each command's module, loaded when it runs: a command pays for no other's imports. */
const COMMANDS: Record<string, () => Promise<Command>> = {
  build: async () => (await import('./commands/build.js')).buildCommand,
  dev: async () => (await import('./commands/dev.js')).devCommand,
  start: async () => (await import('./commands/start.js')).startCommand,
  mcp: async () => (await import('./commands/mcp.js')).mcpCommand,
  test: async () => (await import('./commands/test.js')).testCommand,
  'generate:docs': async () => (await import('./commands/generate-docs.js')).generateDocsCommand,
  'db:migrate': async () => (await import('./commands/db-migrate.js')).dbMigrateCommand,
  'auth:reseal': async () => (await import('./commands/auth-reseal.js')).authResealCommand,
  init: async () => (await import('./commands/init.js')).initCommand,
  ...Object.fromEntries(
    Object.keys(MAKE_USAGE).map((name) => [
      name,
      async () => (await import('./commands/make.js')).makeCommand(name),
    ]),
  ),
};

/**
 * Runs the command line and returns the exit code (the bin sets process.exitCode from it). `io` defaults to
 * this process's streams, environment and directory; a test passes its own to run a command in-process.
 */
export async function run(argv: string[], io: CliIo = processIo()): Promise<number> {
  const [name, ...args] = argv;
  try {
    if (name === undefined) throw new UsageError('svc: missing command.', MAIN_USAGE);
    if (name === '--help' || name === '-h' || name === 'help') {
      io.stdout.write(`${MAIN_USAGE}\n`);
      return 0;
    }
    if (name === '--version' || name === '-v') {
      io.stdout.write(`${packageVersion()}\n`);
      return 0;
    }
    const load = COMMANDS[name];
    if (!load) throw new UsageError(`svc: unknown command '${name}'.`, MAIN_USAGE);
    return await (
      await load()
    )(args, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

export async function main(argv: string[]): Promise<void> {
  process.exitCode = await run(argv);
}
