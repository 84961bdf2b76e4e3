// route() for handwritten routes and bindRoutes() for the generated routes.ts. Both return neutral Routes;
// route() compiles its validators and coercion plans here, once, with the one ajv configuration.
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { InvalidRouteError } from './http-errors.js';
import { HTTP_METHODS } from './types.js';
import type {
  CompiledValidator,
  HandlerInput,
  HttpMethod,
  JsonBody,
  RawBody,
  Route,
  RouteHandler,
  RouteMeta,
  RoutePart,
  UploadBody,
} from './types.js';
import { createAjv } from '../../shared/validation/ajv.js';
import { pathTemplateProblem } from '../../shared/path-template.js';
import { successStatusOf } from '../../shared/success-status.js';
import { coercionPlan } from '../../shared/validation/coercion-plan.js';

/** A JSON Schema (2020-12) as route() accepts it. */
export type JsonSchema = boolean | { readonly [keyword: string]: unknown };

/** The types a handwritten route's handler sees, given as route()'s type argument. */
export interface RouteTypes {
  params?: unknown;
  query?: unknown;
  body?: unknown;
}

type ParamsOf<T> = T extends { params: infer P } ? P : Record<string, string>;
type QueryOf<T> = T extends { query: infer Q } ? Q : Record<string, string | string[]>;
type BodyOf<T> = T extends { body: infer B } ? B : unknown;

/** The input a route's handler receives. */
export type RouteInput<T extends RouteTypes = RouteTypes> = HandlerInput<ParamsOf<T>, QueryOf<T>, BodyOf<T>>;

export interface RouteOptions<T extends RouteTypes = RouteTypes> {
  /** Optional id (OpenAPI operationId, tool naming). */
  id?: string;
  method: HttpMethod | Lowercase<HttpMethod>;
  /** Path with `:name` parameters. */
  url: string;
  /** Object schema of the path parameters; values are coerced from text by their declared type. */
  params?: JsonSchema;
  /** Object schema of the query; values are coerced from text by their declared type. */
  query?: JsonSchema;
  /**
   * Schema of the JSON body, or `upload({...})` for a streamed multipart body (the handler's body is an
   * UploadInput), or `rawBody({...})` for the untouched bytes (a RawBodyInput).
   */
  body?: JsonSchema | UploadBody | RawBody;
  /** false: a request without a body skips body validation (the handler gets undefined). Default true. */
  bodyRequired?: boolean;
  /**
   * Response by status, for documentation and clients only (never validated): a JSON Schema, `null` for an
   * answer without a body (204), or `{ stream: '<media type>' }` for a streamed one.
   */
  response?: Readonly<Record<number, JsonSchema | null>>;
  /** Status for a returned value; default: the lowest 2xx in `response`, else 200. */
  successStatus?: number;
  /** Application error codes the handler may throw; answering another one logs a warning. */
  errors?: readonly string[];
  meta?: RouteMeta;
  handler: RouteHandler<ParamsOf<T>, QueryOf<T>, BodyOf<T>>;
}

/** The keys of RouteOptions; any other is refused when the route is made. */
const ROUTE_OPTIONS = optionKeys<RouteOptions>({
  id: true,
  method: true,
  url: true,
  params: true,
  query: true,
  body: true,
  bodyRequired: true,
  response: true,
  successStatus: true,
  errors: true,
  meta: true,
  handler: true,
});

let sharedAjv: Ajv2020 | undefined;

function describe(method: string, url: string, id?: string): string {
  return id === undefined ? `${method} ${url}` : `${id} (${method} ${url})`;
}

function compileSchema(schema: JsonSchema, where: string, route: string): CompiledValidator {
  sharedAjv ??= createAjv();
  try {
    return sharedAjv.compile(schema as object | boolean) as CompiledValidator;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new InvalidRouteError(route, `the ${where} schema cannot be compiled: ${reason}`, error);
  }
}

function part(schema: JsonSchema, where: string, route: string): RoutePart {
  return {
    validate: compileSchema(schema, where, route),
    coerce: coercionPlan(schema as Parameters<typeof coercionPlan>[0]),
    schema,
  };
}

/** An upload() or rawBody() definition rather than a JSON Schema. */
function isStreamedBody(body: RouteOptions['body']): body is UploadBody | RawBody {
  if (body === null || typeof body !== 'object') return false;
  const kind = (body as { kind?: unknown }).kind;
  if (kind === 'upload') return typeof (body as { limits?: unknown }).limits === 'object';
  return kind === 'raw' && typeof (body as { maxBytes?: unknown }).maxBytes === 'number';
}

