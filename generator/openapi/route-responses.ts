// The statuses a route answers on purpose (its `response:` map), shared by openapi.json and client.ts so
// both read a spec without a success status the same way.
import type { ResponseIR, RouteIR } from '../../spec/ir.js';

export interface DeclaredResponse {
  status: number;
  /** The body schema, null when the status carries no body, or a stream of a media type. */
  schema: ResponseIR;
}

/**
 * The route's declared responses in ascending status order. A route that declares no success (2xx/3xx)
 * status answers 200 without a body, as routes.ts assumes (`successStatus` defaults to 200).
 */
export function declaredResponses(route: RouteIR): DeclaredResponse[] {
  const responses: DeclaredResponse[] = Object.entries(route.responses)
    .map(([status, schema]) => ({ status: Number(status), schema }))
    .filter((response) => Number.isInteger(response.status));
  if (!responses.some((response) => response.status >= 200 && response.status < 400)) {
    responses.push({ status: 200, schema: null });
  }
  return responses.sort((a, b) => a.status - b.status);
}

/** `/notes/:id` → `/notes/{id}`. */
export function openApiPath(path: string): string {
  return path.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}
