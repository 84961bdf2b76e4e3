// How svc's routes are mounted on a Hono app and served: one handler per route (HEAD and route ranking
// adapted to Hono's router), body reading before the pipeline, and the neutral answers outside routes
// (404/405 through app.notFound, errors Hono caught through app.onError).
import type { Context, Hono, MiddlewareHandler, Next } from 'hono';
import { HTTPException } from 'hono/http-exception';
import { errors } from '../../../generated/modules/errors.js';
import type { PreparedHttp } from '../../http/boot.js';
import { headFromGet } from '../../http/route-table.js';
import { SvcError } from '../../http/errors.js';
import { frameworkClientError } from '../../http/framework-errors.js';
import type { CompiledRoute, Pipeline } from '../../http/pipeline.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../../http/request-id.js';
import type { RequestContext } from '../../http/types.js';
import { pathOf } from '../../http/url.js';
import { compareTemplateSpecificity, templateParameterNames } from '../../../shared/path-template.js';
import { readConsumedBody, readRequestBody } from './body.js';
import { HonoSvcReply } from './reply.js';
import {
  HonoSvcRequest,
  idHeadersOf,
  nodeBindingsOf,
  targetOf,
  type ClientIpSource,
  type RouteFacts,
} from './request.js';

/** Hono's own client errors (HTTPException 4xx) answer fixed codes and never echo Hono's message. */
function normaliseHonoError(error: unknown): unknown {
  if (error instanceof SvcError) return error;
  if (error instanceof HTTPException && error.status >= 400 && error.status < 500) {
    return frameworkClientError(error.status);
  }
  return error;
}

/** A percent sign not followed by two hex digits, or an escape that is not UTF-8: the path cannot be decoded. */
function hasMalformedEscape(path: string): boolean {
  try {
    decodeURIComponent(path);
    return false;
  } catch {
    return true;
  }
}

/** What every request of one plugin shares. */
export interface Runtime {
  pipeline: Pipeline;
  ipSource: ClientIpSource;
  bodyLimit: number;
  /**
   * Build Responses through `c.newResponse`, so headers middleware set on the context before svc's route ran
   * go out too. Only when the app had middleware or routes before svc mounted its own: anything registered
   * later runs after svc's routes, which answer without calling next().
   */
  throughContext: boolean;
}

/** One svc route as mounted. */
interface MountedRoute extends RouteFacts {
  compiled: CompiledRoute;
  successStatus: number;
}

function mounted(compiled: CompiledRoute): MountedRoute {
  const route = compiled.route;
  const kind = route.body?.kind;
  return {
    compiled,
    pattern: route.url,
    hasParams: templateParameterNames(route.url).length > 0,
    successStatus: route.successStatus ?? 200,
    streamedBody: kind === 'upload' || kind === 'raw',
  };
}

/**
 * Answers an error raised outside a route's pipeline (body reading, a malformed path, Hono itself, thrown
 * middleware). The request hooks run first, as on every answer (secure headers, the global rate limit).
 */
function answerOutsideRoute(
  runtime: Runtime,
  error: unknown,
  request: HonoSvcRequest,
  sink: HonoSvcReply,
): Response | Promise<Response> {
  const failure = normaliseHonoError(error);
  // handleUnrouted sets the request id, answers every error itself and never rejects.
  return answerThrough(
    runtime,
    runtime.pipeline.handleUnrouted(request, sink, failure),
    failure,
    request,
    sink,
  );
}

/** The Response of an answer under way (`pending`); the bare envelope should nothing have answered. */
function answerThrough(
  runtime: Runtime,
  pending: void | Promise<void>,
  failure: unknown,
  request: HonoSvcRequest,
  sink: HonoSvcReply,
): Response | Promise<Response> {
  const response = sink.response;
  if (response !== undefined) return response;
  return sink.whenAnswered(pending, () =>
    runtime.pipeline.sendError(failure, sink, {
      requestId: request.context.requestId,
      method: request.method,
      route: request.routePattern,
    }),
  );
}

function runRoute(runtime: Runtime, route: MountedRoute, request: HonoSvcRequest, sink: HonoSvcReply) {
  // handle() answers every error itself and never rejects.
  const pending = route.compiled.handle(request, sink);
  const response = sink.response;
  if (response !== undefined) return response;
  return sink.whenAnswered(pending, () =>
    runtime.pipeline.sendError(new Error('The route settled without answering.'), sink, {
      requestId: request.context.requestId,
      method: request.method,
      route: route.pattern,
    }),
  );
}

/** Serves one request on one svc route. */
function serveRoute(runtime: Runtime, route: MountedRoute, c: Context): Response | Promise<Response> {
  // On @hono/node-server the node request has all of it at hand; Hono's own request object is only made
  // when something needs it (params, a web request).
  const bindings = nodeBindingsOf(c);
  const incoming = bindings?.incoming;
  let method: string;
  let context: RequestContext;
  if (incoming !== undefined) {
    method = incoming.method as string;
    context = runtime.pipeline.createContext(incoming.headers);
  } else {
    const webRequest = c.req.raw;
    method = webRequest.method;
    context = runtime.pipeline.createContext(idHeadersOf(webRequest.headers));
  }
  const request = new HonoSvcRequest(c, incoming, route, context, runtime.ipSource);
  const sink = new HonoSvcReply(
    c,
    route.successStatus,
    method === 'HEAD',
    runtime.throughContext,
    bindings?.outgoing,
  );
  let reading: Promise<void> | undefined;
  try {
    const url = request.url;
    if (url.indexOf('%') !== -1 && hasMalformedEscape(pathOf(url))) throw errors.BAD_REQUEST();
    if (method !== 'GET' && method !== 'HEAD') {
      reading = route.streamedBody
        ? readConsumedBody(c, incoming, request)
        : readRequestBody(c, incoming, runtime.bodyLimit, request);
    }
  } catch (error) {
    return answerBodyError(runtime, route, error, request, sink);
  }
  if (reading === undefined) return runRoute(runtime, route, request, sink);
  return reading.then(
    () => runRoute(runtime, route, request, sink),
    (error: unknown) => answerBodyError(runtime, route, error, request, sink),
  );
}

