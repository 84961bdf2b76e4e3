// Shared pieces of the agent-tool endpoint suites (mcp-endpoint, mcp-sessions, mcp-tool-calls, mcp-tool-list):
// a JSON-RPC POST through node:http (so Host and Origin are sent exactly as given), an initialize that returns
// the session id, a stand-in identity plugin, a server wrapper that mounts mcpPlugin + mcpRoutes, and the
// routes both tool suites mount.
import {
  HttpError,
  mcpPlugin,
  mcpRoutes,
  route,
  type HandlerInput,
  type McpPluginOptions,
  type McpRoutesOptions,
  type Plugin,
  type Route,
} from 'svckit';
import { rawRequest, withServer, type AdapterUnderTest } from './harness.js';

export const LATEST = '2025-11-25';
export const SUPPORTED = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'];

export interface RpcResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** The parsed body; undefined when empty or not JSON. */
  json: unknown;
}

/** Parsed JSON of a body, or undefined. */
function parsed(body: string): unknown {
  if (body === '') return undefined;
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return undefined;
  }
}

export interface SendOptions {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** The raw body; default JSON.stringify(message). */
  body?: string;
  /**
   * The client address to send from (any of 127.0.0.0/8 on Linux), which the server sees as `request.ip`:
   * how a test plays several clients.
   */
  from?: string;
}

/** Sends `message` (JSON) to the endpoint; `headers` replace the defaults (content-type application/json). */
export async function send(url: string, message: unknown, options: SendOptions = {}): Promise<RpcResponse> {
  const method = options.method ?? 'POST';
  const body =
    options.body ?? (message === undefined || method === 'DELETE' ? undefined : JSON.stringify(message));
  const headers: Record<string, string> =
    body === undefined ? { ...options.headers } : { 'content-type': 'application/json', ...options.headers };
  const sent = {
    method,
    path: options.path ?? '/mcp',
    headers,
    ...(body === undefined ? {} : { body }),
  };
  const response = await rawRequest(url, {
    ...sent,
    ...(options.from === undefined ? {} : { localAddress: options.from }),
  });
  return { ...response, json: parsed(response.body) };
}

let nextId = 1;

/** A JSON-RPC request with a fresh id. */
export function request(method: string, params?: Record<string, unknown>, id: string | number = nextId++) {
  return { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) };
}

export function notification(method: string, params?: Record<string, unknown>) {
  return { jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) };
}

export function initializeMessage(protocolVersion: unknown = LATEST, id: string | number = nextId++) {
  return request(
    'initialize',
    { protocolVersion, capabilities: {}, clientInfo: { name: 'test-client', version: '1.0.0' } },
    id,
  );
}