/** Checks method, path and handler of a definition; throws InvalidRouteError naming the route. */
export function assertRouteShape(method: unknown, url: unknown, handler: unknown, id?: string): HttpMethod {
  const upper = typeof method === 'string' ? method.toUpperCase() : '';
  const label = describe(String(method), String(url), id);
  if (!(HTTP_METHODS as readonly string[]).includes(upper)) {
    throw new InvalidRouteError(label, `method must be one of ${HTTP_METHODS.join(', ')}`);
  }
  if (typeof url !== 'string' || !url.startsWith('/')) {
    throw new InvalidRouteError(label, 'url must be a string starting with "/"');
  }
  const templateProblem = pathTemplateProblem(url);
  if (templateProblem !== undefined) throw new InvalidRouteError(label, `url: ${templateProblem}`);
  if (typeof handler !== 'function') throw new InvalidRouteError(label, 'handler must be a function');
  return upper as HttpMethod;
}

/**
 * A handwritten route. Handler input types come from the type argument:
 * `route<{ params: { id: string }; body: NewNote }>({ method: 'POST', url: '/notes/:id', ... })`.
 */
export function route<T extends RouteTypes = RouteTypes>(options: RouteOptions<T>): Route {
  // First, so a misspelt `handler` or `url` is named as such rather than reported missing. `meta` is not
  // checked here: plugins extend RouteMeta, and the adapters check it at boot (meta-checks.ts).
  rejectUnknownOptions(
    options,
    ROUTE_OPTIONS,
    `route() ${describe(String(options.method), String(options.url), options.id)}`,
  );
  const method = assertRouteShape(options.method, options.url, options.handler, options.id);
  const label = describe(method, options.url, options.id);
  const result: Route = {
    method,
    url: options.url,
    meta: { ...options.meta },
    handler: options.handler as Route['handler'],
  };
  if (options.id !== undefined) result.id = options.id;
  if (options.params !== undefined) result.params = part(options.params, 'params', label);
  if (options.query !== undefined) result.query = part(options.query, 'query', label);
  if (isStreamedBody(options.body)) {
    result.body = options.body;
  } else if (options.body !== undefined) {
    const json: JsonBody = {
      kind: 'json',
      validate: compileSchema(options.body, 'body', label),
      schema: options.body,
    };
    if (options.bodyRequired === false) json.required = false;
    result.body = json;
  }
  if (options.response !== undefined) result.response = options.response;
  if (options.errors !== undefined) {
    if (!Array.isArray(options.errors) || !options.errors.every((code) => typeof code === 'string')) {
      throw new InvalidRouteError(label, 'errors must be an array of error codes');
    }
    result.errors = [...options.errors];
  }
  // The generator writes the same rule into routes.ts: the lowest declared 2xx, else 200.
  const successStatus = options.successStatus ?? successStatusOf(Object.keys(options.response ?? {}));
  if (!Number.isInteger(successStatus) || successStatus < 200 || successStatus > 299) {
    throw new InvalidRouteError(label, 'successStatus must be a 2xx status');
  }
  result.successStatus = successStatus;
  return result;
}

/** A generated route definition: everything but the handler, which bindRoutes() pairs by id. */
export interface RouteDefinition extends Omit<Route, 'handler'> {
  id: string;
}

/**
 * The handler `handlers` holds for route `id`, or undefined: a function of its own or of its class, never one
 * inherited from Object.prototype (`constructor`, `toString`...).
 */
export function handlerOf(handlers: object, id: string): ((input: HandlerInput) => unknown) | undefined {
  const handler: unknown = (handlers as Record<string, unknown>)[id];
  const inherited = (Object.prototype as unknown as Record<string, unknown>)[id];
  return typeof handler === 'function' && handler !== inherited
    ? (handler as (input: HandlerInput) => unknown)
    : undefined;
}

/**
 * Pairs each generated definition with `handlers[definition.id]`. A missing or non-function handler throws at
 * once naming the route id (JavaScript callers have no type checker). Handlers are called with `handlers` as
 * `this`, so class instances work.
 */
export function bindRoutes<H extends object>(definitions: readonly RouteDefinition[], handlers: H): Route[] {
  if (handlers === null || typeof handlers !== 'object') {
    throw new InvalidRouteError('bindRoutes', 'handlers must be an object with one function per route id');
  }
  return definitions.map((definition) => {
    const handler = handlerOf(handlers, definition.id);
    if (handler === undefined) {
      throw new InvalidRouteError(
        describe(definition.method, definition.url, definition.id),
        `no handler: handlers.${definition.id} must be a function`,
      );
    }
    const bound = handler.bind(handlers);
    return { ...definition, handler: bound as Route['handler'] };
  });
}
