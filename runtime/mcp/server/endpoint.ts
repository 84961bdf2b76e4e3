// The HTTP endpoint (MCP Streamable HTTP; docs/mcp.md, "The HTTP endpoint"): POST carries a JSON-RPC message
// (or, in 2025-03-26, a batch) and is answered with JSON; DELETE ends a session; GET answers 405 (no
// server-initiated stream) through the neutral 405. Checks run in this order: Origin and Host (403), media
// type (415: only `application/json`), batch size (400 -32600), session (400 missing, 404
// unknown/expired/foreign), MCP-Protocol-Version (400).
import { DEFAULT_MCP_PATH } from '../../../shared/module-defaults.js';
import { errors } from '../../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { mediaTypeOf } from '../../http/body.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
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
import { batchTooLarge, chargeBatch, DEFAULT_MAX_BATCH_SIZE, rateLimitedMessage } from './batch.js';
import { checkOrigin, type OriginPolicy } from './origin.js';
import { requireMcpService, type McpService } from './plugin.js';
import type { MessageScope } from './server.js';
import { SessionTable, type McpSession, type McpSessionOptions } from './sessions.js';
import { forwardedHeaders } from './tool-request.js';
import { jsonRpcText } from './response-text.js';
import { headerValue } from './header-value.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

export { DEFAULT_MCP_PATH };
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
  /**
   * A rate limit on the endpoint itself, per caller ip (enforced by securityPlugin's limiter). Each request
   * in a batch counts as one POST would.
   */
  rateLimit?: { limit: number; windowMs: number };
  /** The most messages a JSON-RPC batch may hold (default 32); a larger one is refused whole (-32600). */
  maxBatchSize?: number;
}

/** The keys mcpRoutes() takes; any other is refused. */
export const MCP_ROUTES_OPTIONS = optionKeys<McpRoutesOptions>({
  path: true,
  allowedOrigins: true,
  allowedHosts: true,
  auth: true,
  meta: true,
  sessions: true,
  listVisibleOnly: true,
  rateLimit: true,
  maxBatchSize: true,
});

function isInitialize(message: ClassifiedMessage): boolean {
  return message.kind === 'request' && message.message.method === 'initialize';
}

function checkedOptions(options: McpRoutesOptions): number {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidOptions('mcpRoutes');
  rejectUnknownOptions(options, MCP_ROUTES_OPTIONS, 'mcpRoutes');
  const { path, rateLimit } = options;
  if (path !== undefined && (typeof path !== 'string' || !path.startsWith('/')))
    throw invalidOption('mcpRoutes', 'path', 'a path starting with "/"');
  for (const name of ['allowedOrigins', 'allowedHosts'] as const) {
    const list = options[name];
    if (list !== undefined && (!Array.isArray(list) || list.some((item) => typeof item !== 'string')))
      throw invalidOption('mcpRoutes', name, 'an array of strings');
  }
  // `sessions` is checked by SessionTable, which applies its defaults.
  if (rateLimit !== undefined) {
    if (typeof rateLimit !== 'object' || rateLimit === null)
      throw invalidOption('mcpRoutes', 'rateLimit', 'an object { limit, windowMs }');
    rejectUnknownOptions(rateLimit, ['limit', 'windowMs'], 'mcpRoutes: rateLimit');
    positiveWholeNumber(rateLimit.limit, 0, 'mcpRoutes', 'rateLimit.limit');
    positiveWholeNumber(rateLimit.windowMs, 0, 'mcpRoutes', 'rateLimit.windowMs');
  }
  return positiveWholeNumber(options.maxBatchSize, DEFAULT_MAX_BATCH_SIZE, 'mcpRoutes', 'maxBatchSize');
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
  const maxBatchSize = checkedOptions(options);
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
    // `application/json` is the transport's one media type. `+json` types the HTTP routes read as JSON are refused here.
    if (mediaTypeOf(headerValue(request.headers, 'content-type')) !== 'application/json')
      throw errors.UNSUPPORTED_MEDIA_TYPE();
    // An empty body is "no body" to the parsers: with a JSON content type that is a malformed message, not 415.
    if (request.body === undefined) throw errors.BAD_REQUEST();
    if (request.bodyKind !== 'json') throw errors.UNSUPPORTED_MEDIA_TYPE();
    const body = request.body;
    // Refused before any session lookup: an oversized batch costs the store nothing.
    if (Array.isArray(body) && body.length > maxBatchSize) {
      reply.status(400);
      return batchTooLarge(maxBatchSize);
    }

    // A single message is classified here, once; a batch's items after the batch checks below.
    const parsed = Array.isArray(body) ? undefined : classifyMessage(body);
    if (parsed?.kind === 'request' && parsed.message.method === 'initialize') {
      const scope = scopeFor(request, service, undefined, ASSUMED_HTTP_PROTOCOL_VERSION);
      const response = await service.server.handle(parsed.message, scope);
      if (sessions !== undefined && response !== undefined && 'result' in response) {
        const caller = sessions.callers.of(request.context, request.headers, request.ip);
        const session = await sessions.open(caller, response.result.protocolVersion as ProtocolVersion);
        reply.header(SESSION_HEADER, session.id);
      }
      return response;
    }

    let session: McpSession | undefined;
    if (sessions !== undefined) {
      const id = headerValue(request.headers, SESSION_HEADER);
      if (id === undefined || id === '') throw errors.MCP_SESSION_REQUIRED();
      session = await sessions.use(id, sessions.callers.keyOf(request.context, request.headers));
      if (session === undefined) throw errors.MCP_SESSION_NOT_FOUND();
    }
    const version = versionInForce(request, session);
    const scope = scopeFor(request, service, session, version);

    if (parsed === undefined) {
      const messages = (body as unknown[]).map(classifyMessage);
      if (!allowsBatches(version) || messages.length === 0 || messages.some(isInitialize))
        throw errors.MCP_BATCH_NOT_ALLOWED({ details: { protocolVersion: version } });
      const limitInput = { route: messageRoute, request, context: request.context };
      const refused = await chargeBatch(messages, service.rateLimiter, limitInput, reply);
      const answers = await Promise.all(
        messages.map((message, index) =>
          message.kind === 'request' && refused.has(index)
            ? rateLimitedMessage(message)
            : answer(message, scope),
        ),
      );
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
    if (payload !== undefined) {
      // Written here, so a tool result's JSON is spliced in rather than parsed and serialized again.
      reply.header('content-type', JSON_CONTENT_TYPE);
      return jsonRpcText(payload);
    }
    // Only notifications and responses: accepted, nothing to answer.
    reply.status(202);
    return undefined;
  }

  async function remove({ request }: HandlerInput): Promise<undefined> {
    checkOrigin(request.headers, request.ip, options);
    requireMcpService(request.context.container);
    const id = headerValue(request.headers, SESSION_HEADER);
    if (id === undefined || id === '') throw errors.MCP_SESSION_REQUIRED();
    if (
      sessions === undefined ||
      !(await sessions.close(id, sessions.callers.keyOf(request.context, request.headers)))
    )
      throw errors.MCP_SESSION_NOT_FOUND();
    return undefined;
  }

  const messageRoute: Route = {
    id: 'mcpMessage',
    method: 'POST',
    url: path,
    meta,
    handler: post,
    successStatus: 200,
  };
  const routes: Route[] = [messageRoute];
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
