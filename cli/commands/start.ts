// svc start [entry]: run the service with TypeScript support.
import { parseCommand } from '../args.js';
import { runToExit, spawnTypeScript } from '../child.js';
import { resolveEntry } from '../entry.js';
import { projectDir } from '../project.js';
import { COMMAND_USAGE } from '../usage.js';

export async function startCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('start', args, {}, { min: 0, max: 1 });
  if (values.help) {
    process.stdout.write(`${COMMAND_USAGE.start}\n`);
    return 0;
  }
  const dir = projectDir(values.dir);
  const entry = await resolveEntry(dir, positionals[0]);
  return runToExit(spawnTypeScript([entry], dir));
}
