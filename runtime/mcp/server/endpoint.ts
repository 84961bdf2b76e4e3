// The HTTP endpoint (seed 001 "Agent-tool endpoint"; MCP Streamable HTTP): POST carries a JSON-RPC message
// (or, in 2025-03-26, a batch) and is answered with JSON; DELETE ends a session; GET answers 405 (no
// server-initiated stream) through the neutral 405. Checks run in this order: Origin and Host (403), media
// type (415), session (400 missing, 404 unknown/expired/foreign), MCP-Protocol-Version (400).
import { errors } from '../../../generated/modules/errors.js';
import { isJsonMediaType, mediaTypeOf } from '../../http/body.js';
import { isRouteVisible } from '../../http/visibility.js';
import type { HandlerInput, Route, RouteMeta, SvcReply, SvcRequest } from '../../http/types.js';
import {
  classifyMessage,
  failure,
  JSON_RPC_ERROR,
  type ClassifiedMessage,
  type JsonRpcResponse,
} from '../protocol/json-rpc.js';
import {
  allowsBatches,
  ASSUMED_HTTP_PROTOCOL_VERSION,
  isSupportedVersion,
  SUPPORTED_PROTOCOL_VERSIONS,
  type ProtocolVersion,
} from '../protocol/versions.js';
import { callerKey } from './caller.js';
import { checkOrigin, type OriginPolicy } from './origin.js';
import { requireMcpService, type McpService } from './plugin.js';
import type { MessageScope } from './server.js';
import { SessionTable, type McpSession, type McpSessionOptions } from './sessions.js';
import { forwardedHeaders } from './tool-request.js';
import { headerValue } from './header-value.js';
import { positiveWholeNumber } from '../../config/whole-number.js';

export const DEFAULT_MCP_PATH = '/mcp';
export const SESSION_HEADER = 'mcp-session-id';
export const PROTOCOL_VERSION_HEADER = 'mcp-protocol-version';

export interface McpRoutesOptions extends OriginPolicy {
  /** Where the endpoint lives (default /mcp). */
  path?: string;
  /** true: the endpoint needs a signed-in user (`meta.auth`); default anonymous initialize and tools/list. */
  auth?: boolean;
  /** More meta for the endpoint's routes (e.g. `scopes`). */
  meta?: RouteMeta;
  /** Session limits, or false to run stateless (no Mcp-Session-Id, nothing to cancel across requests). */
  sessions?: McpSessionOptions | false;
  /** Hide from tools/list what the caller statically cannot use (default true). Never authorization. */
  listVisibleOnly?: boolean;
  /** A rate limit on the endpoint itself, per caller ip (enforced by securityPlugin's limiter). */
  rateLimit?: { limit: number; windowMs: number };
}

function isInitialize(value: unknown): boolean {
  const classified = classifyMessage(value);
  return classified.kind === 'request' && classified.message.method === 'initialize';
}

function checkedOptions(options: McpRoutesOptions): void {
  const { path, sessions, rateLimit } = options;
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/')))
    throw new TypeError('mcpRoutes: path must start with "/"');
  for (const name of ['allowedOrigins', 'allowedHosts'] as const) {
    const list = options[name];
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string')))
      throw new TypeError(`mcpRoutes: ${name} must be an array of strings`);
  }
  if (sessions !== undefined && sessions !== false) {
    // ttlMs and maxSessions are checked by SessionTable, which applies their defaults.
    if (sessions.store !== undefined && typeof sessions.store !== 'function')
      throw new TypeError('mcpRoutes: sessions.store must be a store factory (openStores().mcpSessions)');
  }
  if (rateLimit !== undefined) {
    positiveWholeNumber(rateLimit.limit, 0, 'mcpRoutes', 'rateLimit.limit');
    positiveWholeNumber(rateLimit.windowMs, 0, 'mcpRoutes', 'rateLimit.windowMs');
  }
}

/** The version a non-initialize request runs under: its header (checked), the session's, or the assumed one. */
function versionInForce(request: SvcRequest, session: McpSession | undefined): ProtocolVersion {
  const header = headerValue(request.headers, PROTOCOL_VERSION_HEADER);
  const unsupported = () =>
    errors.MCP_PROTOCOL_VERSION_UNSUPPORTED({ details: { supported: [...SUPPORTED_PROTOCOL_VERSIONS] } });
  if (header === undefined) return session?.protocolVersion ?? ASSUMED_HTTP_PROTOCOL_VERSION;
  if (!isSupportedVersion(header)) throw unsupported();
  if (session !== undefined && header !== session.protocolVersion) throw unsupported();
  return header;
}

