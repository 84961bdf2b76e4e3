// Bucket keys: the client IP is `request.ip` only, never X-Forwarded-For, and an
// unknown IP is one shared bucket. Identity keys read what the enrichers set and fall back to the IP when the
// id is missing. Keys are JSON arrays, so no user id can be written to collide with another kind of key.
import type { PipelineInput, SvcRequest } from '../../http/types.js';
import type { ResolvedRouteRateLimit } from './route-limit.js';

function ipPart(request: SvcRequest): ['ip', string | null] {
  return ['ip', request.ip ?? null];
}

/** The global bucket of a request: its IP. */
export function globalKey(request: SvcRequest): string {
  return JSON.stringify(['global', ...ipPart(request)]);
}

/** `{ id }` of a user or tenant as text; undefined when there is none usable. */
function idOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const id = (value as { id?: unknown }).id;
  if (typeof id === 'string' && id !== '') return id;
  if (typeof id === 'number' && Number.isFinite(id)) return String(id);
  return undefined;
}

function identityPart(limit: ResolvedRouteRateLimit, input: PipelineInput): unknown[] | undefined {
  const { key } = limit;
  const { context } = input;
  if (typeof key === 'function') {
    const chosen = key(input);
    return typeof chosen === 'string' && chosen !== '' ? ['fn', chosen] : undefined;
  }
  if (key === 'user' || key === 'tenant') {
    const id = idOf(context[key]);
    return id === undefined ? undefined : [key, id];
  }
  if (key === 'user+tenant') {
    const user = idOf(context.user);
    const tenant = idOf(context.tenant);
    return user === undefined || tenant === undefined ? undefined : ['user+tenant', user, tenant];
  }
  return undefined;
}

/** The bucket of a request on a route with its own limit. */
export function routeKey(limit: ResolvedRouteRateLimit, input: PipelineInput): string {
  const scope = `${input.route.method} ${input.route.url}`;
  return JSON.stringify(['route', scope, ...(identityPart(limit, input) ?? ipPart(input.request))]);
}
