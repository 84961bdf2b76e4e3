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

/** How a text value from a query string or path is turned into the type its schema asks for. */
export type ScalarCoercion = 'integer' | 'number' | 'boolean' | 'string' | 'null' | 'any';
export type FieldCoercion = ScalarCoercion | { items: ScalarCoercion };
/** Property name → coercion; computed once from the schema (by the generator, or by route() at boot). */
export type CoercionPlan = Readonly<Record<string, FieldCoercion>>;

/** A validated request part (params or query): text values are coerced by plan, then validated. */
export interface RoutePart {
  validate: CompiledValidator;
  coerce?: CoercionPlan;
  /** The JSON Schema the validator was compiled from; read by documentation builders, never per request. */
  schema?: unknown;
}

/** A JSON body validated against a schema. Upload and raw bodies join this union later. */
export interface JsonBody {
  kind: 'json';
  validate: CompiledValidator;
  /** false: a request without a body skips validation and the handler gets `undefined`. Default true. */
  required?: boolean;
  /** The JSON Schema the validator was compiled from; read by documentation builders, never per request. */
  schema?: unknown;
}
export type RouteBody = JsonBody;

export type RequestPart = 'body' | 'query' | 'params';

/** Meta keys the framework itself reads; plugins may read any other key. */
export interface RouteMeta {
  auth?: boolean;
  can?: string | string[];
  teamRole?: unknown;
  scopes?: string[];
  subscribed?: unknown;
  feature?: unknown;
  mfa?: boolean;
  apiKey?: boolean;
  account?: boolean;
  central?: boolean;
  rateLimit?: unknown;
  etag?: boolean;
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
  /** Unread body stream; set only on upload and raw routes. */
  readonly bodyStream?: Readable;
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
  meta: RouteMeta;
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
}

/** A side-effect-free check telling whether a caller can see a route (lists, tool listings). Never authorization. */
export interface RouteVisibilityCheck {
  name: string;
  isVisible(route: Route, context: RequestContext): boolean;
}
