// CORS (securityPlugin's `cors` option). CORS tells a browser which other origins' scripts may read an
// answer; it is not authorization: a request from an origin outside the list still runs, its answer simply
// carries no CORS headers, so the browser withholds it from the calling script. A preflight is answered here,
// before routing, because no application route should have to know about it.
import type { ReplySink, RequestHookInput } from '../../http/types.js';
import { isToken, type ResolvedCors } from './options.js';

const ORIGIN_VARY = ['origin'];
const PREFLIGHT_VARY = ['origin', 'access-control-request-method', 'access-control-request-headers'];

/**
 * Adds `names` to the reply's Vary header, keeping what an earlier step or framework middleware put there.
 * `Vary: *` already covers everything and is left alone.
 */
export function appendVary(reply: ReplySink, names: readonly string[]): void {
  const current = reply.getHeader('vary');
  if (current === undefined || current === '') {
    reply.header('vary', names.join(', '));
    return;
  }
  const text = Array.isArray(current) ? current.join(', ') : String(current);
  const present = new Set(text.split(',').map((name) => name.trim().toLowerCase()));
  if (present.has('*')) return;
  const missing = names.filter((name) => !present.has(name));
  if (missing.length > 0) reply.header('vary', `${text}, ${missing.join(', ')}`);
}

/**
 * The request headers a preflight asks for, lower-cased and re-joined, or undefined when the list is empty or
 * not a comma-separated list of header names (then none is allowed and the browser stops).
 */
export function requestedHeaders(value: string | string[] | undefined): string | undefined {
  if (typeof value !== 'string') return undefined;
  const names: string[] = [];
  for (const part of value.split(',')) {
    const name = part.trim();
    if (name === '') continue;
    if (!isToken(name)) return undefined;
    names.push(name.toLowerCase());
  }
  return names.length === 0 ? undefined : names.join(', ');
}

/** The request step enforcing `cors`: CORS headers on allowed answers, preflights answered 204 at once. */
export function corsStep(cors: ResolvedCors): (input: RequestHookInput) => void {
  const { anyOrigin, origins, credentials } = cors;

  /** The `access-control-allow-origin` value for this request, or undefined when it gets none. */
  function allowedOrigin(origin: string | undefined): string | undefined {
    if (anyOrigin) return '*';
    // Exact match on the browser's serialisation: a path, another port or a look-alike host never matches.
    return origin !== undefined && origins.has(origin) ? origin : undefined;
  }

  function answerPreflight(origin: string, input: RequestHookInput): void {
    const { request, reply } = input;
    appendVary(reply, PREFLIGHT_VARY);
    const allowed = allowedOrigin(origin);
    // A disallowed origin gets the same 204 without allow headers: the browser refuses the real request, and
    // the answer tells a prober nothing a CORS-less 204 would not.
    if (allowed !== undefined) {
      reply.header('access-control-allow-origin', allowed);
      if (credentials) reply.header('access-control-allow-credentials', 'true');
      reply.header('access-control-allow-methods', cors.allowMethods);
      const allowHeaders = cors.echoRequestedHeaders
        ? requestedHeaders(request.headers['access-control-request-headers'])
        : cors.allowHeaders;
      if (allowHeaders) reply.header('access-control-allow-headers', allowHeaders);
      reply.header('access-control-max-age', cors.maxAge);
    }
    reply.finish(204, undefined, undefined);
  }

  return (input) => {
    const { request, reply } = input;
    const header = request.headers.origin;
    const origin = typeof header === 'string' ? header : undefined;
    if (
      origin !== undefined &&
      request.method === 'OPTIONS' &&
      request.headers['access-control-request-method'] !== undefined
    ) {
      answerPreflight(origin, input);
      return;
    }
    // With a list the answer depends on Origin, so caches must key on it even when this one gets no CORS
    // headers (else a cached CORS-less answer would be served to an allowed origin, or the reverse).
    if (!anyOrigin) appendVary(reply, ORIGIN_VARY);
    const allowed = allowedOrigin(origin);
    if (allowed === undefined) return;
    reply.header('access-control-allow-origin', allowed);
    if (credentials) reply.header('access-control-allow-credentials', 'true');
    reply.header('access-control-expose-headers', cors.exposeHeaders);
  };
}
