// The request pipeline, specialised once per route at boot: enrichers → guards → params, query and
// body coercion + validation → handler → reply mapping → error mapping. A route pays only for the steps it
// has: no enrichers or guards means no promise and no extra object per request.
import type { Scope } from '../app/container.js';
import { errors } from '../../generated/modules/errors.js';
import { coerceFields } from './coerce.js';
import { createRequestContext } from './context.js';
import { toErrorResponse, type DetailsRedactor } from './envelope.js';
import { markHandlerStarted } from './handler-started.js';
import { GuardsWithoutContainerError, RequestValidationError } from './http-errors.js';
import { readRawBody } from './raw-body.js';
import { BodyReleasingReply } from './releasing-reply.js';
import { createHookRunner } from './request-hooks.js';
import { buildResponder, JSON_CONTENT_TYPE } from './reply-mapping.js';
import { internalDetailsOf, report, resolveReporter, type ErrorReporter } from './report.js';
import { defaultLogger } from '../log/json-logger.js';
import type { Logger } from '../log/logger.js';
import { undeclaredErrorWarning } from '../log/undeclared-error-codes.js';
import { correlationIdFrom, REQUEST_ID_HEADER, requestIdFrom } from './request-id.js';
import type {
  Enricher,
  Guard,
  HandlerInput,
  RequestHook,
  PipelineInput,
  ReplySink,
  RequestContext,
  RequestHeaders,
  Route,
  SvcRequest,
} from './types.js';
import { validationError } from './validation/issues.js';
import { startUpload } from './upload/index.js';

export interface PipelineOptions {
  /** Run in order on every route before the guards (bucket `http:enrichers`). */
  enrichers?: readonly Enricher[];
  /** Run in order after the enrichers; a guard rejects by throwing (bucket `http:guards`). */
  guards?: readonly Guard[];
  /** The app container; each request gets a child scope. Guards refuse to run without one. */
  container?: Scope;
  /** Receives every 5xx and unexpected error. Default: one line through `logger`; false silences. */
  onError?: ErrorReporter | false;
  /** Where the default reporter and the undeclared-error-code warning go (the app's). Default: defaultLogger. */
  logger?: Logger;
  /** Applied to public error details; none by default. */
  redactDetails?: DetailsRedactor | false;
  /** Edge plugins' request and response hooks (bucket `http:request-hooks`), run on every request. */
  hooks?: readonly RequestHook[];
}

/** Where an error happened, for the report. */
export interface ErrorOrigin {
  requestId: string | undefined;
  method: string | undefined;
  route: string | undefined;
}

export interface CompiledRoute {
  readonly route: Route;
  /** Runs the route; rejects (or throws) with the error instead of answering it. For in-process callers (MCP). */
  execute(request: SvcRequest, reply: ReplySink): void | Promise<void>;
  /** Runs the route and answers any error in the envelope; sets `x-request-id`; never throws or rejects. */
  handle(request: SvcRequest, reply: ReplySink): void | Promise<void>;
  /**
   * Answers `error` for a request the adapter refused before the route ran (a body it could not read or
   * parse): the request hooks run with this route, as on any of its answers, then the envelope. Never throws
   * or rejects.
   */
  refuse(request: SvcRequest, reply: ReplySink, error: unknown): void | Promise<void>;
}

export interface Pipeline {
  readonly container: Scope | undefined;
  /** A request context with ids taken from the headers by the `x-request-id` rule (or the given id). */
  createContext(headers: RequestHeaders, requestId?: string): RequestContext;
  /** Specialises the pipeline for one route. Call once per route, at boot. */
  compile(route: Route): CompiledRoute;
  /** Answers `error` in the envelope (reporting 5xx), for errors raised outside a route (framework, 404). */
  sendError(error: unknown, reply: ReplySink, origin: ErrorOrigin): void;
  /**
   * Answers a request no route matched (the neutral 404/405 in `error`), or an error the framework raised
   * outside any route: the request hooks run first (CORS answers a preflight here), then the envelope. When a
   * response is already under way, the error is only reported. Sets `x-request-id`; never throws or rejects.
   */
  handleUnrouted(request: SvcRequest, reply: ReplySink, error: unknown): void | Promise<void>;
}

type Step = (input: PipelineInput) => void | Promise<void>;

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    value !== null &&
    (typeof value === 'object' || typeof value === 'function') &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/** Runs the steps in order; synchronous until a step returns a promise. */
function runSteps(steps: readonly Step[], input: PipelineInput, from: number): void | Promise<void> {
  for (let index = from; index < steps.length; index++) {
    const pending = (steps[index] as Step)(input);
    if (isThenable(pending)) return Promise.resolve(pending).then(() => runSteps(steps, input, index + 1));
  }
}

