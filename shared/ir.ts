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

/** Limits of a streamed multipart/form-data body, in bytes and counts, as written (sizes resolved to bytes). */
export interface UploadLimitsIR {
  /** The whole request body. */
  maxBytes: number;
  maxFiles: number;
  /** Per file; the runtime's default is maxBytes. */
  maxFileBytes?: number;
  /** The runtime's default is 50. */
  maxFields?: number;
  /** Per text field; the runtime's default is 64 KiB. */
  maxFieldBytes?: number;
  /** Per part's header block; the runtime's default is 8 KiB. */
  maxHeaderBytes?: number;
  /** Lower-cased `type/subtype`, `type/*` or `*\/*`; absent: any type. */
  allowedTypes?: string[];
}

/** `body: { upload: { ... } }`: multipart/form-data read as a stream by the handler (UploadInput). */
export interface UploadBodyIR {
  kind: 'upload';
  limits: UploadLimitsIR;
  /**
   * Object schema of the text fields (every property a string schema). Documentation and client types only:
   * the runtime neither validates nor requires the fields.
   */
  fields?: JsonSchema;
}

/** The name openapi.json and the client give the file parts of an upload; no text field may take it. */
export const UPLOAD_FILES_PROPERTY = 'files';

/** `body: { raw: { ... } }`: the request bytes exactly as received (RawBodyInput). */
export interface RawBodyIR {
  kind: 'raw';
  /** Largest body accepted, in bytes; absent: the runtime's default (1 MiB). */
  maxBytes?: number;
  /** Lower-cased media types (or ranges) the route expects: documentation and the client's default only. */
  contentTypes?: string[];
}

export type BodyIR = JsonBodyIR | UploadBodyIR | RawBodyIR;

/**
 * A streamed response (`200: { stream: application/pdf }`): bytes of that media type, or server-sent events
 * for `text/event-stream`, which the handler returns as `stream(...)` / `sse(...)`. Only on 2xx statuses.
 */
export interface StreamResponseIR {
  /** Lower-cased media type or range (`application/pdf`, `image/*`, `text/event-stream`). */
  stream: string;
}

/** A declared response: a body schema, `null` for no body, or a stream. */
export type ResponseIR = JsonSchema | null | StreamResponseIR;

/** The media type of server-sent events. */
export const EVENT_STREAM = 'text/event-stream';

/** Tells a stream response from a schema. The loader never produces a schema with a `stream` keyword. */
export function isStreamResponse(response: ResponseIR | undefined): response is StreamResponseIR {
  return (
    typeof response === 'object' &&
    response !== null &&
    typeof response.stream === 'string' &&
    Object.keys(response).length === 1
  );
}

export interface RouteMetaIR {
  summary?: string;
  description?: string;
  tags?: string[];
  auth?: boolean;
  scopes?: string[];
  etag?: boolean;
  /** The route serves HTML pages: securityPlugin adds the document-only secure headers. */
  documentHeaders?: boolean;
  /** 'required': every request carries an idempotency key; 'optional': a key is honoured (any method). */
  idempotency?: 'required' | 'optional' | false;
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
  /** Status code (as a string, e.g. '200') → response body schema, null for no body (204), or a stream. */
  responses: Record<string, ResponseIR>;
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
  /** What to do about it, for the person running the service (catalog and module specs only). */
  hint?: string;
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
       *  is read as a YAML scalar (`port: ${PORT:-3000}` → 3000); see shared/env-template.ts resolveConfig. */
      reread?: boolean;
    };

/**
 * A built-in module an application enables (`modules.auth`), as loaded from svckit's own
 * `spec/modules/<name>.yaml`, with the routes the application omitted (`routes: { <id>: false }`) left out.
 * The generator merges it into the application's types, OpenAPI document, client and tool list; its handlers
 * stay in svckit, so routes.ts, validators and errors.ts of the application never include it.
 */
