// The service svc.config.yaml declares, built in one call: the stores `stores:` selects (migrated), every
// module enabled under `modules:` with its settings and those stores, the app's own plugins, then the spec's
// routes with the app's handlers on the adapter `server.adapter` names. Each feature is imported only when
// the spec enables it, so a service without MCP never loads the MCP server.
import { createApp, type App, type Plugin } from '../app/app.js';
import { requestedServeMode } from '../app/serve-mode.js';
import { adapterPlugin } from '../adapters/by-name.js';
import { rejectUnknownOptions } from '../config/known-options.js';
import { invalidSetting, moduleSettings } from '../config/module-settings.js';
import { bindRoutes } from '../http/route.js';
import { openStores, type Stores } from '../stores/open.js';
import { completeHandlers } from './handlers.js';
import {
  FILES_OVERRIDES,
  MODULE_OVERRIDES,
  SERVICE_OPTIONS,
  TENANCY_OVERRIDES,
  type FromService,
  type ServiceArtifacts,
  type ServiceContext,
  type ServiceOptions,
} from './options.js';

/** The modules a spec may enable; the loader refuses others, this catches a hand-made config. */
const MODULES = ['auth', 'tenancy', 'files', 'mail', 'edge', 'idempotency', 'mcp'] as const;

/** The module's own reading of its setting: `true` or a mapping is on, `false` or nothing off. */
function isOn(setting: unknown, name: string): boolean {
  return moduleSettings(setting, name) !== undefined;
}

async function resolve<T>(value: FromService<T>, service: ServiceContext): Promise<T> {
  return typeof value === 'function'
    ? (value as (service: ServiceContext) => T | Promise<T>)(service)
    : value;
}

