// `openapiPlugin({ document })`: serves the OpenAPI document `svc build` generated, at GET /openapi.json, as a
// public edge route (seed 001 "Edge routes"). The document is finished (info and tags applied) and
// serialised once, at app:booted; every request sends the same bytes, with an ETag.
import type { App, Plugin } from '../../app/app.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
import type { Route } from '../../http/types.js';

export interface OpenApiTag {
  name: string;
  description?: string;
}

export interface OpenapiPluginOptions {
  /** The OpenAPI document, usually `generated/openapi.json` (import it with `with { type: 'json' }`). */
  document: Readonly<Record<string, unknown>>;
  /** Replaces `info.title` / `info.version` of the document. */
  info?: { title?: string; version?: string };
  /** Replaces the document's top-level `tags`. */
  tags?: readonly OpenApiTag[];
  /** Where it is served (default `/openapi.json`). */
  path?: string;
}

/** The document with the plugin's `info` and `tags` applied; the input is not changed. */
export function finishDocument(options: OpenapiPluginOptions): Record<string, unknown> {
  const document: Record<string, unknown> = structuredClone(options.document) as Record<string, unknown>;
  if (options.info !== undefined) {
    const info = (document.info ?? {}) as Record<string, unknown>;
    document.info = { ...info, ...options.info };
  }
  if (options.tags !== undefined) document.tags = options.tags.map((tag) => ({ ...tag }));
  return document;
}

function checkedOptions(options: OpenapiPluginOptions): string {
  const document: unknown = options?.document;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new TypeError(
      'openapiPlugin(): document must be the OpenAPI document object (generated/openapi.json).',
    );
  }
  if (typeof (document as { openapi?: unknown }).openapi !== 'string') {
    throw new TypeError(
      'openapiPlugin(): document has no "openapi" version field; pass generated/openapi.json.',
    );
  }
  const path = options.path ?? '/openapi.json';
  if (!path.startsWith('/') || path.includes(':') || path.includes('*')) {
    throw new TypeError('openapiPlugin(): path must be a literal path starting with "/".');
  }
  return path;
}

export function openapiPlugin(options: OpenapiPluginOptions): Plugin {
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
        body = JSON.stringify(finishDocument(options));
      });
    },
  };
}
