// A route that throws an error code it does not declare answers something its OpenAPI document and typed
// client do not know (the client reports UNEXPECTED_RESPONSE). The pipeline cannot refuse the answer, so it
// says so: one warning per route and code. Codes of svckit's own catalog (validation, auth, rate limit,
// idempotency, …) are the runtime's, never undeclared; a route without `errors` (a handwritten route() that
// lists none) declares nothing and is not checked. The pairs remembered are bounded: a handler that passes
// outside input into its codes (an upstream's error code) could otherwise grow the set without end, so past
// MAX_WARNED_PAIRS one last line says further ones go unreported (and a code is cut to MAX_CODE_LENGTH).
import { catalog as builtInCatalog } from '../../generated/modules/errors.js';
import { HttpError } from '../http/errors.js';
import type { Route } from '../http/types.js';
import type { Logger } from './logger.js';

export const UNDECLARED_ERROR_MESSAGE = 'route answered an error code it does not declare';
export const UNDECLARED_ERRORS_CAPPED_MESSAGE =
  'too many undeclared route error codes; further ones are not reported';
/** Route and code pairs warned about (and remembered) at most. */
export const MAX_WARNED_PAIRS = 1000;
/** Characters of a code remembered and logged: a code is a short name, the rest is cut. */
const MAX_CODE_LENGTH = 200;

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
    const code = String(error.code).slice(0, MAX_CODE_LENGTH);
    const key = `${route.method} ${route.url} ${code}`;
    if (warned.has(key) || warned.size > MAX_WARNED_PAIRS) return;
    if (warned.size === MAX_WARNED_PAIRS) {
      // One slot past the cap marks the notice as given; nothing is remembered after it.
      warned.add(key);
      logger.warn(UNDECLARED_ERRORS_CAPPED_MESSAGE, { limit: MAX_WARNED_PAIRS });
      return;
    }
    warned.add(key);
    logger.warn(UNDECLARED_ERROR_MESSAGE, {
      ...(route.id === undefined ? {} : { routeId: route.id }),
      method: route.method,
      route: route.url,
      code,
      declared: route.errors,
    });
  };
}
