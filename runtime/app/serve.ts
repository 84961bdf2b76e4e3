// Runs an app as a process: listen, print where it is, close cleanly on SIGINT/SIGTERM.
import type { App, ListenOptions } from './app.js';

export interface ServeOptions extends ListenOptions {
  /** Where the start-up lines go (default: stdout). */
  log?: (line: string) => void;
  /** Close on SIGINT and SIGTERM (default true). A second signal exits at once. */
  handleSignals?: boolean;
}

export async function serve(
  app: App,
  options: ServeOptions = {},
): Promise<{ url: string; close(): Promise<void> }> {
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

  if (options.handleSignals !== false) {
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
  return { url: address.url, close: () => app.close() };
}