const missingBody = (): RequestValidationError =>
  new RequestValidationError('body', [{ path: '', message: 'is required' }]);

/** Builds the handler input; `streamed` is the body an upload or raw route read (or is reading) itself. */
type Preparer = (request: SvcRequest, reply: ReplySink, streamed?: unknown) => HandlerInput;

/** Builds the coercion + validation step of one route: params, then query, then body. */
function buildPreparer(route: Route): Preparer {
  const paramsPart = route.params;
  const queryPart = route.query;
  const body = route.body?.kind === 'json' ? route.body : undefined;
  const bodyRequired = body?.required !== false;
  const streamedBody = route.body !== undefined && route.body.kind !== 'json';
  return function prepare(request, reply, streamed) {
    let params: unknown = request.params;
    if (paramsPart !== undefined) {
      params = coerceFields(request.params, paramsPart.coerce);
      if (!paramsPart.validate(params)) throw validationError('params', paramsPart.validate.errors);
    }
    let query: unknown = request.query;
    if (queryPart !== undefined) {
      query = coerceFields(request.query, queryPart.coerce);
      if (!queryPart.validate(query)) throw validationError('query', queryPart.validate.errors);
    }
    const value = streamedBody ? streamed : request.body;
    if (body !== undefined) {
      if (value === undefined) {
        if (bodyRequired) throw missingBody();
      } else {
        if (request.bodyKind !== 'json') throw errors.UNSUPPORTED_MEDIA_TYPE();
        if (!body.validate(value)) throw validationError('body', body.validate.errors);
      }
    }
    return { params, query, body: value, request, reply, context: request.context };
  };
}

type HandlerRunner = (request: SvcRequest, reply: ReplySink) => void | Promise<void>;

/**
 * Upload and raw routes: the body is read only after enrichers and guards passed, and every answer, however
 * early, goes through a reply that first deals with the unread rest of the body.
 */
interface StreamedBodyRoute {
  /** The reply for one request, made before enrichers and guards run. */
  wrap(request: SvcRequest, reply: ReplySink): BodyReleasingReply;
  run: HandlerRunner;
}

function streamedBodyRoute(
  route: Route,
  callHandler: (request: SvcRequest, reply: ReplySink, streamed: unknown) => void | Promise<void>,
): StreamedBodyRoute | undefined {
  const body = route.body;
  if (body?.kind === 'raw') {
    return {
      wrap: (request, reply) => new BodyReleasingReply(reply, request.bodyStream, body.maxBytes),
      run: (request, reply) => readRawBody(request, body).then((raw) => callHandler(request, reply, raw)),
    };
  }
  if (body?.kind === 'upload') {
    return {
      wrap: (request, reply) => new BodyReleasingReply(reply, request.bodyStream, body.limits.maxBytes),
      run(request, reply) {
        const stream = request.bodyStream;
        if (stream === undefined) {
          // Nothing to read from: a bodiless method, or an application-wide parser consumed the body first.
          if (request.method === 'GET' || request.method === 'HEAD') throw errors.UNSUPPORTED_MEDIA_TYPE();
          throw errors.RAW_BODY_UNAVAILABLE();
        }
        const session = startUpload({ stream, headers: request.headers, limits: body.limits });
        // From now on the session skips unread files and drains within the upload's limits.
        if (reply instanceof BodyReleasingReply) reply.drain = () => void session.finish();
        return callHandler(request, reply, session.body);
      },
    };
  }
  return undefined;
}

