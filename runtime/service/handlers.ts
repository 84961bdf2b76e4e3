// Which handler answers each route of the spec. A route the app has no handler for answers 501
// NOT_IMPLEMENTED outside production, so adding a route to the spec never takes a running development
// service down (the type-checker names the missing handler meanwhile); a production start refuses the
// service instead (HANDLERS_MISSING), listing every route left without one.
import { errors } from '../../generated/modules/errors.js';
import { isProductionEnv } from '../config/node-env.js';
import { handlerOf, type RouteDefinition } from '../http/route.js';

/** Route ids of `definitions` whose handler is missing from `handlers` (or is not a function). */
export function missingHandlers(definitions: readonly RouteDefinition[], handlers: object): string[] {
  return definitions.map((definition) => definition.id).filter((id) => handlerOf(handlers, id) === undefined);
}

/**
 * `handlers` with a NOT_IMPLEMENTED stand-in for each missing route, or HANDLERS_MISSING in production.
 * The app's own object is left as it is: its methods stay bound to it.
 */
export function completeHandlers(
  definitions: readonly RouteDefinition[],
  handlers: object,
  nodeEnv: string | undefined,
): object {
  const missing = missingHandlers(definitions, handlers);
  if (missing.length === 0) return handlers;
  if (isProductionEnv(nodeEnv)) {
    throw errors.HANDLERS_MISSING({
      message: `No handler for route${missing.length === 1 ? '' : 's'} ${missing.join(', ')}: pass one per route of the spec to createService({ handlers }).`,
      details: { routes: missing },
    });
  }
  const complete: Record<string, unknown> = {};
  for (const { id } of definitions) {
    complete[id] = handlerOf(handlers, id)?.bind(handlers) ?? notImplemented(id);
  }
  return complete;
}

function notImplemented(id: string): () => never {
  return () => {
    throw errors.NOT_IMPLEMENTED({
      message: `Route ${id} has no handler yet: add handlers.${id}.`,
      expose: true,
    });
  };
}
