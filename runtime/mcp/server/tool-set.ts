// The tools an app exposes: one per route with `meta.mcp`, described by the tools document `svc build`
// writes (generated/mcp-tools.json) or, for a handwritten route the document does not know, derived here
// from the route's own schemas. Built once at boot; tools/list and tools/call read it.
import { templateParameterNames } from '../../../shared/path-template.js';
import { errors } from '../../../generated/modules/errors.js';
import { ToolInputClashError, toolInputSchema, type ToolInputPart } from '../../../shared/mcp-tool-input.js';
import { toolAnnotations } from '../../../shared/tool-annotations.js';
import { deriveToolName } from '../../../shared/tool-name.js';
import type { DetailsRedactor } from '../../http/envelope.js';
import type { CompiledRoute } from '../../http/pipeline.js';
import type { Route } from '../../http/types.js';
import type { Tool, ToolAnnotations, ToolInputSchema } from '../protocol/types.js';
import { isJsonObject } from '../protocol/json-rpc.js';

/** One tool of generated/mcp-tools.json. */
export interface McpToolDefinition {
  name: string;
  title?: string;
  description?: string;
  /** An object schema (`type: 'object'`, checked at boot); typed loosely so an imported JSON file fits. */
  inputSchema: { type: string; [keyword: string]: unknown };
  annotations?: ToolAnnotations;
  /** The route id the tool calls. */
  route: string;
}

/** What `svc build` writes to generated/mcp-tools.json. */
export interface McpToolsDocument {
  tools: readonly McpToolDefinition[];
}

export interface ToolEntry {
  /** What tools/list shows. */
  readonly tool: Tool;
  readonly route: Route;
  /** The route's pipeline for calls, compiled once at boot. */
  readonly compiled: CompiledRoute;
  /** Argument names that fill the path (`:id`) and the query string; every other argument is the body. */
  readonly paramNames: readonly string[];
  readonly queryNames: ReadonlySet<string>;
  /** Redactor for thrown errors' details: the route's `meta.mcp.redactErrorDetails`, else the plugin's. */
  readonly redact: DetailsRedactor | false;
}

/** Tools by name, in name order (tools/list answers in this order). */
export type ToolSet = ReadonlyMap<string, ToolEntry>;

function mcpMeta(
  route: Route,
): { name?: string; description?: string; redactErrorDetails?: unknown } | undefined {
  const value = route.meta.mcp;
  if (value === true) return {};
  if (typeof value === 'object' && value !== null) return value;
  return undefined;
}

function propertiesOf(schema: unknown): Record<string, unknown> {
  return isJsonObject(schema) && isJsonObject(schema.properties) ? schema.properties : {};
}

function queryNamesOf(route: Route): Set<string> {
  const names = new Set(Object.keys(propertiesOf(route.query?.schema)));
  for (const name of Object.keys(route.query?.coerce ?? {})) names.add(name);
  return names;
}

/** A handwritten route's tool: its params, query and body properties merged into one object schema. */
function derivedTool(route: Route, name: string, description: string | undefined): Tool {
  // The rule the generator applies too (shared/mcp-tool-input.ts): a property in two parts throws.
  const parts: ToolInputPart[] = [];
  // A part without a schema (a validate function alone) accepts what it does not name.
  if (route.params !== undefined)
    parts.push({ name: 'params', schema: route.params.schema ?? {}, requiredCounts: true });
  if (route.query !== undefined)
    parts.push({ name: 'query', schema: route.query.schema ?? {}, requiredCounts: true });
  if (route.body?.kind === 'json')
    parts.push({ name: 'body', schema: route.body.schema, requiredCounts: route.body.required !== false });
  const label = route.id ?? `${route.method} ${route.url}`;
  const inputSchema: ToolInputSchema = {
    ...toolInputSchema(label, parts, templateParameterNames(route.url)),
  };
  return {
    name,
    ...(route.meta.summary === undefined ? {} : { title: route.meta.summary }),
    description:
      description ?? route.meta.description ?? route.meta.summary ?? `${route.method} ${route.url}`,
    inputSchema,
    annotations: toolAnnotations(route.method),
  };
}

