// A registered route the generated document does not describe (a handwritten route(), a module route such as
// /mcp) as an OpenAPI operation, from what the route itself carries: the JSON Schemas route() keeps beside its
// validators, the response map, the success status and the meta. The operation rule itself is shared with the
// generator (shared/openapi/operation.ts), so both describe a route alike.
import { catalog } from '../../../generated/modules/errors.js';
import type { JsonSchema, JsonSchemaObject, ResponseIR } from '../../../shared/ir.js';
import type { UploadLimitsDescription } from '../../../shared/openapi/binary-bodies.js';
import {
  groupErrorsByStatus,
  impliedErrorCodes,
  impliedStatus,
  orderErrorCodes,
  routeErrorFacts,
  type ErrorCatalogEntry,
  type RouteErrorModules,
} from '../../../shared/openapi/error-codes.js';
import { declaredResponses, routeOperation, type OperationBody } from '../../../shared/openapi/operation.js';
import { templateParameterNames } from '../../../shared/path-template.js';
import type { OpenApiOperation, OpenApiSecurityRequirement } from '../../../shared/openapi/types.js';
import {
  DEFAULT_IDEMPOTENCY_HEADER,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from '../../../shared/idempotency-headers.js';
import { DEFAULT_RAW_BODY_LIMIT } from '../../http/raw-body.js';
import type { FieldCoercion, Route, RoutePart, UploadLimits } from '../../http/types.js';
import { DEFAULT_UPLOAD_LIMITS } from '../../http/upload/options.js';

/** The built-in catalog: every code the pipeline itself answers is there. */
const BUILT_IN: ReadonlyMap<string, ErrorCatalogEntry> = new Map(
  Object.entries(catalog).map(([code, entry]) => [code, { code, ...entry }]),
);

/** What the server around a route adds to its description. */
export interface DescribeContext {
  /** The header idempotency keys travel in (the idempotency plugin's `header`). */
  idempotencyHeader?: string | undefined;
  /** The registered modules that act on every route (module-model.ts); default none. */
  modules?: RouteErrorModules | undefined;
  /** The application's catalog, where codes a route declares in `errors` are looked up after the built-in one. */
  catalog?: Readonly<Record<string, Omit<ErrorCatalogEntry, 'code'>>> | undefined;
  /** Told of each declared code no catalog knows: it has no status to be listed under, so it is left out. */
  onUnknownCode?: ((code: string) => void) | undefined;
}

/** A code's catalog entry: the built-in catalog first (the pipeline's own codes), then the application's. */
function catalogLookup(catalog: DescribeContext['catalog']): (code: string) => ErrorCatalogEntry | undefined {
  return (code) => {
    const builtIn = BUILT_IN.get(code);
    if (builtIn !== undefined) return builtIn;
    const entry = catalog !== undefined && Object.hasOwn(catalog, code) ? catalog[code] : undefined;
    return entry === undefined ? undefined : { ...entry, code };
  };
}

/**
 * The route's operation; `operationId` is chosen by the caller, which keeps ids unique in the document. Its
 * error responses are the codes it declares plus those the pipeline and `context.modules` imply, grouped by
 * status as the generator groups a spec route's (shared/openapi/error-codes.ts).
 */
export function describeRoute(
  route: Route,
  operationId: string,
  authRequirement: readonly OpenApiSecurityRequirement[],
  context: DescribeContext = {},
): OpenApiOperation {
  const { meta } = route;
  const facts = routeErrorFacts(route, context.modules);
  const find = catalogLookup(context.catalog);
  const declared = (route.errors ?? []).filter((code) => {
    if (find(code) !== undefined) return true;
    context.onUnknownCode?.(code);
    return false;
  });
  const codes = [...declared, ...impliedErrorCodes(facts)];
  const label = `${route.method} ${route.url}`;
  return routeOperation(
    {
      operationId,
      method: route.method,
      path: route.url,
      pathParams: templateParameterNames(route.url),
      params: partSchema(route.params),
      query: partSchema(route.query),
      body: body(route),
      responses: declaredResponses(responseMap(route.response), route.successStatus ?? 200),
      errors: groupErrorsByStatus(
        orderErrorCodes(codes, (code) => find(code)?.status),
        find,
        label,
        impliedStatus(declared),
      ),
      meta: {
        summary: text(meta.summary),
        description: text(meta.description),
        tags: texts(meta.tags),
        deprecated: meta.deprecated === true,
        auth: meta.auth === true,
        scopes: texts(meta.scopes),
        apiKey: meta.apiKey === false ? false : undefined,
      },
      idempotency:
        facts.idempotency === undefined
          ? undefined
          : {
              header: context.idempotencyHeader ?? DEFAULT_IDEMPOTENCY_HEADER,
              required: facts.idempotency === 'required',
              maxLength: MAX_IDEMPOTENCY_KEY_LENGTH,
            },
    },
    // Handwritten schemas are copied as written: they reference nothing in components.
    { authRequirement, rewrite: (schema) => schema },
  );
}

function isSchemaObject(value: unknown): value is JsonSchemaObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The part's object schema; a generated route carries only its coercion plan (its schema is in the
 * generated document), which still names every property and its type.
 */