export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const container = options.container;
  const reporter = resolveReporter(options.onError, options.logger);
  const warnUndeclared = undeclaredErrorWarning(options.logger ?? defaultLogger);
  const redactDetails = options.redactDetails;
  const hooks = createHookRunner(options.hooks ?? [], reporter);
  const enricherSteps: Step[] = (options.enrichers ?? []).map(
    (enricher) => (input) => enricher.enrich(input),
  );
  const guards = options.guards ?? [];

  /** Enrichers, then the guards that apply to `route`. */
  function stepsOf(route: Route): Step[] {
    const applying = guards.filter((guard) => guard.appliesTo?.(route) ?? true);
    const steps = [...enricherSteps];
    if (applying.length > 0 && container === undefined) {
      steps.push(() => {
        throw new GuardsWithoutContainerError();
      });
    }
    for (const guard of applying) steps.push((input) => guard.check(input));
    return steps;
  }

  function sendError(error: unknown, reply: ReplySink, origin: ErrorOrigin): void {
    const { status, body } = toErrorResponse(error, { redactDetails });
    if (status >= 500) {
      report(reporter, {
        error,
        code: body.error.code,
        status,
        ...origin,
        internalDetails: internalDetailsOf(error),
      });
    }
    if (reply.sent) return;
    try {
      reply.finish(status, JSON.stringify(body), JSON_CONTENT_TYPE);
    } catch (finishError) {
      report(reporter, {
        error: finishError,
        code: 'INTERNAL_ERROR',
        status: 500,
        ...origin,
        internalDetails: undefined,
      });
    }
  }

  function compile(route: Route): CompiledRoute {
    const prepare = buildPreparer(route);
    const respond = buildResponder(route, { logger: options.logger ?? defaultLogger });
    const handler = route.handler as unknown as (input: HandlerInput) => unknown;
    // Edge routes are public probes and documents: no enrichers or guards run on them.
    const routeSteps = route.edge === true ? [] : stepsOf(route);

    function callHandler(request: SvcRequest, reply: ReplySink, streamed?: unknown): void | Promise<void> {
      const input = prepare(request, reply, streamed);
      markHandlerStarted(request.context);
      const result = handler(input);
      if (isThenable(result)) {
        return Promise.resolve(result).then((value) => respond(value, request, reply));
      }
      return respond(result, request, reply);
    }

    const streamed = streamedBodyRoute(route, callHandler);
    const runHandler = streamed?.run ?? callHandler;

    const execute =
      routeSteps.length === 0
        ? runHandler
        : function execute(request: SvcRequest, reply: ReplySink): void | Promise<void> {
            const pending = runSteps(routeSteps, { route, request, context: request.context }, 0);
            if (pending !== undefined) return pending.then(() => runHandler(request, reply));
            return runHandler(request, reply);
          };

    function fail(error: unknown, request: SvcRequest, reply: ReplySink): void {
      warnUndeclared(route, error);
      sendError(error, reply, {
        requestId: request.context.requestId,
        method: request.method,
        route: route.url,
      });
    }

    /** The request hooks, then the route, unless a hook answered. */
    function hooksThenExecute(request: SvcRequest, reply: ReplySink): void | Promise<void> {
      const hooked = hooks.runRequestHooks({ request, reply, route });
      if (hooked === undefined) return reply.sent ? undefined : execute(request, reply);
      return hooked.then(() => (reply.sent ? undefined : execute(request, reply)));
    }

    const run = hooks.hasRequestHooks ? hooksThenExecute : execute;

    function handle(request: SvcRequest, adapterReply: ReplySink): void | Promise<void> {
      const observed = hooks.observe(request, route, adapterReply);
      const reply = streamed === undefined ? observed : streamed.wrap(request, observed);
      let pending: void | Promise<void>;
      try {
        reply.header(REQUEST_ID_HEADER, request.context.requestId);
        pending = run(request, reply);
      } catch (error) {
        fail(error, request, reply);
        return hooks.pendingWrite(observed);
      }
      // A beforeResponse hook may hold the write back: the request is answered once it was written.
      if (pending === undefined) return hooks.pendingWrite(observed);
      return pending.then(
        () => hooks.pendingWrite(observed),
        (error: unknown) => {
          fail(error, request, reply);
          return hooks.pendingWrite(observed);
        },
      );
    }

    return {
      route,
      execute,
      handle,
      refuse: (request, reply, error) => answerWithHooks(request, reply, error, route),
    };
  }

  /** The request hooks, then `error` in the envelope; only a report once a response is under way. */
  function answerWithHooks(
    request: SvcRequest,
    adapterReply: ReplySink,
    error: unknown,
    route: Route | undefined,
  ): void | Promise<void> {
    const origin = { requestId: request.context.requestId, method: request.method, route: route?.url };
    if (adapterReply.sent) {
      sendError(error, adapterReply, origin);
      return;
    }
    const reply = hooks.observe(request, route, adapterReply);
    const answer = () => {
      if (!reply.sent) sendError(error, reply, origin);
      return hooks.pendingWrite(reply);
    };
    const failed = (hookError: unknown) => {
      sendError(hookError, reply, origin);
      return hooks.pendingWrite(reply);
    };
    try {
      reply.header(REQUEST_ID_HEADER, request.context.requestId);
      const hooked = hooks.runRequestHooks({ request, reply, route });
      if (hooked !== undefined) return hooked.then(answer, failed);
    } catch (hookError) {
      return failed(hookError);
    }
    return answer();
  }

  return {
    container,
    handleUnrouted: (request, reply, error) => answerWithHooks(request, reply, error, undefined),
    createContext(headers, requestId = requestIdFrom(headers)) {
      return createRequestContext(requestId, correlationIdFrom(headers, requestId), container);
    },
    compile,
    sendError,
  };
}