export function header(response: RpcResponse, name: string): string | undefined {
  const value = response.headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Runs initialize and returns the session id (asserting the answer is a success with the header). */
export async function initialize(
  url: string,
  options: { protocolVersion?: string; headers?: Record<string, string>; from?: string } = {},
): Promise<string> {
  const response = await send(url, initializeMessage(options.protocolVersion ?? LATEST), {
    headers: options.headers ?? {},
    ...(options.from === undefined ? {} : { from: options.from }),
  });
  const id = header(response, 'mcp-session-id');
  if (response.status !== 200 || id === undefined)
    throw new Error(`initialize failed: ${response.status} ${response.body}`);
  return id;
}

/** A session-bound sender: every message carries the session id plus `headers`. */
export function inSession(url: string, sessionId: string, headers: Record<string, string> = {}) {
  const withSession = { 'mcp-session-id': sessionId, ...headers };
  return {
    send: (message: unknown, extra: Record<string, string> = {}) =>
      send(url, message, { headers: { ...withSession, ...extra } }),
    call: (name: string, args?: unknown, extra: Record<string, string> = {}) =>
      send(url, request('tools/call', { name, ...(args === undefined ? {} : { arguments: args }) }), {
        headers: { ...withSession, ...extra },
      }),
    list: (extra: Record<string, string> = {}) =>
      send(url, request('tools/list'), { headers: { ...withSession, ...extra } }),
    remove: (extra: Record<string, string> = {}) =>
      send(url, undefined, { method: 'DELETE', headers: { ...withSession, ...extra } }),
  };
}

/** Opens a session and returns its sender. */
export async function openSession(
  url: string,
  options: { protocolVersion?: string; headers?: Record<string, string>; from?: string } = {},
) {
  const id = await initialize(url, options);
  return { id, ...inSession(url, id, options.headers ?? {}) };
}

/** The `result` of a JSON-RPC success answer (throws with the body otherwise). */
export function resultOf(response: RpcResponse): Record<string, unknown> {
  const body = response.json as { result?: Record<string, unknown> } | undefined;
  if (body?.result === undefined) throw new Error(`no result: ${response.status} ${response.body}`);
  return body.result;
}

/** A tool-call result as the endpoint answers it. */
export interface ToolResult {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export function toolResult(response: RpcResponse): ToolResult {
  return resultOf(response) as unknown as ToolResult;
}

/** The `error` of a JSON-RPC error answer. */
export function rpcError(response: RpcResponse): { code: number; message: string } | undefined {
  return (response.json as { error?: { code: number; message: string } } | undefined)?.error;
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function envelope(code: string, message: string) {
  return { error: { code, message } };
}

/**
 * A stand-in for authentication: `Authorization: Bearer <user>[.<token>]` becomes `context.user` and `x-tenant-id`
 * `context.tenant` (both headers reach tool calls by default). It claims `auth`, rejects `meta.auth`
 * routes without a user (401 AUTH_REQUIRED) and hides them from callers without one.
 */
export function fakeAuth(): Plugin {
  return {
    name: 'fake-auth',
    setup(app) {
      app.metadata.add('http:enrichers', {
        name: 'bearer-identity',
        enrich: ({ request: incoming, context }) => {
          const authorization = incoming.headers.authorization;
          const tenant = incoming.headers['x-tenant-id'];
          // `Bearer alice.token-1` and `Bearer alice.token-2` are two credentials of one user.
          if (typeof authorization === 'string' && authorization.startsWith('Bearer '))
            context.user = { id: authorization.slice('Bearer '.length).split('.')[0] };
          if (typeof tenant === 'string') context.tenant = { id: tenant };
        },
      });
      // No API keys here: `scopes` constrains keys only, so a stand-in without keys enforces it by having none.
      app.metadata.add(
        'http:guarded-meta',
        { key: 'auth', plugin: 'fake-auth' },
        { key: 'scopes', plugin: 'fake-auth' },
      );
      app.metadata.add('http:guards', {
        name: 'fake-auth',
        appliesTo: (route) => route.meta.auth === true,
        check: ({ context }) => {
          if (context.user === undefined)
            throw new HttpError(401, 'AUTH_REQUIRED', 'Authentication required.');
        },
      });
      app.metadata.add('http:route-visibility', {
        name: 'fake-auth',
        isVisible: (route, context) => route.meta.auth !== true || context.user !== undefined,
      });
    },
  };
}

export interface McpServerInput {
  /** The app's own routes (tools come from those with meta.mcp). */
  routes?: Route[];
  /** mcpPlugin options; null leaves mcpPlugin out. */
  mcp?: McpPluginOptions | null;
  endpoint?: McpRoutesOptions;
  plugins?: Plugin[];
  options?: Record<string, unknown>;
}

/** Serves `routes` + mcpRoutes(endpoint) with mcpPlugin(mcp) (reportError off unless given) on `adapter`. */
export function withMcp<T>(
  adapter: AdapterUnderTest,
  input: McpServerInput,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const plugins = [...(input.plugins ?? [])];
  if (input.mcp !== null) plugins.push(mcpPlugin({ reportError: false, ...input.mcp }));
  return withServer(
    adapter,
    {
      routes: [...(input.routes ?? []), ...mcpRoutes(input.endpoint)],
      plugins,
      ...(input.options === undefined ? {} : { options: input.options }),
    },
    body,
  );
}

/** The body of the `POST /projects` tool both call and list suites mount (`post_projects`). */
export const PROJECT_BODY = {
  type: 'object',
  properties: { name: { type: 'string', minLength: 1 } },
  required: ['name'],
  additionalProperties: false,
};

/** `GET /notes/:id` with a query (`get_notes_by_id`), mounted by the call and list suites with their own handlers. */
export const NOTE_VIEW = {
  method: 'GET' as const,
  url: '/notes/:id',
  meta: { mcp: true, summary: 'Read a note' },
  params: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
  query: {
    type: 'object',
    properties: { limit: { type: 'integer' }, tags: { type: 'array', items: { type: 'string' } } },
  },
};

/** A GET route exposed as a tool (`get_<path>`), with more meta when given. */
export function toolRoute(
  url: string,
  handler: (input: HandlerInput) => unknown,
  meta: Record<string, unknown> = {},
): Route {
  return route({ method: 'GET', url, meta: { mcp: true, ...meta }, handler });
}

/** `DELETE /notes/:id` under the explicit tool name `remove_note`. */
export const removeNote = (): Route =>
  route({
    method: 'DELETE',
    url: '/notes/:id',
    meta: { mcp: { name: 'remove_note' } },
    handler: () => undefined,
  });

/** A route without `meta.mcp`: never a tool. */
export const unlisted = (): Route => route({ method: 'GET', url: '/unlisted', handler: () => ({}) });
