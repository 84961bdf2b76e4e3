// svc mcp [entry]: run the service's entry as a stdio tool server for a desktop agent. The entry's serve()
// sees SVC_MCP_STDIO=1 and speaks the tool protocol on stdin/stdout instead of listening; stdin and stdout
// pass straight through to it, logs go to stderr.
import { parseCommand } from '../args.js';
import { runToExit, spawnTypeScript } from '../child.js';
import { resolveEntry } from '../entry.js';
import { projectDir } from '../project.js';
import { COMMAND_USAGE } from '../usage.js';
import { MCP_STDIO_ENV } from '../../runtime/app/serve.js';

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommand('mcp', args, {}, { min: 0, max: 1 });
  if (values.help) {
    process.stdout.write(`${COMMAND_USAGE.mcp}\n`);
    return 0;
  }
  const dir = projectDir(values.dir);
  const entry = await resolveEntry(dir, positionals[0]);
  return runToExit(spawnTypeScript([entry], dir, { ...process.env, [MCP_STDIO_ENV]: '1' }));
}
