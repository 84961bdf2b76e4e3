// `mcpPlugin({ routes })`: which of the app's `meta.mcp` routes become tools. Entries are route
// objects or route ids; each must name a route registered with the app (so its boot checks ran) that opted
// in with `meta.mcp`, else boot is refused: a selection naming nothing usable is a mistake, not a no-op.
import { errors } from '../../../generated/modules/errors.js';
import type { Route } from '../../http/types.js';
import { invalidOption } from '../../config/option-errors.js';

/** A route object, or the id of one, as `mcpPlugin({ routes })` takes them. */
export type McpRouteSelector = Route | string;

function describe(selector: McpRouteSelector): string {
  return typeof selector === 'string' ? `route ${selector}` : `route ${selector.method} ${selector.url}`;
}

/** Type check at construction: an array of routes or route ids. */
export function checkRouteSelectors(value: unknown): void {
  if (
    !Array.isArray(value) ||
    value.some(
      (item) =>
        !(typeof item === 'string' && item !== '') &&
        !(typeof item === 'object' && item !== null && typeof (item as Route).url === 'string'),
    )
  )
    throw invalidOption('mcpPlugin', 'routes', 'an array of routes or route ids');
}

/** The registered routes `selectors` name; undefined selects them all. MCP_TOOLS_INVALID naming the misses. */
export function selectToolRoutes(
  registered: readonly Route[],
  selectors: readonly McpRouteSelector[] | undefined,
): ReadonlySet<Route> | undefined {
  if (selectors === undefined) return undefined;
  const byId = new Map(
    registered.filter((route) => route.id !== undefined).map((route) => [route.id, route]),
  );
  const known = new Set(registered);
  const selected = new Set<Route>();
  const problems: string[] = [];
  for (const selector of selectors) {
    const id = typeof selector === 'string' ? selector : selector.id;
    const route = typeof selector !== 'string' && known.has(selector) ? selector : byId.get(id);
    if (route === undefined) problems.push(`${describe(selector)} is not registered with the app`);
    else if (route.meta.mcp === undefined || route.meta.mcp === false)
      problems.push(`${describe(selector)} has no meta.mcp`);
    else selected.add(route);
  }
  if (problems.length > 0) throw errors.MCP_TOOLS_INVALID({ details: { problems } });
  return selected;
}
