// What every OpenAPI document svc writes says at the top level, whether `svc build` wrote it or a running
// server built it from its routes.
import type { OpenApiServer, OpenApiTag } from './types.js';

export const OPENAPI_VERSION = '3.1.0';
/** The OpenAPI 3.1 default dialect, stated so no tool has to guess. */
export const OAS_31_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/** Relative: the document describes the server that serves it, wherever that is deployed. */
export function relativeServers(): OpenApiServer[] {
  return [{ url: '/', description: 'The server this document is served from.' }];
}

/** The top-level tags: `names` in code-unit order, each with its description when one is known. */
export function describedTags(
  names: Iterable<string>,
  descriptions: ReadonlyMap<string, string>,
): OpenApiTag[] {
  return [...new Set(names)]
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => {
      const description = descriptions.get(name);
      return description === undefined ? { name } : { name, description };
    });
}
