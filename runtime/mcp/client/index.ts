// The MCP tool client: McpClient, its HTTP and stdio transports, and the plugin that
// connects named servers at boot.
export { McpClient, DEFAULT_CLIENT_TIMEOUT_MS } from './client.js';
export type { McpClientOptions, CallOptions } from './client.js';
export { isSessionExpired, sessionExpired, DEFAULT_MAX_MESSAGE_BYTES } from './transport.js';
export type { ClientTransport, SendOptions } from './transport.js';
export { HttpClientTransport } from './http-transport.js';
export type { HttpClientTransportOptions } from './http-transport.js';
export { StdioClientTransport } from './stdio-transport.js';
export type { StdioServerParameters } from './stdio-options.js';
export { DEFAULT_INHERITED_ENV, childEnv } from './stdio-env.js';
export type { ChildEnvOptions } from './stdio-env.js';
export { mcpClientPlugin, mcpClients, MCP_CLIENTS } from './plugin.js';
export type {
  McpClientRegistry,
  McpClientPluginOptions,
  McpServerConfig,
  McpHttpServerConfig,
  McpStdioServerConfig,
} from './plugin.js';
