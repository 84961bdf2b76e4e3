// The one rule that turns a route into an OpenAPI operation. The generator feeds it spec routes (IR) for
// openapi.json; the runtime feeds it the routes a server actually registered (handwritten route(), module
// routes) for the document openapiPlugin serves. Both describe a route in the neutral shape below, so the
// two documents never describe the same kind of route differently.
import { openApiPath } from '../path-template.js';
import { STATUS_CODES } from 'node:http';
import { isStreamResponse, type JsonSchema, type JsonSchemaObject, type ResponseIR } from '../ir.js';
import {
  rawRequestBody,
  streamResponse,
  uploadRequestBody,
  type RawBodyDescription,
  type UploadBodyDescription,
} from './binary-bodies.js';
import type { ErrorStatusGroup } from './error-codes.js';
import { errorResponse } from './error-responses.js';
import { routeSecurity } from './security.js';
import type {
  OpenApiOperation,
  OpenApiParameter,
  OpenApiRequestBody,
  OpenApiResponse,
  OpenApiSecurityRequirement,
} from './types.js';

/** A route's request body as described. */
export type OperationBody =
  | { kind: 'json'; schema: JsonSchema; required: boolean }
  | ({ kind: 'upload' } & UploadBodyDescription)
  | ({ kind: 'raw' } & RawBodyDescription);

/** One status a route answers on purpose. */
export interface DeclaredResponse {
  status: number;
  /** The body schema, null when the status carries no body, or a stream of a media type. */
  schema: ResponseIR;
}

/** Everything the operation is built from. */
export interface OperationRoute {
  operationId: string;
  /** Upper case, as routes write it. */
  method: string;
  /** The path template with `:name` parameters. */
  path: string;
  /** Path parameter names in order of appearance. */
  pathParams: readonly string[];
  /** Object schemas of the path parameters and the query. */
  params?: JsonSchemaObject | undefined;
  query?: JsonSchemaObject | undefined;
  body?: OperationBody | undefined;
  /** declaredResponses() of the route. */
  responses: readonly DeclaredResponse[];
  /** The route's error codes by status (groupErrorsByStatus). */
  errors: readonly ErrorStatusGroup[];
  meta: {
    summary?: string | undefined;
    description?: string | undefined;
    tags?: readonly string[] | undefined;
    deprecated?: boolean | undefined;
    auth?: boolean | undefined;
    /** API-key scopes: listed on the key header scheme of `security`, and as `x-scopes`. */
    scopes?: readonly string[] | undefined;
    /** `false` refuses every API key: the key header scheme is left out of `security`. */
    apiKey?: boolean | undefined;
  };
  /** The idempotency-key header, for a route that declares `meta.idempotency`. */
  idempotency?: { header: string; required: boolean; maxLength: number } | undefined;
}

export interface OperationContext {
  /** The `security` of a `meta.auth` route (security.ts); routeSecurity fits it to each route. */
  authRequirement: readonly OpenApiSecurityRequirement[];
  /** Applied to every schema copied into the operation (the generator points resource refs at components). */
  rewrite: (schema: JsonSchema) => JsonSchema;
}

/**
 * A route's declared responses in ascending status order. A route that declares no success (2xx/3xx)
 * status answers `successStatus` (default 200) without a body, as routes.ts and route() assume.
 */
export function declaredResponses(
  responses: Readonly<Record<string, ResponseIR>>,
  successStatus = 200,
): DeclaredResponse[] {
  const result: DeclaredResponse[] = Object.entries(responses)
    .map(([status, schema]) => ({ status: Number(status), schema }))
    .filter((response) => Number.isInteger(response.status));
  if (!result.some((response) => response.status >= 200 && response.status < 400)) {
    result.push({ status: successStatus, schema: null });
  }
  return result.sort((a, b) => a.status - b.status);
}

export function routeOperation(route: OperationRoute, context: OperationContext): OpenApiOperation {
  const { meta } = route;
  const result: OpenApiOperation = {
    operationId: route.operationId,
    summary: meta.summary ?? `${route.method} ${openApiPath(route.path)}`,
    ...(meta.description === undefined ? {} : { description: meta.description }),
    ...(meta.tags && meta.tags.length > 0 ? { tags: [...meta.tags] } : {}),
    ...(meta.deprecated === true ? { deprecated: true } : {}),
    // An empty list says "public" explicitly, so linters and readers know it was not forgotten.
    security: routeSecurity(meta, context.authRequirement),
    responses: responses(route, context),
  };
  if (meta.scopes && meta.scopes.length > 0) result['x-scopes'] = [...meta.scopes];
  const parameters = [
    ...pathParameters(route, context),
    ...queryParameters(route, context),
    ...headerParameters(route),
  ];
  if (parameters.length > 0) result.parameters = parameters;
  if (route.body) result.requestBody = requestBody(route.body, context);
  return reorder(result, OPERATION_KEY_ORDER);
}

