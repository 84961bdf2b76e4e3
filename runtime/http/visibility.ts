// Route visibility: side-effect-free checks that hide routes a caller cannot
// use from listings (tool lists). Visibility is never authorization: guards still run on every call.
import type { RequestContext, Route, RouteVisibilityCheck } from './types.js';

/** True when every check lets the caller see the route. A check that throws hides it (fail closed). */
export function isRouteVisible(
  route: Route,
  context: RequestContext,
  checks: readonly RouteVisibilityCheck[],
): boolean {
  for (const check of checks) {
    try {
      if (!check.isVisible(route, context)) return false;
    } catch {
      return false;
    }
  }
  return true;
}
