// The whole of a service's entry: compose it from the spec, listen where `server:` says (or run the serve
// mode `svc mcp` asks for), close on SIGINT/SIGTERM. A boot refusal prints its code, message and hint
// (the stack only with SVC_DEBUG=1) and ends the process with exit code 1 instead of an uncaught exception.
import { reportBootFailure } from '../app/boot-report.js';
import { serve } from '../app/serve.js';
import type { Served } from '../app/serve-mode.js';
import { composeService } from './compose.js';
import type { ServiceArtifacts, ServiceOptions } from './options.js';

export async function startService<H extends object>(
  artifacts: ServiceArtifacts,
  options: ServiceOptions<H>,
): Promise<Served | undefined> {
  const env = options.env ?? process.env;
  try {
    const config = options.config ?? artifacts.loadConfig(env);
    const app = await composeService(artifacts, { ...options, config });
    try {
      return await serve(app, config.server);
    } catch (error) {
      await app.close();
      throw error;
    }
  } catch (error) {
    process.exitCode = reportBootFailure(error, {
      env,
      ...(options.projectDir === undefined ? {} : { cwd: options.projectDir }),
    });
    return undefined;
  }
}
