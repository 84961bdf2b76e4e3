// Checks across routes: one route per method and path shape, unique MCP tool names, and MCP tools whose
// input (params + query + body merged into one flat object) is well defined.
import type { JsonSchema, RouteIR } from '../ir.js';
import { deriveToolName } from '../tool-name.js';
import { asMap, entry, type LoadContext } from './context.js';
import { pathShape } from './route-path.js';
import { INCOMPLETE } from './routes.js';
import type { MapNode, Node } from './yaml-tree.js';

export function crossCheckRoutes(
  ctx: LoadContext,
  routes: readonly RouteIR[],
  routesNode: MapNode | undefined,
): void {
  const routeNode = (id: string) => asMap(entry(routesNode, id));
  const seenPaths = new Map<string, RouteIR>();
  const seenTools = new Map<string, RouteIR>();
  for (const route of routes) {
    if (INCOMPLETE.has(route)) continue;
    const node = routeNode(route.id);
    const shape = `${route.method} ${pathShape(route.path)}`;
    const previous = seenPaths.get(shape);
    const pathNode = entry(node, 'path');
    if (previous && pathNode) {
      const same = previous.path === route.path ? '' : ` (${previous.path})`;
      ctx.problems.add(
        pathNode.loc,
        ['routes', route.id, 'path'],
        `${route.method} ${route.path} is already routed by '${previous.id}'${same}`,
        'change the path or the method, or merge the two routes',
      );
    } else if (pathNode) seenPaths.set(shape, route);

    const mcp = route.meta.mcp;
    if (mcp === undefined || mcp === false) continue;
    const mcpNode = entry(asMap(entry(node, 'meta')), 'mcp');
    if (!mcpNode) continue;
    const name =
      typeof mcp === 'object' && typeof mcp.name === 'string'
        ? mcp.name
        : deriveToolName(route.method, route.path);
    const owner = seenTools.get(name);
    if (owner) {
      ctx.problems.add(
        mcpNode.loc,
        ['routes', route.id, 'meta', 'mcp'],
        `MCP tool name '${name}' is already used by route '${owner.id}'`,
        `set a unique name: mcp: { name: ${route.id.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)} }`,
      );
    } else seenTools.set(name, route);
    checkToolInput(ctx, route, mcpNode, name);
  }
}

function checkToolInput(ctx: LoadContext, route: RouteIR, mcpNode: Node, tool: string): void {
  const path = ['routes', route.id, 'meta', 'mcp'];
  const owners = new Map<string, string>();
  const parts: [string, JsonSchema | undefined][] = [
    ['params', route.params],
    ['query', route.query],
  ];
  if (route.body) {
    const body = ctx.deref(route.body.schema);
    if (body === undefined) return; // a broken resource, already reported
    if (typeof body !== 'object' || body.type !== 'object') {
      ctx.problems.add(
        mcpNode.loc,
        path,
        `MCP tool '${tool}' needs an object body, but the body of '${route.id}' is not an object schema`,
        'tools take one flat object: make the body { type: object, properties: ... }, or remove meta.mcp',
      );
      return;
    }
    parts.push(['body', body]);
  }
  for (const [part, schema] of parts) {
    const properties =
      typeof schema === 'object' && typeof schema.properties === 'object'
        ? Object.keys(schema.properties ?? {})
        : [];
    for (const property of properties) {
      const first = owners.get(property);
      if (first !== undefined) {
        ctx.problems.add(
          mcpNode.loc,
          path,
          `MCP tool '${tool}': property '${property}' is in both ${first} and ${part}; a tool takes one flat object`,
          `rename the ${part} property '${property}', or remove meta.mcp from '${route.id}'`,
        );
      } else owners.set(property, part);
    }
  }
}
