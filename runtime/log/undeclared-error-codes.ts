// A route that throws an error code it does not declare answers something its OpenAPI document and typed
// client do not know (the client reports UNEXPECTED_RESPONSE). The pipeline cannot refuse the answer, so it
// says so: one warning per route and code. Codes of svckit's own catalog (validation, auth, rate limit,
// idempotency, …) are the runtime's, never undeclared; a route without `errors` (a handwritten route() that
// lists none) declares nothing and is not checked.
import { catalog as builtInCatalog } from '../../generated/modules/errors.js';
import { HttpError } from '../http/errors.js';
import type { Route } from '../http/types.js';
import type { Logger } from './logger.js';

export const UNDECLARED_ERROR_MESSAGE = 'route answered an error code it does not declare';

/** Whether `route` answering `error` breaks its declaration: an application code not in its `errors`. */
export function isUndeclaredErrorCode(route: Route, error: unknown): error is HttpError {
  if (!(error instanceof HttpError) || route.errors === undefined) return false;
  return !route.errors.includes(error.code) && !Object.hasOwn(builtInCatalog, error.code);
}

/** The pipeline's check for an error a route answers: warns through `logger` once per route and code. */
export function undeclaredErrorWarning(logger: Logger): (route: Route, error: unknown) => void {
  const warned = new Set<string>();
  return (route, error) => {
    if (!isUndeclaredErrorCode(route, error)) return;
    const key = `${route.method} ${route.url} ${error.code}`;
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(UNDECLARED_ERROR_MESSAGE, {
      ...(route.id === undefined ? {} : { routeId: route.id }),
      method: route.method,
      route: route.url,
      code: error.code,
      declared: route.errors,
    });
  };
}
