// The normalised model (IR) of a spec document: what the loader produces after validation and
// cross-checks, and the only thing the generator reads. Every node keeps where it came from so later
// checks and the generator can still point at file:line:column.

export interface SourceLocation {
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
}

/** A JSON Schema (2020-12). References to resources are written `{ $ref: '#/resources/<Name>' }`. */
export type JsonSchema = boolean | JsonSchemaObject;
export interface JsonSchemaObject {
  [keyword: string]: unknown;
}

export const RESOURCE_REF_PREFIX = '#/resources/';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'HEAD' | 'OPTIONS';

export interface ResourceIR {
  name: string;
  schema: JsonSchema;
  loc: SourceLocation;
}

export interface JsonBodyIR {
  kind: 'json';
  schema: JsonSchema;
  /** false when the spec marks the body optional (`body: { json: <schema>, required: false }`). */
  required: boolean;
}
export type BodyIR = JsonBodyIR;

export interface RouteMetaIR {
  summary?: string;
  description?: string;
  tags?: string[];
  auth?: boolean;
  scopes?: string[];
  etag?: boolean;
  mcp?: boolean | { name?: string; description?: string; redactErrorDetails?: boolean };
  /** Every other key exactly as written (validated against the built-in meta keys and `metaKeys`). */
  [key: string]: unknown;
}

export interface RouteIR {
  /** Route id: unique, also the OpenAPI operationId, the client method and the Handlers key. */
  id: string;
  method: HttpMethod;
  /** Path with `:name` parameters, as written. */
  path: string;
  /** Names of the path parameters in order of appearance. */
  pathParams: string[];
  /** Normalised to an object schema: every path parameter a required property, no other property allowed. */
  params?: JsonSchemaObject;
  /** Normalised to an object schema (`type: object`, `properties`, optional `required`). */
  query?: JsonSchemaObject;
  body?: BodyIR;
  /** Status code (as a string, e.g. '200') → response body schema, or null for no body (204). */
  responses: Record<string, JsonSchema | null>;
  /** Error codes the route declares, each found in the application's errors or the built-in catalog. */
  errors: string[];
  meta: RouteMetaIR;
  loc: SourceLocation;
}

export interface ErrorIR {
  code: string;
  /** HTTP status, or 'boot' for errors that refuse start-up. */
  status: number | 'boot';
  /** Further statuses the same code may be answered with. */
  statuses?: number[];
  message: string;
  /** Which module raises it: 'app' for the application's own codes. */
  module: string;
  description?: string;
  loc?: SourceLocation;
}

/** A custom route meta key the application declares (so a typo in `meta:` is still an error). */
export interface MetaKeyIR {
  name: string;
  schema: JsonSchema;
  /** A guarded key makes boot fail unless some plugin claims it (HTTP_UNGUARDED_ROUTE_META). */
  guarded: boolean;
  description?: string;
}

/** One piece of a string that used `${VAR}` / `${VAR:-default}`. */
export type TemplatePart = string | { env: string; default?: string };

/** A config value as written, with environment references kept so they are resolved at start, not at build. */
export type ConfigValue =
  | string
  | number
  | boolean
  | null
  | ConfigValue[]
  | { [key: string]: ConfigValue }
  | {
      $template: TemplatePart[];
      /** true when the value is exactly one reference at a key that takes more than text: the resolved text
       *  is read as a YAML scalar (`port: ${PORT:-3000}` → 3000); see spec/env-template.ts resolveConfig. */
      reread?: boolean;
    };

export interface SpecIR {
  /** 'app' for svc.config.yaml; 'module' for the built-in module specs under spec/modules/. */
  kind: 'app' | 'module';
  /** Absolute path of the spec file. */
  file: string;
  name: string;
  version: string;
  title?: string;
  description?: string;
  resources: ResourceIR[];
  routes: RouteIR[];
  /** The document's own error codes, in declaration order. */
  errors: ErrorIR[];
  /** The built-in catalog (spec/errors.yaml), available to `errors:` lists and for OpenAPI responses. */
  catalog: ErrorIR[];
  metaKeys: MetaKeyIR[];
  /** Runtime settings (server, stores, modules) with `${VAR}` references unresolved. */
  config: { [key: string]: ConfigValue };
}
