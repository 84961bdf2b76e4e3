// The serve mode `svc mcp` asks for: the app's tools over stdin/stdout instead of listening. mcpPlugin
// publishes it (bucket 'app:serve-modes'), so serve() in the app's entry runs it when the launching command
// sets SVC_SERVE_MODE=mcp-stdio. stdout is the protocol's: start-up lines go to stderr, and the process ends
// when the agent closes stdin.
import type { App } from '../../app/app.js';
import type { ServeMode, Served } from '../../app/serve-mode.js';
import { mcpService } from './plugin.js';
import { errorFields } from '../../log/error-fields.js';

/** The serve-mode name `svc mcp` sets in SVC_SERVE_MODE. */
export const MCP_STDIO_SERVE_MODE = 'mcp-stdio';
/** Under `svc mcp`, the Authorization header every tool call carries (e.g. `Bearer <token>`). */
export const MCP_AUTHORIZATION_ENV = 'SVC_MCP_AUTHORIZATION';

export const mcpStdioServeMode: ServeMode = {
  name: MCP_STDIO_SERVE_MODE,
  usesStdout: true,
  start: serveToolsOnStdio,
};

async function serveToolsOnStdio(app: App, log: (line: string) => void): Promise<Served> {
  // Loaded on demand: an app that only listens never loads the stdio transport.
  const { serveMcpStdio } = await import('./stdio.js');
  const authorization = process.env[MCP_AUTHORIZATION_ENV];
  const server = await serveMcpStdio(app, authorization ? { headers: { authorization } } : {});
  const tools = mcpService(app.container)?.server.tools.size ?? 0;
  log(`${app.name} ${app.version} serving ${tools} tool${tools === 1 ? '' : 's'} over stdio`);
  const close = async () => {
    await server.close();
    await app.close();
  };
  void server.finished.then(close).then(
    () => process.exit(0),
    (error: unknown) => {
      app.logger.error('error while closing', { app: app.name, error: errorFields(error) });
      process.exit(1);
    },
  );
  return { url: 'stdio:', close };
}
