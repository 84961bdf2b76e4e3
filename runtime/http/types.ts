// The framework-neutral shapes every adapter maps onto: routes, requests, replies and the pipeline's
// extension points. Nothing here depends on Fastify, Express or Hono.
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import type { Scope } from '../app/container.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** One ajv error as the standalone and the runtime-compiled validators report it. */
export interface ValidatorError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** A compiled validator: ajv's ValidateFunction shape (errors set after a failed call). */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: ValidatorError[] | null;
}

import type { CoercionPlan } from '../../shared/validation/coercion-plan.js';
export type { CoercionPlan, FieldCoercion, ScalarCoercion } from '../../shared/validation/coercion-plan.js';

/**
 * A compiled response serializer: the value as JSON text holding only what the response schema declares.
 * Throws when the value has an object or array where the schema allows none.
 */
export type ResponseSerializer = (value: unknown) => string;

/** A validated request part (params or query): text values are coerced by plan, then validated. */
export interface RoutePart {
  validate: CompiledValidator;
  coerce?: CoercionPlan;
  /** The JSON Schema the validator was compiled from; read by documentation builders, never per request. */
  schema?: unknown;
}

/** A JSON body validated against a schema. */
export interface JsonBody {
  kind: 'json';
  validate: CompiledValidator;
  /** false: a request without a body skips validation and the handler gets `undefined`. Default true. */
  required?: boolean;
  /** The JSON Schema the validator was compiled from; read by documentation builders, never per request. */
  schema?: unknown;
}

/** Limits of a multipart upload body, defaults resolved. */
export interface UploadLimits {
  /** Whole request body, in bytes. */
  readonly maxBytes: number;
  readonly maxFiles: number;
  /** Per file; default maxBytes. */
  readonly maxFileBytes: number;
  /** Default 50. */
  readonly maxFields: number;
  /** Per field value; default 64 KiB. */
  readonly maxFieldBytes: number;
  /** Header block of one part; default 8 KiB. */
  readonly maxHeaderBytes: number;
  /** `image/png` or `image/*`, matched against a file's declared type; undefined: any. */
  readonly allowedTypes: readonly string[] | undefined;
}

/** A streamed multipart/form-data body (`upload({...})`), read only after the guards passed. */
export interface UploadBody {
  kind: 'upload';
  limits: UploadLimits;
}

/** Untouched request bytes (`rawBody({...})`), for webhook signatures. */
export interface RawBody {
  kind: 'raw';
  /** Default 1 MiB. */
  maxBytes: number;
}

export type RouteBody = JsonBody | UploadBody | RawBody;

/** One file of an upload, as the handler iterates them. */
export interface UploadedFile {
  /** The form field name. */
  field: string;
  /** Sanitised: no directories, control, NUL or bidi characters; at most 255 bytes. */
  filename: string;
  /** The part's Content-Type as sent (lower-cased media type), `application/octet-stream` when absent. */
  declaredType: string;
  /** The part's own Content-Length header, usually undefined. */
  declaredLength?: number;
  /**
   * At most how many bytes the part can carry, when the request declared its length: what is left of the
   * body after the part's headers, less the closing delimiter that must follow. Undefined for a chunked
   * body. A bound, not a size (the part may be much smaller): enough to reserve room for it at once.
   */
  sizeAtMost?: number;
  /** The file's bytes. A file not read before the next one is requested (or the handler returns) is skipped. */
  stream: Readable;
}

/** The handler's `body` on an upload route. */
export interface UploadInput {
  /** The files in request order; iterating reads the body. Limits and malformed input reject the iteration. */
  files: AsyncIterable<UploadedFile>;
  /** Text fields, filled as their parts arrive (null prototype). */
  fields: Record<string, string>;
  /** The declared request size (Content-Length), when sent. */
  contentLength: number | undefined;
}

/** The handler's `body` on a raw-body route. */
export interface RawBodyInput {
  /** Exactly the bytes received; empty when the request declared no body. */
  bytes: Buffer;
  /** Lower-cased media type without parameters, or undefined. */
  contentType: string | undefined;
  /** The declared Content-Length, or undefined. */
  contentLength: number | undefined;
  /** The bytes decoded as UTF-8. */
  text(): string;
}

export type RequestPart = 'body' | 'query' | 'params';

/** Meta keys the framework itself reads; plugins may read any other key. */
export interface RouteMeta {
  auth?: boolean;
  can?: string | string[];
  teamRole?: unknown;
  /** API-key scopes a key must hold here (apiKeyPlugin); false opts off. */
  scopes?: string[] | false;
  subscribed?: unknown;
  feature?: unknown;
  mfa?: boolean;
  apiKey?: boolean;
  account?: boolean;
  central?: boolean;
  rateLimit?: unknown;
  etag?: boolean;
  /** The route serves HTML pages: securityPlugin adds the headers browsers apply to documents only. */
  documentHeaders?: boolean;
  /** 'required': requests without an idempotency key are refused; 'optional': a key is honoured on any method. */
  idempotency?: 'required' | 'optional' | false;
  summary?: string;
  description?: string;
  tags?: string[];
  operationId?: string;
  mcp?: boolean | { name?: string; description?: string; redactErrorDetails?: unknown };
  [key: string]: unknown;
}