function partSchema(part: RoutePart | undefined): JsonSchemaObject | undefined {
  if (part === undefined) return undefined;
  if (isSchemaObject(part.schema)) return part.schema;
  if (part.coerce === undefined) return undefined;
  const properties: Record<string, JsonSchema> = {};
  for (const [name, coercion] of Object.entries(part.coerce)) properties[name] = coercedSchema(coercion);
  return { type: 'object', properties };
}

function coercedSchema(coercion: FieldCoercion): JsonSchema {
  if (typeof coercion === 'object') return { type: 'array', items: coercedSchema(coercion.items) };
  return coercion === 'any' ? {} : { type: coercion };
}

function body(route: Route): OperationBody | undefined {
  const declared = route.body;
  switch (declared?.kind) {
    case undefined:
      return undefined;
    case 'json': {
      const schema = declared.schema;
      return {
        kind: 'json',
        schema: typeof schema === 'boolean' || isSchemaObject(schema) ? schema : {},
        required: declared.required !== false,
      };
    }
    case 'upload':
      return { kind: 'upload', limits: declaredLimits(declared.limits) };
    case 'raw':
      return {
        kind: 'raw',
        maxBytes: declared.maxBytes === DEFAULT_RAW_BODY_LIMIT ? undefined : declared.maxBytes,
      };
  }
}

/** Limits at their default are left out, as the generator leaves out limits a spec does not set. */
function declaredLimits(limits: UploadLimits): UploadLimitsDescription {
  const unlessDefault = (value: number, fallback: number) => (value === fallback ? undefined : value);
  return {
    maxBytes: limits.maxBytes,
    maxFiles: limits.maxFiles,
    maxFileBytes: unlessDefault(limits.maxFileBytes, limits.maxBytes),
    maxFields: unlessDefault(limits.maxFields, DEFAULT_UPLOAD_LIMITS.maxFields),
    maxFieldBytes: unlessDefault(limits.maxFieldBytes, DEFAULT_UPLOAD_LIMITS.maxFieldBytes),
    maxHeaderBytes: unlessDefault(limits.maxHeaderBytes, DEFAULT_UPLOAD_LIMITS.maxHeaderBytes),
    allowedTypes: limits.allowedTypes,
  };
}

/** `response` as the operation rule reads it: a schema, null for no body, or `{ stream: <media type> }`. */
function responseMap(response: Route['response']): Record<string, ResponseIR> {
  const result: Record<string, ResponseIR> = {};
  for (const [status, schema] of Object.entries(response ?? {})) {
    if (schema === null || typeof schema === 'boolean' || isSchemaObject(schema)) result[status] = schema;
  }
  return result;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

function texts(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}