/**
 * A body refused before the route ran. The rest of an oversized body is never read, so the connection is
 * closed once answered (as on the other adapters) instead of node reading and dropping it to keep it alive.
 */
function answerBodyError(
  runtime: Runtime,
  route: MountedRoute,
  error: unknown,
  request: HonoSvcRequest,
  sink: HonoSvcReply,
): Response | Promise<Response> {
  if ((error as { code?: unknown } | null)?.code === 'PAYLOAD_TOO_LARGE') sink.header('connection', 'close');
  const failure = normaliseHonoError(error);
  // refuse runs the request hooks for this route, sets the request id, answers and never rejects.
  return answerThrough(runtime, route.compiled.refuse(request, sink, failure), failure, request, sink);
}

type RouteHandler = (c: Context, next: Next) => Response | Promise<Response | void>;

/** `/a/x` before `/a/:id` before `/a/*`, as find-my-way ranks them: Hono itself takes the first registered. */
function compareSpecificity(a: CompiledRoute, b: CompiledRoute): number {
  const difference = compareTemplateSpecificity(a.route.url, b.route.url);
  if (difference !== 0) return difference;
  // An application's own HEAD route is registered before the GET route that would also answer HEAD.
  if (a.route.method === 'HEAD' && b.route.method !== 'HEAD') return -1;
  if (b.route.method === 'HEAD' && a.route.method !== 'HEAD') return 1;
  return 0;
}

/**
 * Hono dispatches HEAD as GET (and drops the body itself), so a HEAD route never matches by method. svc's own
 * HEAD routes are mounted as GET routes that step aside (next()) for a real GET; a GET route answers HEAD with
 * headers only when headFromGet says so, and steps aside for HEAD otherwise.
 */
export function mountRoutes(hono: Hono, runtime: Runtime, routes: readonly CompiledRoute[]): void {
  const answersHead = headFromGet(routes.map((c) => c.route));
  for (const compiled of [...routes].sort(compareSpecificity)) {
    const route = mounted(compiled);
    const method = compiled.route.method;
    let handler: RouteHandler;
    if (method === 'HEAD') {
      handler = (c, next) => (c.req.raw.method === 'HEAD' ? serveRoute(runtime, route, c) : next());
    } else if (method === 'GET' && !answersHead(compiled.route)) {
      handler = (c, next) => (c.req.raw.method === 'HEAD' ? next() : serveRoute(runtime, route, c));
    } else {
      handler = (c) => serveRoute(runtime, route, c);
    }
    hono.on(method === 'HEAD' ? 'GET' : method, compiled.route.url, handler as MiddlewareHandler);
  }
}

/** A sink for answers outside svc's routes (404/405, Hono errors), with the request id set. */
function outsideSink(c: Context, status: number): { sink: HonoSvcReply; requestId: string } {
  const bindings = nodeBindingsOf(c);
  const request = c.req.raw;
  const requestId = requestIdFrom(
    bindings !== undefined ? bindings.incoming.headers : idHeadersOf(request.headers),
  );
  const sink = new HonoSvcReply(c, status, request.method === 'HEAD', true, bindings?.outgoing);
  sink.header(REQUEST_ID_HEADER, requestId);
  return { sink, requestId };
}

/** What the neutral request of an unrouted request knows about its (missing) route. */
const NO_ROUTE: RouteFacts = { pattern: undefined, hasParams: false, streamedBody: false };

/**
 * The neutral 404, or 405 with `Allow` when the path exists for other methods. The request hooks (security
 * headers, CORS preflights) run first, as on routed requests.
 */
export function mountNotFound(hono: Hono, runtime: Runtime, table: PreparedHttp['table']): void {
  hono.notFound((c) => {
    const { sink, requestId } = outsideSink(c, 404);
    const incoming = nodeBindingsOf(c)?.incoming;
    const error = table.unroutedError(pathOf(targetOf(c, incoming)), sink);
    return answerOutsideRoute(runtime, error, unroutedRequest(c, runtime, requestId), sink);
  });
}

/** The neutral request of an answer outside svc's routes. */
function unroutedRequest(c: Context, runtime: Runtime, requestId: string): HonoSvcRequest {
  const incoming = nodeBindingsOf(c)?.incoming;
  const headers = incoming?.headers ?? idHeadersOf(c.req.raw.headers);
  const context = runtime.pipeline.createContext(headers, requestId);
  return new HonoSvcRequest(c, incoming, NO_ROUTE, context, runtime.ipSource);
}

/** Errors Hono caught outside svc's routes (its own, thrown middleware) answer the envelope. */
export function mountErrorHandler(hono: Hono, runtime: Runtime): void {
  hono.onError((error, c) => {
    const { sink, requestId } = outsideSink(c, 500);
    return answerOutsideRoute(runtime, error, unroutedRequest(c, runtime, requestId), sink);
  });
}