/** The routes of the endpoint; mount them with the app's routes. Needs mcpPlugin() on the same app. */
export function mcpRoutes(options: McpRoutesOptions = {}): Route[] {
  checkedOptions(options);
  const path = options.path ?? DEFAULT_MCP_PATH;
  const sessions = options.sessions === false ? undefined : new SessionTable(options.sessions);
  const listVisibleOnly = options.listVisibleOnly !== false;
  const meta: RouteMeta = { ...options.meta, summary: 'Agent-tool endpoint (MCP over HTTP)', tags: ['mcp'] };
  if (options.auth === true) meta.auth = true;
  if (options.rateLimit !== undefined) meta.rateLimit = { ...options.rateLimit, key: 'ip' };

  function scopeFor(
    request: SvcRequest,
    service: McpService,
    session: McpSession | undefined,
    version: ProtocolVersion,
  ): MessageScope {
    const context = request.context;
    return {
      caller: {
        ip: request.ip,
        headers: forwardedHeaders(request.headers, service.forwardHeaders),
        correlationId: context.correlationId,
      },
      protocolVersion: version,
      connection: session,
      visible: listVisibleOnly
        ? (entry) => isRouteVisible(entry.route, context, service.visibilityChecks)
        : () => true,
    };
  }

  async function post({ request, reply }: HandlerInput): Promise<unknown> {
    checkOrigin(request.headers, request.ip, options);
    const service = requireMcpService(request.context.container);
    // An empty body is "no body" to the parsers: with a JSON content type that is a malformed message, not 415.
    if (
      request.body === undefined &&
      isJsonMediaType(mediaTypeOf(headerValue(request.headers, 'content-type')))
    )
      throw errors.BAD_REQUEST();
    if (request.bodyKind !== 'json') throw errors.UNSUPPORTED_MEDIA_TYPE();
    const body = request.body;
    const caller = () => callerKey(request.context, request.headers);

    // A single message is classified once; a batch item is classified where it is answered.
    const parsed = Array.isArray(body) ? undefined : classifyMessage(body);
    if (parsed?.kind === 'request' && parsed.message.method === 'initialize') {
      const scope = scopeFor(request, service, undefined, ASSUMED_HTTP_PROTOCOL_VERSION);
      const response = await service.server.handle(parsed.message, scope);
      if (sessions !== undefined && response !== undefined && 'result' in response) {
        const session = await sessions.open(caller(), response.result.protocolVersion as ProtocolVersion);
        reply.header(SESSION_HEADER, session.id);
      }
      return response;
    }

    let session: McpSession | undefined;
    if (sessions !== undefined) {
      const id = headerValue(request.headers, SESSION_HEADER);
      if (id === undefined || id === '') throw errors.MCP_SESSION_REQUIRED();
      session = await sessions.use(id, caller());
      if (session === undefined) throw errors.MCP_SESSION_NOT_FOUND();
    }
    const version = versionInForce(request, session);
    const scope = scopeFor(request, service, session, version);

    if (parsed === undefined) {
      const batch = body as unknown[];
      if (!allowsBatches(version) || batch.length === 0 || batch.some(isInitialize))
        throw errors.MCP_BATCH_NOT_ALLOWED({ details: { protocolVersion: version } });
      const answers = await Promise.all(batch.map((item) => answer(classifyMessage(item), scope)));
      const responses = answers.filter((item): item is JsonRpcResponse => item !== undefined);
      return respond(reply, responses.length === 0 ? undefined : responses);
    }
    if (parsed.kind === 'invalid') {
      reply.status(400);
      return failure(parsed.id, JSON_RPC_ERROR.INVALID_REQUEST, parsed.reason);
    }
    return respond(reply, await answer(parsed, scope));

    function answer(
      message: ClassifiedMessage,
      itemScope: MessageScope,
    ): Promise<JsonRpcResponse | undefined> {
      if (message.kind === 'invalid')
        return Promise.resolve(failure(message.id, JSON_RPC_ERROR.INVALID_REQUEST, message.reason));
      // Responses answer requests svc never sends: accepted and dropped.
      if (message.kind === 'response') return Promise.resolve(undefined);
      return service.server.handle(message.message, itemScope);
    }
  }

  function respond(reply: SvcReply, payload: JsonRpcResponse | JsonRpcResponse[] | undefined): unknown {
    if (payload !== undefined) return payload;
    // Only notifications and responses: accepted, nothing to answer.
    reply.status(202);
    return undefined;
  }

  async function remove({ request }: HandlerInput): Promise<undefined> {
    checkOrigin(request.headers, request.ip, options);
    requireMcpService(request.context.container);
    const id = headerValue(request.headers, SESSION_HEADER);
    if (id === undefined || id === '') throw errors.MCP_SESSION_REQUIRED();
    if (sessions === undefined || !(await sessions.close(id, callerKey(request.context, request.headers))))
      throw errors.MCP_SESSION_NOT_FOUND();
    return undefined;
  }

  const routes: Route[] = [
    { id: 'mcpMessage', method: 'POST', url: path, meta, handler: post, successStatus: 200 },
  ];
  if (sessions !== undefined)
    routes.push({
      id: 'mcpEndSession',
      method: 'DELETE',
      url: path,
      meta,
      handler: remove,
      successStatus: 204,
    });
  return routes;
}