/** Lower-cased header names, as node:http delivers them. */
export type RequestHeaders = IncomingHttpHeaders;

/** Values the pipeline and the enrichers put on every request. */
export interface RequestContext {
  requestId: string;
  correlationId: string;
  /** Request-scoped dependency container; undefined only when a pipeline is run without one. */
  container: Scope | undefined;
  user?: unknown;
  tenant?: unknown;
  apiKey?: unknown;
  amr?: string[];
  [key: string]: unknown;
}

export interface SvcRequest {
  readonly method: HttpMethod;
  /** Path plus query string, never absolute. */
  readonly url: string;
  readonly path: string;
  /** The route template (`/notes/:id`), or undefined when no route matched. */
  readonly routePattern: string | undefined;
  readonly headers: RequestHeaders;
  /** Socket address (or what the configured resolver returns); never read from a client header. */
  readonly ip: string | undefined;
  /** Raw query: a repeated key becomes an array. Null prototype. */
  readonly query: Record<string, string | string[]>;
  /** Raw path parameters, decoded. Null prototype. */
  readonly params: Record<string, string>;
  /** The parsed body before validation (JSON value, form map, text), or undefined. */
  readonly body: unknown;
  /** Media type of the body as the parser saw it: 'json', 'form', 'text' or undefined for none. */
  readonly bodyKind: 'json' | 'form' | 'text' | undefined;
  /** Unread body stream; set only on upload and raw routes, and only while nothing has consumed it. */
  readonly bodyStream?: Readable;
  /**
   * Body bytes an application-wide parser already consumed and captured (Express `captureRawBody`); read by
   * raw-body routes when `bodyStream` is gone.
   */
  readonly capturedBody?: Buffer;
  readonly context: RequestContext;
}

export interface SvcReply {
  /** Status the reply will use; the route's success status until changed. */
  readonly statusCode: number;
  /** True once a response has been sent (by the handler or the pipeline). */
  readonly sent: boolean;
  status(code: number): this;
  header(name: string, value: string | number | readonly string[]): this;
  getHeader(name: string): string | number | string[] | undefined;
  removeHeader(name: string): this;
  /** Sends a payload as-is: string, Buffer or undefined (empty). Use the handler's return value for JSON. */
  send(payload?: string | Buffer): void;
}

export interface HandlerInput<Params = unknown, Query = unknown, Body = unknown> {
  params: Params;
  query: Query;
  body: Body;
  request: SvcRequest;
  reply: SvcReply;
  context: RequestContext;
}

/** What a handler returns: a value sent as JSON (a string as text), or nothing after replying itself. */
export type RouteHandler<Params = unknown, Query = unknown, Body = unknown, Result = unknown> = (
  input: HandlerInput<Params, Query, Body>,
) => Result | Promise<Result>;

/** A framework-neutral route; what route() and the generated routes() produce and adapters mount. */
export interface Route {
  /** Route id from the spec (also the OpenAPI operationId); optional for handwritten routes. */
  id?: string;
  method: HttpMethod;
  url: string;
  params?: RoutePart;
  query?: RoutePart;
  body?: RouteBody;
  /** Status used when the handler returns a value without choosing one (the route's only 2xx response). */
  successStatus?: number;
  /** Response schemas by status: documentation and client generation only, never validated at runtime. */
  response?: Readonly<Record<number, unknown>>;
  /**
   * Compiled serializers by status (svc build's serializers.js): a value answered with one of these statuses
   * is written through it, so only the properties its response schema declares leave. Other statuses, and
   * routes without any, are written with JSON.stringify.
   */
  serializers?: Readonly<Record<number, ResponseSerializer>>;
  /**
   * Strict validators of the same responses by status (serializers.js). Outside production each serialized
   * response is checked and a mismatch logged; when a value cannot be serialized they name the fields.
   */
  responseValidators?: Readonly<Record<number, CompiledValidator>>;
  /**
   * Application error codes the route may answer (the spec's `errors:`). Answering another application code
   * logs a warning (runtime/log/undeclared-error-codes.ts); undefined declares nothing and is not checked.
   */
  errors?: readonly string[];
  meta: RouteMeta;
  /**
   * An edge route (health probes, metrics, the OpenAPI document): no enrichers or guards run on it; it is
   * public on the listener that serves it.
   */
  edge?: boolean;
  // Routes are stored heterogeneously; each handler was type-checked against its own input where it was bound.
  handler: RouteHandler<never, never, never, unknown>;
}