function publicTool(definition: McpToolDefinition): Tool {
  const tool: Tool = { name: definition.name, inputSchema: definition.inputSchema as ToolInputSchema };
  if (definition.title !== undefined) tool.title = definition.title;
  if (definition.description !== undefined) tool.description = definition.description;
  if (definition.annotations !== undefined) tool.annotations = definition.annotations;
  return tool;
}

function routeRedactor(route: Route, fallback: DetailsRedactor | false): DetailsRedactor | false {
  const value = mcpMeta(route)?.redactErrorDetails;
  if (value === false) return false;
  if (typeof value === 'function') return value as DetailsRedactor;
  return fallback;
}

function documentProblems(document: unknown): string[] {
  if (!isJsonObject(document) || !Array.isArray(document.tools))
    return ['the tools document has no tools array'];
  const problems: string[] = [];
  for (const [index, tool] of document.tools.entries()) {
    if (
      !isJsonObject(tool) ||
      typeof tool.name !== 'string' ||
      typeof tool.route !== 'string' ||
      !isJsonObject(tool.inputSchema) ||
      tool.inputSchema.type !== 'object'
    )
      problems.push(`tools[${index}] needs name, route and inputSchema`);
  }
  return problems;
}

/**
 * The app's tools (only those of `selected` routes when given). Refuses (MCP_TOOLS_INVALID) a document naming
 * a route that is not registered, two tools with one name, or something that is not a tools document: each
 * means generated/ is stale or mismatched.
 */
export function buildToolSet(
  routes: readonly Route[],
  document: McpToolsDocument | undefined,
  redactDefault: DetailsRedactor | false,
  compile: (route: Route) => CompiledRoute,
  selected?: ReadonlySet<Route>,
): ToolSet {
  const problems = document === undefined ? [] : documentProblems(document);
  if (problems.length > 0) throw errors.MCP_TOOLS_INVALID({ details: { problems } });
  const byRouteId = new Map(
    routes.filter((route) => route.id !== undefined).map((route) => [route.id, route]),
  );
  const entries: ToolEntry[] = [];
  const described = new Set<Route>();

  const add = (route: Route, tool: Tool) => {
    entries.push({
      tool,
      route,
      compiled: compile(route),
      paramNames: templateParameterNames(route.url),
      queryNames: queryNamesOf(route),
      redact: routeRedactor(route, redactDefault),
    });
  };

  for (const definition of document?.tools ?? []) {
    const route = byRouteId.get(definition.route);
    if (route === undefined) {
      problems.push(`tool ${definition.name} calls route ${definition.route}, which is not registered`);
      continue;
    }
    described.add(route);
    if (selected === undefined || selected.has(route)) add(route, publicTool(definition));
  }
  for (const route of routes) {
    const meta = mcpMeta(route);
    if (meta === undefined || described.has(route) || route.edge === true) continue;
    if (selected !== undefined && !selected.has(route)) continue;
    try {
      add(route, derivedTool(route, meta.name ?? deriveToolName(route.method, route.url), meta.description));
    } catch (error) {
      if (!(error instanceof ToolInputClashError)) throw error;
      problems.push(error.message);
    }
  }

  const set = new Map<string, ToolEntry>();
  for (const entry of entries.sort((a, b) =>
    a.tool.name < b.tool.name ? -1 : a.tool.name > b.tool.name ? 1 : 0,
  )) {
    if (set.has(entry.tool.name)) problems.push(`two tools are named ${entry.tool.name}`);
    set.set(entry.tool.name, entry);
  }
  if (problems.length > 0) throw errors.MCP_TOOLS_INVALID({ details: { problems } });
  return set;
}
