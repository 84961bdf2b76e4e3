// The document GET /openapi.json serves: one operation per registered route ("built at app:booted
// from the registered routes"). A route the generated document describes keeps its generated operation,
// which knows the spec's resources, declared errors and security; every other route is described from its
// own schemas (route-operation.ts). Operations of routes this server does not register are left out, and
// edge routes (probes, metrics, this document) are not API operations, so they are not listed.
import {
  describedTags,
  OAS_31_DIALECT,
  OPENAPI_VERSION,
  relativeServers,
} from '../../../shared/openapi/document.js';
import { errorEnvelopeSchemas } from '../../../shared/openapi/error-responses.js';
import { openApiPath, templateParameterNames } from '../../../shared/path-template.js';
import { bearerSecurity, requirementOf } from '../../../shared/openapi/security.js';
import type { OpenApiSecurityRequirement, OpenApiTag } from '../../../shared/openapi/types.js';
import { deriveToolName } from '../../../shared/tool-name.js';
import type { Route } from '../../http/types.js';
import { describeRoute, type DescribeContext } from './route-operation.js';

/** What the served document is made of. */
export interface ServedDocumentInput {
  /** The registered routes (bucket `http:routes`). */
  routes: readonly Route[];
  /** The generated document, when there is one. */
  document?: Readonly<Record<string, unknown>> | undefined;
  /** Replaces `info.title` / `info.version`. */
  info?: { title?: string; version?: string } | undefined;
  /** Replaces the top-level `tags`. */
  tags?: readonly OpenApiTag[] | undefined;
  /**
   * What the server adds to every described route: the idempotency header, the registered modules that act on
   * every route, the application's catalog for declared codes.
   */
  describe?: Omit<DescribeContext, 'onUnknownCode'> | undefined;
  /** Told of each code a described route declares that no catalog knows (left out of the document). */
  onUnknownCode?: ((route: Route, code: string) => void) | undefined;
  /** `info` of a document built without a generated one: the app's name and version. */
  name: string;
  version: string;
}

type JsonObject = Record<string, unknown>;

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;

interface Placed {
  path: string;
  method: string;
  operation: unknown;
  /** Path-item keys other than operations (`parameters`, `summary`…) of the generated item, kept with it. */
  item?: JsonObject;
}

function isMethod(key: string): boolean {
  return (METHODS as readonly string[]).includes(key);
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The generated operations by `METHOD /path/{param}` and by operationId, in document order. */
function generatedOperations(paths: JsonObject): Placed[] {
  const found: Placed[] = [];
  for (const [path, item] of Object.entries(paths)) {
    if (!isObject(item)) continue;
    // In the item's own key order, so the served document lists them as the generated one does.
    for (const [method, operation] of Object.entries(item)) {
      if (isMethod(method) && isObject(operation))
        found.push({ path, method: method.toUpperCase(), operation, item });
    }
  }
  return found;
}

function operationIdOf(operation: unknown): string | undefined {
  return isObject(operation) && typeof operation.operationId === 'string' ? operation.operationId : undefined;
}

/** `{id}` names of an OpenAPI path, in order. */
function templateNames(path: string): string {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).join('/');
}

/**
 * The generated operation of a route: same method and path, else same route id at another path with the
 * same parameters (an app that mounts a module's route elsewhere). Each generated operation serves once.
 */
function generatedFor(
  route: Route,
  generated: readonly Placed[],
  used: ReadonlyMap<Placed, unknown>,
): Placed | undefined {
  const path = openApiPath(route.url);
  const free = generated.filter((entry) => !used.has(entry) && entry.method === route.method);
  const samePath = free.find((entry) => entry.path === path);
  if (samePath !== undefined || route.id === undefined) return samePath;
  const names = templateParameterNames(route.url).join('/');
  return free.find(
    (entry) => operationIdOf(entry.operation) === route.id && templateNames(entry.path) === names,
  );
}

/** `meta.operationId`, else the route id, else the tool name rule; suffixed until unique in the document. */
function operationIdFor(route: Route, taken: Set<string>): string {
  const meta = route.meta.operationId;
  const base =
    typeof meta === 'string' && meta !== '' ? meta : (route.id ?? deriveToolName(route.method, route.url));
  let id = base;
  for (let n = 2; taken.has(id); n++) id = `${base}_${n}`;
  taken.add(id);
  return id;
}

function hasScopes(scopes: unknown): boolean {
  return Array.isArray(scopes) && scopes.length > 0;
}

/** The security a described `meta.auth` route gets: any scheme the document declares, else bearer. */
function authRequirement(components: JsonObject): OpenApiSecurityRequirement[] {
  const schemes = isObject(components.securitySchemes) ? components.securitySchemes : {};
  if (Object.keys(schemes).length > 0) return requirementOf(schemes);
  const bearer = bearerSecurity(true);
  components.securitySchemes = bearer.schemes;
  return bearer.requirement;
}

