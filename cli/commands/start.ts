// svc start [entry]: run the service with TypeScript support. Its environment is svc's own, unchanged (NODE_ENV
// unset counts as production).
import { parseCommand } from '../args.js';
import { runToExit, spawnService } from '../child.js';
import { resolveEntry } from '../entry.js';
import { projectDir } from '../project.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';

export async function startCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand('start', args, {}, { min: 0, max: 1 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE.start}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const entry = await resolveEntry(dir, positionals[0], io.env);
  return runToExit(spawnService(entry, dir, io), io);
}
