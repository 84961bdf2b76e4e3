// The `svc` command: dispatches to one module per command; every failure becomes a message and exit 1.
import { authResealCommand } from './commands/auth-reseal.js';
import { buildCommand } from './commands/build.js';
import { dbMigrateCommand } from './commands/db-migrate.js';
import { devCommand } from './commands/dev.js';
import { generateDocsCommand } from './commands/generate-docs.js';
import { initCommand } from './commands/init.js';
import { MAKE_COMMANDS, makeCommand } from './commands/make.js';
import { startCommand } from './commands/start.js';
import { mcpCommand } from './commands/mcp.js';
import { testCommand } from './commands/test.js';
import { packageVersion } from '../shared/package-root.js';
import { processIo, type CliIo } from './io.js';
import { reportFailure } from './report.js';
import { MAIN_USAGE, UsageError } from './usage.js';

type Command = (args: string[], io: CliIo) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  build: buildCommand,
  dev: devCommand,
  start: startCommand,
  mcp: mcpCommand,
  test: testCommand,
  'generate:docs': generateDocsCommand,
  'db:migrate': dbMigrateCommand,
  'auth:reseal': authResealCommand,
  init: initCommand,
  ...Object.fromEntries(MAKE_COMMANDS.map((name) => [name, makeCommand(name)])),
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
    const command = COMMANDS[name];
    if (!command) throw new UsageError(`svc: unknown command '${name}'.`, MAIN_USAGE);
    return await command(args, io);
  } catch (error) {
    return reportFailure(error, io);
  }
}

export async function main(argv: string[]): Promise<void> {
  process.exitCode = await run(argv);
}