export interface ModuleIR {
  /** `auth`: the key under `modules` and the module spec's `module:`. */
  name: string;
  version: string;
  /** Absolute path of the module spec. */
  file: string;
  description?: string;
  /** The module's resources, minus those the application declares identically (it keeps its own). */
  resources: ResourceIR[];
  /**
   * The routes that are mounted: every route of the module spec except the omitted ones and those of a
   * feature the module's options leave off.
   */
  routes: RouteIR[];
  /** Route ids of the module the application omitted (not those of a feature left off). */
  omittedRoutes: string[];
  /** The module spec's own error codes (usually none: svckit's codes live in the catalog). */
  errors: ErrorIR[];
}

/**
 * `modules:` as the build reads it: which built-in modules are on and the settings that decide what the
 * generated files say (a `${VAR}` the build cannot know counts as its default, or as "on" where it may turn
 * something on). Emitters and the error-code rule read this, never the raw `config.modules`.
 */
export interface ModuleSettingsIR {
  /** `modules.auth`: accounts and sign-in; its enricher reads a presented credential on every route. */
  auth?: { sessionCookie: string; requireMfa: boolean; apiKeys?: ApiKeysModuleIR };
  /** `modules.edge`: the edge plugins that are on. */
  edge?: EdgeModuleIR;
  /** `modules.idempotency`: keys honoured on routes of `methods` (and routes declaring meta.idempotency). */
  idempotency?: { header: string; methods: HttpMethod[] };
  /** `modules.mcp`: the agent-tool endpoint. */
  mcp?: { path: string };
  /** `modules.tenancy`: teams; routes other than account and central ones admit the tenant's members only. */
  tenancy?: TenancyModuleIR;
}

/** `modules.auth.apiKeys` with its defaults applied: keys are read on every route that is not an edge route. */
export interface ApiKeysModuleIR {
  /** The request header a key may come in (besides `Authorization: Bearer mk_live_...`). */
  header: string;
  /** The scopes a key may carry; `*` among them allows keys that may do everything. */
  scopes: string[];
}

/** `modules.tenancy` with its defaults applied. */
export interface TenancyModuleIR {
  /** The request header naming the tenant (a `tenantId` path parameter names it too). */
  header: string;
  /** Role names, most powerful first. */
  roles: string[];
  /** Every declared permission and the roles granted it, `tenant:members` included. */
  permissions: Record<string, string[]>;
}

export interface EdgeModuleIR {
  security: boolean;
  /** `security.rateLimit` sets a global per-client bucket, counted on every route that is not an edge route. */
  globalRateLimit: boolean;
  health: boolean;
  metrics: boolean;
  tracing: boolean;
  /** `openapi` is on; `title` and `tags` shape the generated document. */
  openapi?: { title?: ConfigValue; tags?: ConfigValue };
}

/**
 * What a spec was read from, for whatever must notice a change to it (the build cache, `svc dev`):
 * svc.config.yaml plus the files it includes (docs/spec.md#includes).
 */
export interface SpecSourcesIR {
  /** Absolute paths of every file read: the spec file first, then each included file once, in reading order. */
  files: string[];
  /**
   * Absolute paths of the directories an `include:` pattern listed: a file added to or removed from one of
   * them can change what the pattern matches, so the spec, without any file of `files` changing.
   */
  directories: string[];
}

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
  /** `modules:` normalised (kind 'app'; `{}` for module specs). */
  moduleSettings: ModuleSettingsIR;
  /**
   * A module spec's `features` (kind 'module' only; absent when none): route ids by the module option that turns
   * them on (`mfa: [mfaEnroll, ...]` exist only with `modules.auth.mfa: true`).
   */
  features?: Record<string, string[]>;
  /**
   * The built-in modules with a module spec that `modules` enables, in the order written (kind 'app' only;
   * absent or empty when none). Route ids, paths and resource names never clash with the application's.
   */
  modules?: ModuleIR[];
  /** The files (and pattern-listed directories) the document was read from; absent in IR built by hand. */
  sources?: SpecSourcesIR;
}