export interface PipelineInput {
  route: Route;
  request: SvcRequest;
  context: RequestContext;
}

/** Puts credentials and other request values on the context. Runs before the guards, on every app route. */
export interface Enricher {
  name: string;
  enrich(input: PipelineInput): void | Promise<void>;
}

/** Rejects a request by throwing. Runs after the enrichers, before validation, on every app route. */
export interface Guard {
  name: string;
  check(input: PipelineInput): void | Promise<void>;
  /**
   * Asked once per route at boot; false leaves the guard out of that route's pipeline, so routes it has
   * nothing to check on pay nothing for it. Default: the guard runs on every route.
   */
  appliesTo?(route: Route): boolean;
}

/** A plugin's claim that it enforces a guarded meta key. */
export interface GuardedMetaClaim {
  key: string;
  plugin: string;
}

/** Checks meta values at boot; every returned string is one problem of that route. */
export interface MetaValidator {
  name: string;
  validate(route: Route): readonly string[];
}

/**
 * What the pipeline needs from an adapter's reply beyond SvcReply: whether the handler chose a status, and
 * one call that sends the final response.
 */
export interface ReplySink extends SvcReply {
  /** True once status() was called (by the handler, a guard or an enricher). */
  readonly statusChosen: boolean;
  /**
   * Sends the response. `contentType`, when given, replaces any content type set before; when undefined the
   * header is left as it is. `body` undefined sends no body.
   */
  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void;
  /**
   * Sends a streamed response: writes the status and the headers set so far, then the source's chunks with
   * backpressure (a HEAD request gets the headers only and the source is destroyed unread). Resolves when the
   * body was written or the client went away (the source is then destroyed, so producers see it close).
   * When the source fails after the head went out, the connection is cut and the promise rejects with that
   * error; when it fails before, nothing was sent and the promise rejects so the envelope can answer.
   */
  stream(status: number, source: Readable): Promise<void>;
}

/** What a request hook sees before anything else runs. `route` is undefined for the neutral 404/405. */
export interface RequestHookInput {
  request: SvcRequest;
  reply: ReplySink;
  route: Route | undefined;
}

/** What a request hook sees once the response was handed to the server. */
export interface ResponseEvent {
  request: SvcRequest;
  route: Route | undefined;
  /** The status sent. */
  status: number;
  /** Time from the start of svc's handling to the response (for a stream: to its end), in milliseconds. */
  durationMs: number;
  /** True when the body was streamed (stream(), sse()); `body` is then undefined. */
  streamed: boolean;
  /** The body exactly as sent (idempotency replays store it); undefined when empty or streamed. */
  body: string | Buffer | undefined;
  /** The response's Content-Type, when it has one. */
  contentType: string | undefined;
}

/** What a request hook sees once the answer is final and before it is written. */
export interface OutgoingResponse {
  request: SvcRequest;
  route: Route | undefined;
  /** The status about to be sent. */
  status: number;
  /** True for stream() and sse() answers; `body` is then undefined. */
  streamed: boolean;
  /** The body about to be sent; undefined when empty or streamed. */
  body: string | Buffer | undefined;
  /** The response's Content-Type, when it has one. */
  contentType: string | undefined;
  /**
   * True when the route's handler produced the answer (its value, its own reply, or what it threw); false for
   * answers given before it ran: a hook, an enricher, a guard, validation or body limits.
   */
  fromHandler: boolean;
  /** A response header as set so far. */
  getHeader(name: string): string | number | string[] | undefined;
}

/**
 * Cross-cutting behaviour of edge plugins (security headers, CORS, rate limits, metrics, tracing), published in
 * the bucket `http:request-hooks` and applied by every adapter to every request svc answers: application
 * routes, edge routes and the neutral 404/405.
 */
export interface RequestHook {
  name: string;
  /**
   * Runs first, before enrichers and guards, in registration order. It may set headers (kept on every
   * answer, errors included), answer the request itself (`reply.finish(...)`: nothing else runs), or throw
   * an error, which is answered in the envelope.
   */
  onRequest?(input: RequestHookInput): void | Promise<void>;
  /**
   * Runs once the answer is final and before it is written (for a stream, before its head). The write waits
   * for a returned promise, so whatever the hook records about the answer is in place before the client can
   * act on it (idempotency completes its record here). It cannot change the answer; a throw or rejection is
   * reported as AFTER_HOOK_FAILED and the answer goes out regardless.
   */
  beforeResponse?(response: OutgoingResponse): void | Promise<void>;
  /**
   * Runs after the response was handed to the server. It cannot change the response; a throw is reported as
   * AFTER_HOOK_FAILED through onError.
   */
  onResponse?(event: ResponseEvent): void;
}

/** A side-effect-free check telling whether a caller can see a route (lists, tool listings). Never authorization. */
export interface RouteVisibilityCheck {
  name: string;
  isVisible(route: Route, context: RequestContext): boolean;
}
