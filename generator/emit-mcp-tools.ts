// mcp-tools.json: one agent tool per route with `meta.mcp`. A tool takes one flat object, so the route's
// params, query and body properties are merged into a single self-contained JSON Schema (2020-12).
import {
  isStreamResponse,
  type HttpMethod,
  type JsonSchema,
  type JsonSchemaObject,
  type RouteIR,
  type SpecIR,
} from '../shared/ir.js';
import { toolAnnotations, type MethodToolAnnotations } from '../shared/tool-annotations.js';
import { toolInputSchema, type ToolInputPart } from '../shared/mcp-tool-input.js';
import { deriveToolName } from '../shared/tool-name.js';
import { jsonHeader } from './emit-openapi.js';
import { apiSurface } from './modules.js';
import { mapRefs, reachableResources, resolveRootRef, resourceRefRewriter } from './openapi/schema-refs.js';

export type McpToolAnnotations = MethodToolAnnotations;

export interface McpToolInputSchema extends JsonSchemaObject {
  type: 'object';
  properties: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: false;
  $defs?: Record<string, JsonSchema>;
}

export interface McpToolSchema {
  name: string;
  title?: string;
  description: string;
  inputSchema: McpToolInputSchema;
  annotations: McpToolAnnotations;
  /** The route id: how the runtime maps a tool call back to its route. */
  route: string;
  method: HttpMethod;
  /** The route's path as written (`/notes/:id`). */
  path: string;
}

export interface McpToolsDocument {
  $comment: string;
  tools: McpToolSchema[];
}

const toDefsRef = resourceRefRewriter('#/$defs/');

/** Tools of the application's routes and of the routes of the modules it enables (apiSurface). */
export function emitMcpTools(appIr: SpecIR, options: { header: string }): McpToolsDocument {
  const ir = apiSurface(appIr);
  const tools = ir.routes.filter((route) => isTool(route)).map((route) => tool(route, ir));
  return { $comment: jsonHeader(options.header), tools };
}

function isTool(route: RouteIR): boolean {
  return route.meta.mcp === true || (typeof route.meta.mcp === 'object' && route.meta.mcp !== null);
}

function tool(route: RouteIR, ir: SpecIR): McpToolSchema {
  assertJsonOnly(route);
  const mcp = typeof route.meta.mcp === 'object' ? route.meta.mcp : {};
  const { summary } = route.meta;
  return {
    name: mcp.name ?? deriveToolName(route.method, route.path),
    ...(summary === undefined ? {} : { title: summary }),
    description: mcp.description ?? route.meta.description ?? summary ?? `${route.method} ${route.path}`,
    inputSchema: inputSchema(route, ir),
    annotations: toolAnnotations(route.method),
    route: route.id,
    method: route.method,
    path: route.path,
  };
}

/**
 * Tool arguments and results are JSON (or text): an upload or raw body, or a streamed response, has no
 * faithful form there. The spec loader refuses `meta.mcp` on such routes; this guards hand-built IR.
 */
function assertJsonOnly(route: RouteIR): void {
  if (route.body !== undefined && route.body.kind !== 'json') {
    throw new Error(`route ${route.id}: an ${route.body.kind} body cannot be an MCP tool's input`);
  }
  for (const [status, response] of Object.entries(route.responses)) {
    if (isStreamResponse(response))
      throw new Error(`route ${route.id}: its streamed ${status} response cannot be an MCP tool's result`);
  }
}

/**
 * params + query + body as one object (shared/mcp-tool-input.ts, the rule the runtime applies to handwritten
 * routes too). Only the body root's `properties`, `required` and `additionalProperties` carry over; other
 * root constraints (e.g. `minProperties`) stay with the route's own validators, which run on every tool call.
 */
function inputSchema(route: RouteIR, ir: SpecIR): McpToolInputSchema {
  const parts: ToolInputPart[] = [];
  if (route.params) parts.push({ name: 'params', schema: route.params, requiredCounts: true });
  if (route.query) parts.push({ name: 'query', schema: route.query, requiredCounts: true });
  if (route.body?.kind === 'json') {
    const resolved = resolveRootRef(route.body.schema, ir.resources);
    // An optional body may be left out entirely, so none of its properties can be required.
    parts.push({
      name: 'body',
      schema: typeof resolved === 'object' ? resolved : {},
      requiredCounts: route.body.required,
    });
  }
  const merged = toolInputSchema(route.id, parts, route.pathParams, (property) =>
    mapRefs(property as JsonSchema, toDefsRef),
  );
  const schema: McpToolInputSchema = {
    ...merged,
    properties: merged.properties as Record<string, JsonSchema>,
  };
  const written = parts.flatMap((part) => {
    const properties = (part.schema as JsonSchemaObject).properties;
    return typeof properties === 'object' && properties !== null
      ? (Object.values(properties) as JsonSchema[])
      : [];
  });
  // Found on the schemas as written: their refs still say which resource they mean.
  const defs = reachableResources({ anyOf: written }, ir.resources);
  if (defs.length > 0) {
    schema.$defs = {};
    for (const name of defs) {
      const resource = ir.resources.find((candidate) => candidate.name === name);
      if (!resource) throw new Error(`route ${route.id} refers to unknown resource ${name}`);
      schema.$defs[name] = mapRefs(resource.schema, toDefsRef);
    }
  }
  return schema;
}