function requestBody(body: OperationBody, { rewrite }: OperationContext): OpenApiRequestBody {
  switch (body.kind) {
    case 'json':
      return { required: body.required, content: { 'application/json': { schema: rewrite(body.schema) } } };
    case 'upload':
      return uploadRequestBody(body, rewrite);
    case 'raw':
      return rawRequestBody(body);
  }
}

function pathParameters(route: OperationRoute, { rewrite }: OperationContext): OpenApiParameter[] {
  const properties = propertiesOf(route.params);
  return route.pathParams.map((name) => {
    const schema = properties[name] ?? { type: 'string' };
    return { name, in: 'path', required: true, ...annotations(schema), schema: rewrite(schema) };
  });
}

function queryParameters(route: OperationRoute, { rewrite }: OperationContext): OpenApiParameter[] {
  const required = new Set(Array.isArray(route.query?.required) ? (route.query.required as string[]) : []);
  return Object.entries(propertiesOf(route.query)).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...annotations(schema),
    // Repeated keys (`?tag=a&tag=b`) are how the runtime reads arrays.
    ...(isArraySchema(schema) ? { style: 'form', explode: true } : {}),
    schema: rewrite(schema),
  }));
}

/** The idempotency key of a route that declares `meta.idempotency`. */
function headerParameters(route: OperationRoute): OpenApiParameter[] {
  const idempotency = route.idempotency;
  if (idempotency === undefined) return [];
  return [
    {
      name: idempotency.header,
      in: 'header',
      required: idempotency.required,
      description:
        'A fresh unique value (a UUID) per logical request, sent again unchanged on every retry of it: the ' +
        'first answer is replayed (with `Idempotent-Replayed: true`) instead of running the request twice.',
      schema: { type: 'string', minLength: 1, maxLength: idempotency.maxLength },
    },
  ];
}

function responses(route: OperationRoute, { rewrite }: OperationContext): Record<string, OpenApiResponse> {
  const result: Record<string, OpenApiResponse> = {};
  for (const { status, schema } of route.responses) {
    const reason = STATUS_CODES[status] ?? `Status ${status}`;
    result[String(status)] = isStreamResponse(schema)
      ? streamResponse(String(status), reason, schema.stream)
      : {
          description: reason,
          ...(schema === null ? {} : { content: { 'application/json': { schema: rewrite(schema) } } }),
        };
  }
  for (const group of route.errors) {
    const key = String(group.status);
    const error = errorResponse(group);
    const declared = result[key];
    const declaredSchema = declared?.content?.['application/json']?.schema;
    // A status both declared and used for errors documents both bodies.
    result[key] = !declared
      ? error
      : {
          ...error,
          description: `${declared.description}\n\n${error.description}`,
          ...(declaredSchema === undefined
            ? {}
            : {
                content: {
                  'application/json': {
                    schema: { oneOf: [declaredSchema, error.content?.['application/json']?.schema ?? {}] },
                  },
                },
              }),
        };
  }
  return result;
}

function propertiesOf(schema: JsonSchemaObject | undefined): Record<string, JsonSchema> {
  const properties = schema?.properties;
  return typeof properties === 'object' && properties !== null
    ? (properties as Record<string, JsonSchema>)
    : {};
}

function annotations(schema: JsonSchema): { description?: string; deprecated?: boolean } {
  if (typeof schema !== 'object') return {};
  return {
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    ...(schema.deprecated === true ? { deprecated: true } : {}),
  };
}

function isArraySchema(schema: JsonSchema): boolean {
  if (typeof schema !== 'object') return false;
  return schema.type === 'array' || (Array.isArray(schema.type) && schema.type.includes('array'));
}

// Key order of an operation in the document, so diffs of openapi.json read top to bottom.
const OPERATION_KEY_ORDER: readonly (keyof OpenApiOperation)[] = [
  'operationId',
  'summary',
  'description',
  'tags',
  'deprecated',
  'security',
  'x-scopes',
  'parameters',
  'requestBody',
  'responses',
];

function reorder<T extends object>(value: T, first: readonly (keyof T)[]): T {
  const result = {} as T;
  for (const key of first) if (key in value) result[key] = value[key];
  for (const key of Object.keys(value) as (keyof T)[]) if (!(key in result)) result[key] = value[key];
  return result;
}
