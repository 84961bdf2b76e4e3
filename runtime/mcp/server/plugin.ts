// mcpPlugin: builds the app's tools at boot and the server that answers
// them, with its own pipeline over the same enrichers, guards and container as the HTTP routes (request
// hooks such as CORS or the global rate limit belong to the endpoint request, not to each call). The HTTP
// endpoint (mcpRoutes) and the stdio server find it in the app container, with the rate limiter a batch's
// messages are charged to.
import type { App, Plugin } from '../../app/app.js';
import type { Scope } from '../../app/container.js';
import { errors } from '../../../generated/modules/errors.js';
import type { DetailsRedactor } from '../../http/envelope.js';
import { createPipeline } from '../../http/pipeline.js';
import { redactSensitiveDetails } from '../../http/redact.js';
import { resolveReporter, type ErrorReporter } from '../../http/report.js';
import type { RouteVisibilityCheck } from '../../http/types.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { isRateLimitGuard, type RateLimitGuard } from '../../edge/rate-limit/limiter.js';
import type { Implementation } from '../protocol/types.js';
import { McpServer } from './server.js';
import { checkRouteSelectors, selectToolRoutes, type McpRouteSelector } from './tool-selection.js';
import { DEFAULT_FORWARDED_HEADERS } from './tool-request.js';
import { buildToolSet, type McpToolsDocument } from './tool-set.js';
import { mcpStdioServeMode } from './stdio-mode.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';

export interface McpPluginOptions {
  /**
   * Which routes become tools: route objects or route ids, each registered with the app and marked
   * `meta.mcp`. Default every registered route with `meta.mcp`.
   */
  routes?: readonly McpRouteSelector[];
  /** The tools document `svc build` writes (generated/mcp-tools.json); routes it lacks get derived tools. */
  tools?: McpToolsDocument;
  /** Name and version in the initialize result; default the app's name and version. */
  serverInfo?: Implementation;
  /** Headers a call inherits beyond DEFAULT_FORWARDED_HEADERS (names, any case). */
  forwardHeaders?: readonly string[];
  /** Filters thrown errors' details in results; default redactSensitiveDetails; false sends them as HTTP would. */
  redactErrorDetails?: DetailsRedactor | false;
  /** Receives 5xx errors of calls; default one JSON line on stderr; false silences. */
  reportError?: ErrorReporter | false;
  /** Sent in the initialize result: how an agent should use these tools. */
  instructions?: string;
}

/** What the endpoint and the stdio server use, provided in the app container once the app booted. */
export interface McpService {
  readonly server: McpServer;
  /** Lower-case names of the headers a call inherits. */
  readonly forwardHeaders: ReadonlySet<string>;
  readonly visibilityChecks: readonly RouteVisibilityCheck[];
  /** securityPlugin's limiter, which charges each message of a batch; undefined without it. */
  readonly rateLimiter: RateLimitGuard | undefined;
}

export const MCP_SERVICE = Symbol.for('svc:mcp');

/** The MCP service of the app `scope` belongs to, once booted; undefined without mcpPlugin. */
export function mcpService(scope: Scope | undefined): McpService | undefined {
  return scope?.get<McpService>(MCP_SERVICE);
}

const PLUGIN_OPTIONS = optionKeys<McpPluginOptions>({
  routes: true,
  tools: true,
  serverInfo: true,
  forwardHeaders: true,
  redactErrorDetails: true,
  reportError: true,
  instructions: true,
});
const SERVER_INFO_OPTIONS = ['name', 'version', 'title'];

function checkedOptions(options: McpPluginOptions): void {
  if (typeof options !== 'object' || options === null || Array.isArray(options))
    throw invalidOptions('mcpPlugin');
  rejectUnknownOptions(options, PLUGIN_OPTIONS, 'mcpPlugin');
  const { routes, forwardHeaders, redactErrorDetails, reportError, serverInfo, instructions } = options;
  if (routes !== undefined) checkRouteSelectors(routes);
  if (instructions !== undefined && typeof instructions !== 'string')
    throw invalidOption('mcpPlugin', 'instructions', 'a string');
  if (
    forwardHeaders !== undefined &&
    (!Array.isArray(forwardHeaders) || forwardHeaders.some((name) => typeof name !== 'string' || name === ''))
  )
    throw invalidOption('mcpPlugin', 'forwardHeaders', 'an array of header names');
  if (
    redactErrorDetails !== undefined &&
    redactErrorDetails !== false &&
    typeof redactErrorDetails !== 'function'
  )
    throw invalidOption('mcpPlugin', 'redactErrorDetails', 'false or a function');
  if (reportError !== undefined && reportError !== false && typeof reportError !== 'function')
    throw invalidOption('mcpPlugin', 'reportError', 'false or a function');
  if (serverInfo !== undefined) {
    if (
      typeof serverInfo !== 'object' ||
      serverInfo === null ||
      typeof serverInfo.name !== 'string' ||
      typeof serverInfo.version !== 'string'
    )
      throw invalidOption('mcpPlugin', 'serverInfo', '{ name: string, version: string }');
    rejectUnknownOptions(serverInfo, SERVER_INFO_OPTIONS, 'mcpPlugin: serverInfo');
  }
}

class McpPlugin implements Plugin {
  readonly name = 'svc:mcp';

  constructor(private readonly options: McpPluginOptions) {
    checkedOptions(options);
  }

  /** Offers `svc mcp`'s way to run the app (tools over stdio), which serve() picks by SVC_SERVE_MODE. */
  setup(app: App): void {
    app.metadata.add('app:serve-modes', mcpStdioServeMode);
  }

  boot(app: App): void {
    const { options } = this;
    const metadata = app.metadata;
    const pipeline = createPipeline({
      enrichers: metadata.list('http:enrichers'),
      guards: metadata.list('http:guards'),
      container: app.container,
      onError: false,
      logger: app.logger,
    });
    const routes = metadata.list('http:routes');
    const tools = buildToolSet(
      routes,
      options.tools,
      options.redactErrorDetails ?? redactSensitiveDetails,
      (route) => pipeline.compile(route),
      selectToolRoutes(routes, options.routes),
    );
    const reporter = resolveReporter(options.reportError, app.logger);
    const server = new McpServer({
      serverInfo: options.serverInfo ?? { name: app.name, version: app.version },
      tools,
      container: app.container,
      reporter,
      ...(options.instructions === undefined ? {} : { instructions: options.instructions }),
    });
    const forwardHeaders = new Set(DEFAULT_FORWARDED_HEADERS);
    for (const name of options.forwardHeaders ?? []) forwardHeaders.add(name.toLowerCase());
    for (const name of metadata.list('http:identity-headers')) forwardHeaders.add(name.toLowerCase());
    const service: McpService = {
      server,
      forwardHeaders,
      visibilityChecks: metadata.list('http:route-visibility'),
      rateLimiter: metadata.list('http:guards').find(isRateLimitGuard),
    };
    app.container.provide(MCP_SERVICE, service);
  }
}

/** The tool registry and server: `app.register(mcpPlugin({ tools: mcpTools }))`. Options are checked here. */
export function mcpPlugin(options: McpPluginOptions = {}): Plugin {
  return new McpPlugin(options);
}

/** The MCP service of a booted app; MCP_NOT_CONFIGURED without mcpPlugin. */
export function requireMcpService(scope: Scope | undefined): McpService {
  const service = mcpService(scope);
  if (service === undefined) throw errors.MCP_NOT_CONFIGURED();
  return service;
}
