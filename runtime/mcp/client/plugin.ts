// mcpClientPlugin: one McpClient per configured server, all connected at boot (a
// server that cannot connect refuses boot), reachable by name through a registry in the app's container,
// closed when the app closes.
import type { App, Plugin } from '../../app/app.js';
import type { Scope } from '../../app/container.js';
import { errors } from '../../../generated/modules/errors.js';
import { HttpError, SvcError } from '../../http/errors.js';
import type { CallToolResult, Tool } from '../protocol/types.js';
import { McpClient, type CallOptions } from './client.js';
import { HttpClientTransport } from './http-transport.js';
import { checkedPluginOptions, type McpClientPluginOptions, type McpServerConfig } from './plugin-options.js';
import { StdioClientTransport } from './stdio-transport.js';
import type { ClientTransport } from './transport.js';

export type {
  McpClientPluginOptions,
  McpServerConfig,
  McpHttpServerConfig,
  McpStdioServerConfig,
} from './plugin-options.js';

/** The container token of the registry mcpClientPlugin provides. */
export const MCP_CLIENTS: unique symbol = Symbol('svc:mcp-clients');

/** Named tool servers: call a tool on one by its name in `mcpClientPlugin({ servers })`. */
export interface McpClientRegistry {
  /** The configured server names, in configuration order. */
  readonly names: readonly string[];
  /** The server's client; throws MCP_SERVER_UNKNOWN for a name that is not configured. */
  client(server: string): McpClient;
  listTools(server: string, options?: CallOptions): Promise<Tool[]>;
  callTool(
    server: string,
    tool: string,
    args?: Record<string, unknown>,
    options?: CallOptions,
  ): Promise<CallToolResult>;
}

function createClient(config: McpServerConfig, timeoutMs: number | undefined): McpClient {
  let transport: ClientTransport;
  if (config.type === 'http') {
    transport = new HttpClientTransport(config.url, config.headers ? { headers: config.headers } : {});
  } else {
    const { type: _type, ...parameters } = config;
    transport = new StdioClientTransport(parameters);
  }
  return new McpClient(transport, timeoutMs === undefined ? {} : { timeoutMs });
}

function createRegistry(clients: ReadonlyMap<string, McpClient>): McpClientRegistry {
  const client = (server: string): McpClient => {
    const found = clients.get(server);
    if (!found) {
      throw errors.MCP_SERVER_UNKNOWN({
        message: `No tool server is named ${JSON.stringify(server)}.`,
        details: { server },
      });
    }
    return found;
  };
  return {
    names: [...clients.keys()],
    client,
    listTools: async (server, options) => client(server).listTools(options),
    callTool: async (server, tool, args, options) => client(server).callTool(tool, args, options),
  };
}

/** The same error, its message and details naming the server that failed to connect. */
function namingServer(server: string, error: unknown): Error {
  if (!(error instanceof SvcError) || error.status === undefined) return error as Error;
  const details =
    typeof error.details === 'object' && error.details !== null ? { ...error.details, server } : { server };
  return new HttpError(
    error.status,
    error.code,
    `Tool server "${server}" could not connect: ${error.message}`,
    {
      details,
      internalDetails: error.internalDetails,
      cause: error,
    },
  );
}

export function mcpClientPlugin(
  options: McpClientPluginOptions,
): Plugin & { readonly registry: McpClientRegistry } {
  const { servers, timeoutMs } = checkedPluginOptions(options);
  const clients = new Map<string, McpClient>();
  for (const [name, config] of Object.entries(servers)) clients.set(name, createClient(config, timeoutMs));
  const registry = createRegistry(clients);
  const closeAll = async (): Promise<void> => {
    await Promise.all([...clients.values()].map((client) => client.close()));
  };

  return {
    name: 'svc:mcp-client',
    registry,
    setup(app: App) {
      // Provided in setup, so other plugins can take the registry in their own boot.
      app.container.provide(MCP_CLIENTS, registry);
      app.hooks.on('app:closing', closeAll);
    },
    async boot() {
      const names = [...clients.keys()];
      const outcomes = await Promise.allSettled(names.map((name) => clients.get(name)!.connect()));
      const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      if (failed < 0) return;
      // Refuse boot, and leave no spawned server behind.
      await closeAll();
      throw namingServer(names[failed]!, (outcomes[failed] as PromiseRejectedResult).reason);
    },
  };
}

/** The registry of mcpClientPlugin from a scope (`context.container` in a handler, or `app.container`). */
export function mcpClients(scope: Scope): McpClientRegistry {
  const registry = scope.get<McpClientRegistry>(MCP_CLIENTS);
  if (!registry) throw new Error('mcpClients(): no mcpClientPlugin() is registered on this app.');
  return registry;
}
