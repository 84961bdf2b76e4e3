// The bench spec's routes, bound to handlers for only the ids given: each svc bench server mounts just the
// routes its bench loads, so the HTTP pairs serve the same two routes as their plain twins.
import { bindRoutes, type Route } from 'svckit';
import { routeDefinitions, type Handlers, type RouteId } from '../spec/generated/routes.js';

export function benchRoutes<Id extends RouteId>(handlers: Pick<Handlers, Id>): Route[] {
  const served = routeDefinitions.filter((definition) => Object.hasOwn(handlers, definition.id));
  return bindRoutes(served, handlers);
}
