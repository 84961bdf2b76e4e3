// Runs an app as a process: listen, print where it is, close cleanly on SIGINT/SIGTERM. When the command that
// launched the entry asks for another serve mode (SVC_SERVE_MODE, e.g. `svc mcp`), the mode a plugin
// published runs instead of listening (serve-mode.ts).
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { isProductionEnv } from '../config/node-env.js';
import { errorFields } from '../log/error-fields.js';
import type { ServerConfig } from '../config/svc-config.js';
import type { App, ListenOptions } from './app.js';
import { findServeMode, requestedServeMode, type Served } from './serve-mode.js';

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

export async function serve(app: App, options: ServeOptions = {}): Promise<Served> {
  rejectUnknownOptions(options, SERVE_OPTIONS, 'serve()');
  const modeName = requestedServeMode();
  if (modeName !== undefined) return serveInMode(app, modeName, options);
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

/** Boots the app, then runs the serve mode a plugin published under `modeName` instead of listening. */
async function serveInMode(app: App, modeName: string, options: ServeOptions): Promise<Served> {
  await app.boot();
  let mode;
  try {
    mode = findServeMode(app, modeName);
  } catch (error) {
    // Boot opened what the plugins hold (stores, timers): a process that will not serve must not keep them.
    await app.close();
    throw error;
  }
  const stream = mode.usesStdout ? process.stderr : process.stdout;
  const log = options.log ?? ((line: string) => stream.write(`${line}\n`));
  const served = await mode.start(app, log);
  if (options.handleSignals !== false) closeOnSignals(app, log);
  return served;
}

/**
 * A signal that comes again this soon is the same stop reaching the process twice: a process group's signal
 * and a parent (`svc start`) passing it on arrive within milliseconds of each other.
 */
const REPEATED_SIGNAL_MS = 500;

/** Closes the app on SIGINT/SIGTERM; a second signal, sent later, exits at once. */
function closeOnSignals(app: App, log: (line: string) => void): void {
  let closingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals) => {
    if (closingSince !== undefined) {
      if (Date.now() - closingSince < REPEATED_SIGNAL_MS) return;
      process.exit(130);
    }
    closingSince = Date.now();
    log(`${app.name}: ${signal} received, closing`);
    app.close().then(
      () => process.exit(0),
      (error: unknown) => {
        app.logger.error('error while closing', { app: app.name, error: errorFields(error) });
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}