/** The top-level tags: every tag an operation uses, sorted, with the description the document gave it. */
function usedTags(paths: JsonObject, declared: unknown): OpenApiTag[] {
  const descriptions = new Map<string, string>();
  for (const tag of Array.isArray(declared) ? declared : []) {
    if (isObject(tag) && typeof tag.name === 'string' && typeof tag.description === 'string')
      descriptions.set(tag.name, tag.description);
  }
  const names: string[] = [];
  for (const item of Object.values(paths)) {
    for (const method of METHODS) {
      const operation = isObject(item) ? item[method] : undefined;
      const tags = isObject(operation) && Array.isArray(operation.tags) ? operation.tags : [];
      for (const tag of tags) if (typeof tag === 'string') names.push(tag);
    }
  }
  return describedTags(names, descriptions);
}

export function servedDocument(input: ServedDocumentInput): JsonObject {
  const base: JsonObject =
    input.document === undefined
      ? {
          openapi: OPENAPI_VERSION,
          info: { title: input.name, version: input.version },
          jsonSchemaDialect: OAS_31_DIALECT,
          servers: relativeServers(),
        }
      : (structuredClone(input.document) as JsonObject);
  const generated = generatedOperations(isObject(base.paths) ? base.paths : {});
  const components: JsonObject = isObject(base.components) ? base.components : {};

  // Each generated operation a route keeps → where it is served; the routes that keep one.
  const keptAt = new Map<Placed, Placed>();
  const keeping = new Set<Route>();
  const taken = new Set<string>();
  const served = input.routes.filter((route) => route.edge !== true);
  for (const route of served) {
    const source = generatedFor(route, generated, keptAt);
    if (source === undefined) continue;
    const path = openApiPath(route.url);
    keptAt.set(source, path === source.path ? source : { ...source, path, item: undefined });
    keeping.add(route);
    const id = operationIdOf(source.operation);
    if (id !== undefined) taken.add(id);
  }

  // Generated operations first, in the document's order; then the others in registration order.
  const placed: Placed[] = generated.flatMap((source) => keptAt.get(source) ?? []);
  let requirement: OpenApiSecurityRequirement[] | undefined;
  for (const route of served) {
    if (keeping.has(route)) continue;
    // Sign-in routes, and routes asking for API-key scopes, accept the document's credentials.
    if (route.meta.auth === true || hasScopes(route.meta.scopes)) requirement ??= authRequirement(components);
    const operationId = operationIdFor(route, taken);
    placed.push({
      path: openApiPath(route.url),
      method: route.method,
      operation: describeRoute(route, operationId, requirement ?? [], {
        ...input.describe,
        onUnknownCode: (code) => input.onUnknownCode?.(route, code),
      }),
    });
  }

  const paths: JsonObject = {};
  for (const entry of placed) {
    const item = (paths[entry.path] ??= pathItemKeys(entry.item)) as JsonObject;
    item[entry.method.toLowerCase()] = entry.operation;
  }
  const schemas: JsonObject = isObject(components.schemas) ? components.schemas : {};
  // Described routes answer errors in the envelope; a hand-made document may not declare it yet.
  for (const [name, schema] of Object.entries(errorEnvelopeSchemas())) schemas[name] ??= schema;
  components.schemas = schemas;

  const tags = input.tags?.map((tag) => ({ ...tag })) ?? usedTags(paths, base.tags);
  const info = isObject(base.info) ? base.info : {};
  const replaced = Object.entries(input.info ?? {}).filter(([, value]) => value !== undefined);
  const document: JsonObject = { ...base, info: { ...info, ...Object.fromEntries(replaced) } };
  delete document.tags;
  return reorder({ ...document, ...(tags.length > 0 ? { tags } : {}), paths, components });
}

function pathItemKeys(item: JsonObject | undefined): JsonObject {
  const result: JsonObject = {};
  for (const [key, value] of Object.entries(item ?? {}))
    // `item` comes from the document servedDocument cloned whole: nothing here is shared with the caller's.
    if (!isMethod(key)) result[key] = value;
  return result;
}

// The generator's top-level key order, so the served document reads like generated/openapi.json.
const DOCUMENT_KEY_ORDER = [
  'openapi',
  'info',
  'jsonSchemaDialect',
  'servers',
  'x-generated',
  'tags',
  'paths',
];

function reorder(document: JsonObject): JsonObject {
  const result: JsonObject = {};
  for (const key of DOCUMENT_KEY_ORDER) if (key in document) result[key] = document[key];
  for (const [key, value] of Object.entries(document)) if (!(key in result)) result[key] = value;
  return result;
}
