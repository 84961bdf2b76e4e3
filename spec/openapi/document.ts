// What every OpenAPI document svc writes says at the top level, whether `svc build` wrote it or a running
// server built it from its routes.
import type { OpenApiServer } from './types.js';

export const OPENAPI_VERSION = '3.1.0';
/** The OpenAPI 3.1 default dialect, stated so no tool has to guess. */
export const OAS_31_DIALECT = 'https://spec.openapis.org/oas/3.1/dialect/base';

/** Relative: the document describes the server that serves it, wherever that is deployed. */
export function relativeServers(): OpenApiServer[] {
  return [{ url: '/', description: 'The server this document is served from.' }];
}
