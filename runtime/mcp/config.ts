// The agent-tool endpoint svc.config.yaml enables under `modules.mcp` (docs/mcp.md): `true` for the
// defaults, or a mapping of the endpoint's and the plugin's options. Returns the plugins to register: the
// tool server and one that publishes the endpoint's routes and prints its URL at start.
import type { App, Plugin } from '../app/app.js';
import { serviceSecret } from '../auth/dev-secret.js';
import { fromSettings, moduleSettings, rejectUnknownSettings } from '../config/module-settings.js';
import { mcpPlugin, type McpPluginOptions } from './server/plugin.js';
import { DEFAULT_MCP_PATH, MCP_ROUTES_OPTIONS, mcpRoutes, type McpRoutesOptions } from './server/endpoint.js';
import type { McpToolsDocument } from './server/tool-set.js';
import type { McpSessionStoreFactory } from './server/session-store.js';
import type { Implementation } from './protocol/types.js';

export interface McpModuleContext {
  /** generated/mcp-tools.json. */
  tools?: McpToolsDocument;
  /** Default the app's name and version. */
  serverInfo?: Implementation;
  /** Where sessions live (openStores().mcpSessions: PostgreSQL or Redis, shared by processes); default memory. */
  sessionStore?: McpSessionStoreFactory;
  /**
   * The service secret anonymous callers' sessions are keyed with (`sessions.secret`). Default SVC_SECRET,
   * else in development the one kept under `.svc/` (as the auth module finds it), else none: a key random per
   * process, so anonymous sessions then work only on the process that opened them.
   */
  secret?: string;
  /** Where `.svc/` is (the development secret). Default the working directory. */
  projectDir?: string;
  /** Default process.env. */
  env?: Record<string, string | undefined>;
}

// Every mcpRoutes option but `meta` (route meta is the app's code, not a setting), and the plugin options a
// setting can hold (the tools document, server info and reporter come from the app).
const ROUTE_OPTIONS = MCP_ROUTES_OPTIONS.filter((name) => name !== 'meta');
const PLUGIN_OPTIONS = ['forwardHeaders', 'redactErrorDetails', 'instructions'];

/** The service secret by the auth module's rule (serviceSecret), but none, not a refusal, in production. */
function secretOf(context: McpModuleContext): string | undefined {
  return serviceSecret(context.secret, context.env ?? process.env, context.projectDir ?? process.cwd());
}

/** The plugins `modules.mcp` enables, or none. */
export function mcpModule(setting: unknown, context: McpModuleContext = {}): Plugin[] {
  const settings = moduleSettings(setting, 'mcp');
  if (settings === undefined) return [];
  const routeOptions: Record<string, unknown> = {};
  const pluginOptions: Record<string, unknown> = {};
  rejectUnknownSettings(settings, [...ROUTE_OPTIONS, ...PLUGIN_OPTIONS], 'mcp');
  for (const [name, value] of Object.entries(settings)) {
    if (ROUTE_OPTIONS.includes(name)) routeOptions[name] = value;
    else pluginOptions[name] = value;
  }
  // In the spec, redactErrorDetails is a switch: true (or unset) redacts secret-named details, false sends them.
  if (pluginOptions.redactErrorDetails === true) delete pluginOptions.redactErrorDetails;
  const plugin = fromSettings('mcp', () =>
    mcpPlugin({
      ...(pluginOptions as McpPluginOptions),
      ...(context.tools === undefined ? {} : { tools: context.tools }),
      ...(context.serverInfo === undefined ? {} : { serverInfo: context.serverInfo }),
    }),
  );
  const sessions = routeOptions.sessions;
  // Anything but a mapping or nothing is left for mcpRoutes to refuse (false runs stateless).
  if (sessions === undefined || (typeof sessions === 'object' && sessions !== null)) {
    const store = context.sessionStore;
    const secret = secretOf(context);
    routeOptions.sessions = {
      ...(store === undefined ? {} : { store }),
      ...(secret === undefined ? {} : { secret }),
      ...sessions,
    };
  }
  const routes = fromSettings('mcp', () => mcpRoutes(routeOptions as McpRoutesOptions));
  const path = (routeOptions.path as string | undefined) ?? DEFAULT_MCP_PATH;
  const endpoint: Plugin = {
    name: 'svc:mcp-endpoint',
    setup(app: App) {
      app.metadata.add('http:routes', ...routes);
      app.metadata.add('app:urls', { label: 'MCP', path });
    },
  };
  return [plugin, endpoint];
}
