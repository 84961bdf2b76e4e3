// The agent-tool protocol (MCP): the server side (tools from routes, the HTTP endpoint, stdio), the client
// side (McpClient, its HTTP and stdio transports, mcpClientPlugin) and the protocol's message shapes.
export * from './protocol/json-rpc.js';
export * from './protocol/versions.js';
export type * from './protocol/types.js';
export { mcpPlugin, mcpService, MCP_SERVICE } from './server/plugin.js';
export type { McpPluginOptions, McpService } from './server/plugin.js';
export { mcpRoutes, DEFAULT_MCP_PATH, SESSION_HEADER, PROTOCOL_VERSION_HEADER } from './server/endpoint.js';
export type { McpRoutesOptions } from './server/endpoint.js';
export type { OriginPolicy } from './server/origin.js';
export {
  DEFAULT_SESSION_TTL_MS,
  DEFAULT_MAX_SESSIONS,
  DEFAULT_MAX_SESSIONS_PER_CALLER,
} from './server/sessions.js';
export { DEFAULT_MAX_BATCH_SIZE } from './server/batch.js';
export type { McpRouteSelector } from './server/tool-selection.js';
export type { McpSessionOptions } from './server/sessions.js';
export { MemoryMcpSessionStore, memoryMcpSessions } from './server/memory-session-store.js';
export type {
  McpSessionLimits,
  McpSessionRecord,
  McpSessionStore,
  McpSessionStoreFactory,
} from './server/session-store.js';
export { DEFAULT_FORWARDED_HEADERS } from './server/tool-request.js';
export type { ToolCaller } from './server/tool-request.js';
export { toolSignal } from './server/call-tool.js';
export { McpServer } from './server/server.js';
export type { McpConnection, MessageScope } from './server/server.js';
export type { McpToolDefinition, McpToolsDocument } from './server/tool-set.js';
export {
  serveMcpStdio,
  DEFAULT_STDIO_MAX_CONCURRENT_REQUESTS,
  DEFAULT_STDIO_MAX_LINE_BYTES,
} from './server/stdio.js';
export type { McpStdioOptions, McpStdioServer } from './server/stdio.js';
export { MCP_STDIO_SERVE_MODE, MCP_AUTHORIZATION_ENV, mcpStdioServeMode } from './server/stdio-mode.js';
export { mcpModule } from './config.js';
export type { McpModuleContext } from './config.js';
export * from './client/index.js';
