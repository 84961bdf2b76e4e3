// The request a tool call runs as: the route's method and template, a
// concrete url built from the arguments, the caller's ip and only the forwarded headers. Arguments are split
// into path parameters, query and body by the route's own parts, and path and query values are turned back
// into text, so the route's coercion and validators see exactly what an HTTP request would give them.
import type { Scope } from '../../app/container.js';
import { createRequestContext } from '../../http/context.js';
import { uuidv7 } from '../../http/uuid.js';
import type { HttpMethod, RequestContext, RequestHeaders, SvcRequest } from '../../http/types.js';
import { fillPathTemplate } from '../../../shared/path-template.js';
import type { ToolEntry } from './tool-set.js';
import type { CallCancellation } from './cancellation.js';

/** Headers a tool call inherits from the caller unless `mcpPlugin({ forwardHeaders })` adds more. */
export const DEFAULT_FORWARDED_HEADERS: readonly string[] = [
  'authorization',
  'cookie',
  'x-api-key',
  'x-tenant-id',
  'host',
  'accept-language',
  'user-agent',
];

/** Who calls a tool: the endpoint request's address and headers (already filtered), or stdio's. */
export interface ToolCaller {
  ip: string | undefined;
  headers: RequestHeaders;
  /** Continues the caller's correlation id, so logs of the call and its endpoint request line up. */
  correlationId?: string;
}

/** The forwarded subset of `headers`, names lower-case. */
export function forwardedHeaders(headers: RequestHeaders, names: ReadonlySet<string>): RequestHeaders {
  const kept: RequestHeaders = {};
  for (const name of names) {
    const value = headers[name];
    if (value !== undefined) kept[name] = value;
  }
  return kept;
}

/** How a JSON argument is written into a path segment or query value. */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return String(value);
  return JSON.stringify(value) ?? '';
}

class ToolRequest implements SvcRequest {
  readonly bodyKind: 'json' | undefined;
  /** How the call can be cancelled (toolSignal); kept on the request, not in a WeakMap, which costs GC time. */
  cancellation: CallCancellation | undefined = undefined;

  constructor(
    readonly method: HttpMethod,
    readonly url: string,
    readonly path: string,
    readonly routePattern: string,
    readonly headers: RequestHeaders,
    readonly ip: string | undefined,
    readonly query: Record<string, string | string[]>,
    readonly params: Record<string, string>,
    readonly body: unknown,
    readonly context: RequestContext,
  ) {
    this.bodyKind = body === undefined ? undefined : 'json';
  }
}

/** The cancellation of the tool call `request` is, if it is one and something can cancel it. */
export function cancellationOf(request: SvcRequest): CallCancellation | undefined {
  return request instanceof ToolRequest ? request.cancellation : undefined;
}

/** The synthetic request of one call of `entry` with `args`. */
export function toolRequest(
  entry: ToolEntry,
  args: Record<string, unknown>,
  caller: ToolCaller,
  container: Scope | undefined,
  cancellation?: CallCancellation,
): SvcRequest {
  const { route } = entry;
  const params: Record<string, string> = Object.create(null) as Record<string, string>;
  const query: Record<string, string | string[]> = Object.create(null) as Record<string, string | string[]>;
  const body: Record<string, unknown> = {};
  // Made only for a call with query arguments: most calls have none.
  let search: URLSearchParams | undefined;
  let bodyArgs = 0;
  for (const [name, value] of Object.entries(args)) {
    if (value === undefined) continue;
    if (entry.paramNames.includes(name)) {
      params[name] = asText(value);
    } else if (entry.queryNames.has(name) || route.body?.kind !== 'json') {
      // Without a body, an unknown argument goes to the query, where a closed schema refuses it.
      const values = Array.isArray(value) ? value.map(asText) : asText(value);
      query[name] = values;
      search ??= new URLSearchParams();
      for (const text of Array.isArray(values) ? values : [values]) search.append(name, text);
    } else if (name !== '__proto__') {
      body[name] = value;
      bodyArgs++;
    }
  }
  // A template without parameters or wildcard is its own path.
  const literal = entry.paramNames.length === 0 && route.url.startsWith('/') && !route.url.includes('*');
  const path = literal ? route.url : fillPathTemplate(route.url, params);
  const queryString = search === undefined ? '' : search.toString();
  const url = queryString === '' ? path : `${path}?${queryString}`;
  // A required body is always sent (possibly empty), so a missing field is reported by name, not as "body
  // is required"; an optional body with no arguments for it stays absent.
  const sendBody = route.body?.kind === 'json' && (bodyArgs > 0 || route.body.required !== false);
  const headers: RequestHeaders = sendBody
    ? { ...caller.headers, 'content-type': 'application/json' }
    : caller.headers;
  // A UUIDv7 from the pooled random bytes, as an HTTP request's id.
  const requestId = uuidv7();
  const context = createRequestContext(requestId, caller.correlationId ?? requestId, container);
  const request = new ToolRequest(
    route.method,
    url,
    path,
    route.url,
    headers,
    caller.ip,
    query,
    params,
    sendBody ? body : undefined,
    context,
  );
  request.cancellation = cancellation;
  return request;
}
