// Checks across routes: one route per method and path shape, unique MCP tool names, and MCP tools whose
// input (params + query + body merged into one flat object) is well defined and whose bodies are JSON.
import { isStreamResponse, type JsonSchema, type RouteIR } from '../../shared/ir.js';
import { toolInputClashes, type ToolInputPartName } from '../../shared/mcp-tool-input.js';
import { deriveToolName } from '../../shared/tool-name.js';
import { asMap, entry, type LoadContext } from './context.js';
import { pathShape } from '../../shared/path-template.js';
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

/**
 * A tool call carries JSON arguments and answers JSON or text content. Upload and raw bodies (streams of
 * bytes under byte limits) and streamed responses have no faithful representation there, so such routes
 * cannot be tools.
 */
function checkToolBytes(ctx: LoadContext, route: RouteIR, mcpNode: Node, tool: string): boolean {
  const path = ['routes', route.id, 'meta', 'mcp'];
  if (route.body?.kind === 'upload' || route.body?.kind === 'raw') {
    const what = route.body.kind === 'upload' ? 'an upload (multipart) body' : 'a raw body';
    ctx.problems.add(
      mcpNode.loc,
      path,
      `route '${route.id}' has ${what}, which an MCP tool '${tool}' cannot take: tool arguments are JSON`,
      'remove meta.mcp, or expose a JSON route for agents beside this one',
    );
    return false;
  }
  const streamed = Object.keys(route.responses).find((status) => isStreamResponse(route.responses[status]));
  if (streamed !== undefined) {
    ctx.problems.add(
      mcpNode.loc,
      path,
      `route '${route.id}' streams its ${streamed} response, which an MCP tool '${tool}' cannot return: tool results are JSON or text`,
      'remove meta.mcp, or expose a JSON route for agents beside this one',
    );
    return false;
  }
  return true;
}

function checkToolInput(ctx: LoadContext, route: RouteIR, mcpNode: Node, tool: string): void {
  if (!checkToolBytes(ctx, route, mcpNode, tool)) return;
  const path = ['routes', route.id, 'meta', 'mcp'];
  const parts: [ToolInputPartName, JsonSchema | undefined][] = [
    ['params', route.params],
    ['query', route.query],
  ];
  if (route.body?.kind === 'json') {
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
  const clashes = toolInputClashes(parts.map(([name, schema]) => ({ name, schema, requiredCounts: true })));
  for (const { property, first, second } of clashes) {
    ctx.problems.add(
      mcpNode.loc,
      path,
      `MCP tool '${tool}': property '${property}' is in both ${first} and ${second}; a tool takes one flat object`,
      `rename the ${second} property '${property}', or remove meta.mcp from '${route.id}'`,
    );
  }
}
