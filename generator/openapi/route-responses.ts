// The statuses a route answers on purpose (its `response:` map), shared by openapi.json and client.ts so
// both read a spec without a success status the same way. The rule is spec/openapi/operation.ts.
import type { RouteIR } from '../../spec/ir.js';
import { declaredResponses as declared, type DeclaredResponse } from '../../spec/openapi/operation.js';

export { openApiPath, type DeclaredResponse } from '../../spec/openapi/operation.js';

/**
 * The route's declared responses in ascending status order. A route that declares no success (2xx/3xx)
 * status answers 200 without a body, as routes.ts assumes (`successStatus` defaults to 200).
 */
export function declaredResponses(route: RouteIR): DeclaredResponse[] {
  return declared(route.responses);
}
