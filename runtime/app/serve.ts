// Runs an app as a process: listen, print where it is, close cleanly on SIGINT/SIGTERM. Under `svc mcp`
// (SVC_MCP_STDIO=1) the same entry serves the app's tools over stdin/stdout instead of listening.
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { isProductionEnv } from '../config/node-env.js';
import type { ServerConfig } from '../config/svc-config.js';
import type { App, ListenOptions } from './app.js';

/** Set by `svc mcp` for the entry it runs: serve() then speaks the tool protocol on stdio. */
export const MCP_STDIO_ENV = 'SVC_MCP_STDIO';
/** Under `svc mcp`, the Authorization header every tool call carries (e.g. `Bearer <token>`). */
export const MCP_AUTHORIZATION_ENV = 'SVC_MCP_AUTHORIZATION';

export interface ServeOptions extends ListenOptions {
  /** Where the start-up lines go (default: stdout). */
  log?: (line: string) => void;
  /** Close on SIGINT and SIGTERM (default true). A second signal exits at once. */
  handleSignals?: boolean;
}

/**
 * The keys serve() takes: ServeOptions' (ListenOptions' included) and those of svc.config.yaml's `server`
 * section, which the scaffolded server.ts passes as it is (`serve(app, config.server)`): its `adapter` and
 * `entry` are read elsewhere (adapterPlugin, `svc start`) and ignored here.
 */
const SERVE_OPTIONS = optionKeys<ServeOptions & ServerConfig>({
  port: true,
  host: true,
  log: true,
  handleSignals: true,
  adapter: true,
  entry: true,
});

export async function serve(
  app: App,
  options: ServeOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
  rejectUnknownOptions(options, SERVE_OPTIONS, 'serve()');
  if (process.env[MCP_STDIO_ENV] === '1') return serveStdio(app, options);
  const log = options.log ?? ((line: string) => process.stdout.write(`${line}\n`));
  let address;
  try {
    address = await app.listen({ port: options.port, host: options.host });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'EADDRINUSE') {
      throw new Error(
        `port ${options.port} on ${options.host} is already in use; set PORT to another port.`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  const routes = app.metadata.list('http:routes').length;
  const on = address.adapter === undefined ? '' : ` (${address.adapter})`;
  log(`${app.name} ${app.version} listening on ${address.url}${on}`);
  log(`  API       ${address.url}  (${routes} route${routes === 1 ? '' : 's'})`);
  for (const link of app.metadata.list('app:urls'))
    log(`  ${link.label.padEnd(9)} ${address.url}${link.path}`);
  const nodeEnv = process.env.NODE_ENV;
  if (!isProductionEnv(nodeEnv)) log(developmentNotice(nodeEnv as string));

  if (options.handleSignals !== false) closeOnSignals(app, log);
  return { url: address.url, close: () => app.close() };
}

/** Said once at start outside production, so nobody mistakes a development setup for a deployable one. */
export function developmentNotice(nodeEnv: string): string {
  return (
    `  mode      NODE_ENV=${nodeEnv}, not production: mails and their links go to this log, cookies lack ` +
    'Secure, the signing secret is kept under .svc/. In production: NODE_ENV=production and SVC_SECRET ' +
    '(32+ characters).'
  );
}

/** stdout is the protocol's: start-up lines go to stderr, and the process ends when the agent closes stdin. */
async function serveStdio(app: App, options: ServeOptions): Promise<{ url: string; close(): Promise<void> }> {
  const log = options.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const { serveMcpStdio } = await import('../mcp/server/stdio.js');
  const { mcpService } = await import('../mcp/server/plugin.js');
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
      process.stderr.write(`${app.name}: error while closing: ${String(error)}\n`);
      process.exit(1);
    },
  );
  if (options.handleSignals !== false) closeOnSignals(app, log);
  return { url: 'stdio:', close };
}

/** Closes the app on SIGINT/SIGTERM; a second signal exits at once. */
function closeOnSignals(app: App, log: (line: string) => void): void {
  let closing = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closing) process.exit(130);
    closing = true;
    log(`${app.name}: ${signal} received, closing`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        process.stderr.write(`${app.name}: error while closing: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
