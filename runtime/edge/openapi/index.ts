// `openapiPlugin({ document?, info?, tags?, path? })`: GET /openapi.json, a public edge route (docs/http.md,
// "Edge routes and plugins") describing what this server serves. The document is built once, at app:booted, from the
// registered routes (served-document.ts) and serialised then; every request sends the same bytes, with an
// ETag.
import { literalRoutePath } from '../../http/literal-path.js';
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
import type { Route } from '../../http/types.js';
import type { ErrorCatalogEntry, RouteErrorModules } from '../../../shared/openapi/error-codes.js';
import type { OpenApiTag } from '../../../shared/openapi/types.js';
import { routeErrorModules } from './module-model.js';
import { servedDocument } from './served-document.js';

export type { OpenApiTag } from '../../../shared/openapi/types.js';

export interface OpenapiPluginOptions {
  /**
   * The document `svc build` generated (`generated/openapi.json`, imported `with { type: 'json' }`): the
   * routes it describes keep its operations. Without it every route is described from its own schemas.
   */
  document?: Readonly<Record<string, unknown>>;
  /** Replaces `info.title` / `info.version` (default: the document's, else the app's name and version). */
  info?: { title?: string; version?: string };
  /** Replaces the top-level `tags` (default: the tags the operations use, described as the document does). */
  tags?: readonly OpenApiTag[];
  /** Where it is served (default `/openapi.json`). */
  path?: string;
  /**
   * The application's error catalog (`catalog` of generated/errors.ts): the status and message of each code a
   * handwritten route declares in `errors`. Codes of svckit's own catalog are known without it.
   */
  catalog?: Readonly<Record<string, Omit<ErrorCatalogEntry, 'code'>>>;
}

/** What the server registered, as the document reads it. */
export interface RegisteredApi {
  routes: readonly Route[];
  name?: string;
  version?: string;
  idempotencyHeader?: string;
  /** The registered modules that act on every route; default none. */
  modules?: RouteErrorModules;
  /** Told of each code a described route declares that no catalog knows (left out of the document). */
  onUnknownCode?: (route: Route, code: string) => void;
}

const KNOWN_OPTIONS = optionKeys<OpenapiPluginOptions>({
  document: true,
  info: true,
  tags: true,
  path: true,
  catalog: true,
});
const OWNER = 'openapiPlugin()';

/** The warning for a code a route declares that neither catalog knows: the document cannot give its status. */
const UNKNOWN_DECLARED_CODE_MESSAGE =
  'openapiPlugin(): a route declares an error code no catalog knows; pass the catalog option (generated/errors.ts) to document it';

/**
 * The document the plugin serves for `registered` routes. Without them (a document checked outside a
 * server), the given document as written with `info` and `tags` applied.
 */
export function finishDocument(
  options: OpenapiPluginOptions,
  registered?: RegisteredApi,
): Record<string, unknown> {
  const { document, info, tags, catalog } = options;
  if (registered === undefined && document !== undefined) {
    const result = structuredClone(document) as Record<string, unknown>;
    if (info !== undefined) result.info = { ...(result.info as object | undefined), ...definedOnly(info) };
    if (tags !== undefined) result.tags = tags.map((tag) => ({ ...tag }));
    return result;
  }
  return servedDocument({
    routes: registered?.routes ?? [],
    document,
    info,
    tags,
    name: registered?.name ?? 'svc',
    version: registered?.version ?? '0.0.0',
    describe: { idempotencyHeader: registered?.idempotencyHeader, modules: registered?.modules, catalog },
    onUnknownCode: registered?.onUnknownCode,
  });
}

function definedOnly(info: { title?: string; version?: string }): { title?: string; version?: string } {
  return Object.fromEntries(Object.entries(info).filter(([, value]) => value !== undefined));
}

function checkedDocument(document: unknown): void {
  if (document === undefined) return;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw invalidOption(OWNER, 'document', 'the OpenAPI document object (generated/openapi.json)');
  }
  if (typeof (document as { openapi?: unknown }).openapi !== 'string') {
    throw invalidOption(
      OWNER,
      'document',
      'an OpenAPI document (generated/openapi.json)',
      'it has no "openapi" version field',
    );
  }
}

function checkedInfo(info: unknown): void {
  if (info === undefined) return;
  if (info === null || typeof info !== 'object' || Array.isArray(info))
    throw invalidOption(OWNER, 'info', '{ title?, version? }');
  rejectUnknownOptions(info, ['title', 'version'], `${OWNER} info`);
  for (const [key, value] of Object.entries(info))
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      throw invalidOption(OWNER, `info.${key}`, 'a non-empty string');
}

function checkedTags(tags: unknown): void {
  if (tags === undefined) return;
  const valid =
    Array.isArray(tags) &&
    tags.every(
      (tag: unknown) =>
        typeof tag === 'object' &&
        tag !== null &&
        typeof (tag as OpenApiTag).name === 'string' &&
        ['undefined', 'string'].includes(typeof (tag as OpenApiTag).description),
    );
  if (!valid) throw invalidOption(OWNER, 'tags', 'a list of { name, description? }');
}

function isCatalogEntry(entry: unknown): boolean {
  if (entry === null || typeof entry !== 'object') return false;
  const { status, statuses, message } = entry as Partial<ErrorCatalogEntry>;
  const isStatus = (value: unknown) => Number.isInteger(value) && (value as number) >= 400;
  return (
    (status === 'boot' || isStatus(status)) &&
    typeof message === 'string' &&
    (statuses === undefined || (Array.isArray(statuses) && statuses.every(isStatus)))
  );
}

function checkedCatalog(catalog: unknown): void {
  if (catalog === undefined) return;
  const valid =
    catalog !== null &&
    typeof catalog === 'object' &&
    !Array.isArray(catalog) &&
    Object.values(catalog).every(isCatalogEntry);
  if (!valid) {
    throw invalidOption(
      OWNER,
      'catalog',
      'an error catalog { CODE: { status, message } } (generated/errors.ts)',
    );
  }
}

function checkedOptions(options: OpenapiPluginOptions): string {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(OWNER);
  rejectUnknownOptions(options, KNOWN_OPTIONS, OWNER);
  checkedDocument(options.document);
  checkedInfo(options.info);
  checkedTags(options.tags);
  checkedCatalog(options.catalog);
  return literalRoutePath(OWNER, options.path ?? '/openapi.json');
}

export function openapiPlugin(options: OpenapiPluginOptions = {}): Plugin {
  const path = checkedOptions(options);
  let body: string | undefined;
  const route: Route = {
    method: 'GET',
    url: path,
    edge: true,
    meta: { etag: true },
    handler: (({ reply }: { reply: { header(name: string, value: string): unknown } }) => {
      reply.header('content-type', JSON_CONTENT_TYPE);
      return body;
    }) as Route['handler'],
  };
  return {
    name: 'svc:openapi',
    setup(app: App) {
      app.metadata.add('http:routes', route);
      app.metadata.add('app:urls', { label: 'OpenAPI', path });
      app.hooks.on('app:booted', () => {
        const routes = app.metadata.list('http:routes');
        const [idempotencyHeader] = app.metadata.list('idempotency:header');
        const modules = routeErrorModules(app.metadata.list('http:route-error-modules'));
        const onUnknownCode = (route: Route, code: string) =>
          app.logger.warn(UNKNOWN_DECLARED_CODE_MESSAGE, { method: route.method, route: route.url, code });
        body = JSON.stringify(
          finishDocument(options, {
            routes,
            name: app.name,
            version: app.version,
            idempotencyHeader,
            modules,
            onUnknownCode,
          }),
        );
      });
    },
  };
}
