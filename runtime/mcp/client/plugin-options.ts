// The options of mcpClientPlugin, checked when the plugin is created: a bad shape throws a TypeError naming
// the option (`servers.<name>.<option>`), which module settings turn into CONFIG_INVALID.
import { checkedStdioOptions, type StdioServerParameters } from './stdio-options.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import { isJsonObject } from '../protocol/json-rpc.js';
import { invalidOption } from '../../config/option-errors.js';

/** A server reached over Streamable HTTP. */
export interface McpHttpServerConfig {
  type: 'http';
  /** The server's MCP endpoint, an absolute http(s) URL. */
  url: string | URL;
  /** Sent on every request (e.g. `authorization`). */
  headers?: Record<string, string>;
}

/** A server the app spawns and talks to over stdin/stdout. */
export interface McpStdioServerConfig extends StdioServerParameters {
  type: 'stdio';
}

export type McpServerConfig = McpHttpServerConfig | McpStdioServerConfig;

export interface McpClientPluginOptions {
  /** The servers by name; the name is what `registry.callTool(server, ...)` takes. */
  servers: Record<string, McpServerConfig>;
  /** Each request's timeout, in ms, for every server. Default 60000. */
  timeoutMs?: number;
}

const OWNER = 'mcpClientPlugin()';
const PREFIX = `${OWNER}:`;

function fail(option: string, expected: string): never {
  throw invalidOption(OWNER, option, expected);
}

function checkedHttp(name: string, config: Record<string, unknown>): McpHttpServerConfig {
  rejectUnknownOptions(config, ['type', 'url', 'headers'], `${PREFIX} servers.${name}`);
  const { url, headers } = config;
  let parsed: URL | undefined;
  try {
    parsed = typeof url === 'string' || url instanceof URL ? new URL(url) : undefined;
  } catch {
    parsed = undefined;
  }
  if (!parsed || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    fail(`servers.${name}.url`, 'an absolute http(s) URL');
  }
  if (headers !== undefined) {
    if (!isJsonObject(headers) || Object.values(headers).some((value) => typeof value !== 'string')) {
      fail(`servers.${name}.headers`, 'an object of header names to string values');
    }
  }
  const checked: McpHttpServerConfig = { type: 'http', url: parsed.href };
  if (headers !== undefined) checked.headers = { ...(headers as Record<string, string>) };
  return checked;
}

export function checkedPluginOptions(options: unknown): {
  servers: Record<string, McpServerConfig>;
  timeoutMs: number | undefined;
} {
  if (!isJsonObject(options)) fail('options', 'an object');
  const record = options as Record<string, unknown>;
  rejectUnknownOptions(record, ['servers', 'timeoutMs'], OWNER);
  const { servers, timeoutMs } = record;
  if (timeoutMs !== undefined) positiveWholeNumber(timeoutMs, 0, 'mcpClientPlugin', 'timeoutMs');
  if (!isJsonObject(servers)) fail('servers', 'an object of server names to { type: "http" | "stdio", ... }');
  const checked: Record<string, McpServerConfig> = {};
  for (const [name, config] of Object.entries(servers as Record<string, unknown>)) {
    if (name === '') fail('servers', 'an object whose server names are not empty');
    if (!isJsonObject(config)) fail(`servers.${name}`, 'an object');
    const server = config as Record<string, unknown>;
    if (server.type === 'http') {
      checked[name] = checkedHttp(name, server);
    } else if (server.type === 'stdio') {
      checked[name] = {
        ...checkedStdioOptions(server, `${PREFIX} servers.${name}`, ['type']),
        type: 'stdio',
      };
    } else {
      fail(`servers.${name}.type`, '"http" or "stdio"');
    }
  }
  return { servers: checked, timeoutMs: timeoutMs as number | undefined };
}
