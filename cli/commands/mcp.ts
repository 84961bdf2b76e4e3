// svc mcp [entry]: run the service's entry as a stdio tool server for a desktop agent. The entry's serve()
// sees SVC_SERVE_MODE=mcp-stdio and runs the serve mode mcpPlugin publishes, which speaks the tool protocol
// on stdin/stdout instead of listening; stdin and stdout pass straight through to it, logs go to stderr.
// An embedded database gets a directory of its own (service-env.ts), so it runs beside svc dev or npm start.
import { parseCommand } from '../args.js';
import { runToExit, spawnService } from '../child.js';
import { resolveEntry } from '../entry.js';
import { projectDir } from '../project.js';
import { mcpEnv } from '../service-env.js';
import type { CliIo } from '../io.js';
import { COMMAND_USAGE } from '../usage.js';
import { SERVE_MODE_ENV } from '../../runtime/app/serve-mode.js';
import { MCP_STDIO_SERVE_MODE } from '../../runtime/mcp/server/stdio-mode.js';

export async function mcpCommand(args: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommand('mcp', args, {}, { min: 0, max: 1 });
  if (values.help) {
    io.stdout.write(`${COMMAND_USAGE.mcp}\n`);
    return 0;
  }
  const dir = projectDir(values.dir, io.cwd);
  const entry = await resolveEntry(dir, positionals[0], io.env);
  const env = { ...mcpEnv(io.env, dir), [SERVE_MODE_ENV]: MCP_STDIO_SERVE_MODE };
  return runToExit(spawnService(entry, dir, { ...io, env }), io);
}