export async function composeService<H extends object>(
  artifacts: ServiceArtifacts,
  options: ServiceOptions<H>,
): Promise<App> {
  rejectUnknownOptions(options, SERVICE_OPTIONS, 'createService()');
  rejectUnknownOptions(options.modules ?? {}, MODULE_OVERRIDES, 'createService(): modules');
  const env = options.env ?? process.env;
  const projectDir = options.projectDir ?? process.cwd();
  const config = options.config ?? artifacts.loadConfig(env);
  const modules = config.modules;
  for (const name of Object.keys(modules)) {
    if (!(MODULES as readonly string[]).includes(name))
      throw invalidSetting(name, `no such module; known: ${MODULES.join(', ')}`);
  }

  const app = createApp({
    name: config.name,
    version: config.version,
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
  const stores = await openStores(config.stores, {
    migrate: options.migrate ?? true,
    projectDir,
    env,
    logger: app.logger,
  });
  // From here on, a refusal must not leave the database open (PGlite would stay locked for the next try).
  try {
    return await compose(app, stores, { artifacts, options, config, env, projectDir });
  } catch (error) {
    await stores.close();
    throw error;
  }
}

interface Composition<H extends object> {
  artifacts: ServiceArtifacts;
  options: ServiceOptions<H>;
  config: ServiceContext['config'];
  env: Record<string, string | undefined>;
  projectDir: string;
}

async function compose<H extends object>(
  app: App,
  stores: Stores,
  { artifacts, options, config, env, projectDir }: Composition<H>,
): Promise<App> {
  const modules = config.modules;
  const overrides = options.modules ?? {};
  const plugins: Plugin[] = [];

  // Accounts first: their enricher puts the user on the context before any other plugin's guard runs.
  let auth: ServiceContext['auth'];
  let secret: string | undefined;
  if (isOn(modules.auth, 'auth')) {
    const { authModule } = await import('../auth/config.js');
    const built = authModule(modules.auth, {
      stores,
      projectDir,
      env,
      serviceName: config.name,
      ...(overrides.auth?.users === undefined ? {} : { users: overrides.auth.users }),
      ...(overrides.auth?.routes === undefined ? {} : { routes: overrides.auth.routes }),
    });
    if (built) {
      auth = built.auth;
      secret = built.secret;
      plugins.push(...built.plugins);
    }
  }
  // Teams next: their enricher reads the user auth's put on the context, and their guards run before any
  // module's that reads the tenant (rate-limit keys, idempotency scopes).
  let tenancy: ServiceContext['tenancy'];
  if (isOn(modules.tenancy, 'tenancy')) {
    const { tenancyModule } = await import('../tenancy/config.js');
    const overridden = overrides.tenancy ?? {};
    rejectUnknownOptions(overridden, TENANCY_OVERRIDES, 'createService(): modules.tenancy');
    const built = tenancyModule(modules.tenancy, {
      users: auth?.users,
      ...(stores.memberships === undefined ? {} : { memberships: stores.memberships }),
      ...overridden,
    });
    if (built) {
      tenancy = built.tenancy;
      plugins.push(built.plugin);
    }
  }
  // Files after both: their routes act for the signed-in caller in the tenant the request names.
  let files: ServiceContext['files'];
  if (isOn(modules.files, 'files')) {
    const { filesModule } = await import('../files/config.js');
    const overridden = overrides.files ?? {};
    rejectUnknownOptions(overridden, FILES_OVERRIDES, 'createService(): modules.files');
    const built = filesModule(modules.files, {
      projectDir,
      secret,
      ...(stores.files === undefined ? {} : { store: stores.files }),
      ...overridden,
    });
    if (built) {
      files = built.files;
      plugins.push(built.plugin);
    }
  }
  // Mail follows the modules that send it: with auth on, a development service logs its mails by default
  // and a production one refuses to start without a way to send them.
  if (isOn(modules.mail, 'mail') || auth !== undefined) {
    const { mailModule } = await import('../mail/index.js');
    const mail = mailModule(modules.mail, {
      serviceName: config.name,
      sendsMail: auth !== undefined,
      env,
      projectDir,
      // Under `svc mcp` stdout carries the tool protocol: logged mails go to stderr there.
      ...(requestedServeMode(env) === undefined
        ? {}
        : { write: (line: string) => process.stderr.write(`${line}\n`) }),
      ...(overrides.mail?.transport === undefined ? {} : { transport: overrides.mail.transport }),
    });
    if (mail) plugins.push(mail.plugin);
  }
  if (isOn(modules.edge, 'edge')) {
    const { edgePlugins } = await import('../edge/config.js');
    plugins.push(
      ...edgePlugins(modules.edge, {
        serviceName: config.name,
        ...(artifacts.openapi === undefined ? {} : { openapiDocument: artifacts.openapi }),
        healthChecks: { ...stores.healthChecks, ...overrides.edge?.healthChecks },
        ...(stores.rateLimit === undefined ? {} : { rateLimitStore: stores.rateLimit }),
      }),
    );
  }
  if (isOn(modules.idempotency, 'idempotency')) {
    const { idempotencyPlugins } = await import('../idempotency/config.js');
    plugins.push(...idempotencyPlugins(modules.idempotency, { store: stores.idempotency }));
  }
  if (isOn(modules.mcp, 'mcp')) {
    const { mcpModule } = await import('../mcp/config.js');
    plugins.push(
      ...mcpModule(modules.mcp, {
        ...(artifacts.mcpTools === undefined ? {} : { tools: artifacts.mcpTools }),
        sessionStore: stores.mcpSessions,
        projectDir,
        env,
        // Anonymous agents' sessions are keyed with the service's secret, whichever way auth found it.
        ...(secret === undefined ? {} : { secret }),
      }),
    );
  }

  // Requests still in flight when the app starts closing use the stores until they are answered.
  app.hooks.on('app:closed', () => stores.close());
  for (const plugin of plugins) app.register(plugin);
  const service: ServiceContext = { app, config, stores, auth, tenancy, files };
  for (const plugin of options.plugins === undefined ? [] : await resolve(options.plugins, service))
    app.register(plugin);
  const handlers = await resolve(options.handlers, service);
  const routes = bindRoutes(
    artifacts.routeDefinitions,
    completeHandlers(artifacts.routeDefinitions, handlers, env.NODE_ENV),
  );
  app.register(await adapterPlugin(config.server.adapter, { routes }));
  return app;
}
