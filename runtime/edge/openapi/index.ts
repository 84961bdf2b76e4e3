// `openapiPlugin({ document?, info?, tags?, path? })`: GET /openapi.json, a public edge route (seed 001 "Edge
// routes") describing what this server serves. The document is built once, at app:booted, from the
// registered routes (served-document.ts) and serialised then; every request sends the same bytes, with an
// ETag.
import type { App, Plugin } from '../../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
import type { Route } from '../../http/types.js';
import type { OpenApiTag } from '../../../shared/openapi/types.js';
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
}

const KNOWN_OPTIONS = optionKeys<OpenapiPluginOptions>({
  document: true,
  info: true,
  tags: true,
  path: true,
});
const OWNER = 'openapiPlugin()';

/**
 * The document the plugin serves for `registered` routes. Without them (a document checked outside a
 * server), the given document as written with `info` and `tags` applied.
 */
export function finishDocument(
  options: OpenapiPluginOptions,
  registered?: { routes: readonly Route[]; name?: string; version?: string; idempotencyHeader?: string },
): Record<string, unknown> {
  const { document, info, tags } = options;
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
    idempotencyHeader: registered?.idempotencyHeader,
  });
}

function definedOnly(info: { title?: string; version?: string }): { title?: string; version?: string } {
  return Object.fromEntries(Object.entries(info).filter(([, value]) => value !== undefined));
}

function checkedDocument(document: unknown): void {
  if (document === undefined) return;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new TypeError(`${OWNER}: document must be the OpenAPI document object (generated/openapi.json).`);
  }
  if (typeof (document as { openapi?: unknown }).openapi !== 'string') {
    throw new TypeError(`${OWNER}: document has no "openapi" version field; pass generated/openapi.json.`);
  }
}

function checkedInfo(info: unknown): void {
  if (info === undefined) return;
  if (info === null || typeof info !== 'object' || Array.isArray(info))
    throw new TypeError(`${OWNER}: info must be { title?, version? }.`);
  rejectUnknownOptions(info, ['title', 'version'], `${OWNER} info`);
  for (const [key, value] of Object.entries(info))
    if (value !== undefined && (typeof value !== 'string' || value === ''))
      throw new TypeError(`${OWNER}: info.${key} must be a non-empty string.`);
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
  if (!valid) throw new TypeError(`${OWNER}: tags must be a list of { name, description? }.`);
}

function checkedOptions(options: OpenapiPluginOptions): string {
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`${OWNER}: options must be an object.`);
  rejectUnknownOptions(options, KNOWN_OPTIONS, OWNER);
  checkedDocument(options.document);
  checkedInfo(options.info);
  checkedTags(options.tags);
  const path = options.path ?? '/openapi.json';
  if (typeof path !== 'string' || !path.startsWith('/') || path.includes(':') || path.includes('*')) {
    throw new TypeError(`${OWNER}: path must be a literal path starting with "/".`);
  }
  return path;
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
        body = JSON.stringify(
          finishDocument(options, { routes, name: app.name, version: app.version, idempotencyHeader }),
        );
      });
    },
  };
}
