// The Fastify adapter (`svckit/fastify`): an svc plugin that publishes its routes, runs the shared boot
// checks, creates the Fastify instance with svc's parsers, ids and error handling, and mounts every route
// through its specialised pipeline. Everything HTTP-semantic lives in runtime/http; this maps Fastify onto it.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { urlOf } from '../node/listen.js';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyHttpOptions,
  type FastifyHttpsOptions,
} from 'fastify';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { App, HttpServer, ListeningAddress, Plugin } from '../../app/app.js';
import { parseBody } from '../../http/body.js';
import { prepareHttp, publishRoutes, type AdapterOptions, type PreparedHttp } from '../../http/boot.js';
import { clientErrorListener } from '../../http/client-error.js';
import { headFromGet } from '../../http/route-table.js';
import { SvcError } from '../../http/errors.js';
import { frameworkClientError } from '../../http/framework-errors.js';
import type { CompiledRoute, Pipeline } from '../../http/pipeline.js';
import { parseFormEncoded } from '../../http/query.js';
import { requestIdFrom } from '../../http/request-id.js';
import { originForm, pathOf } from '../../http/url.js';
import { FastifySvcReply, FastifySvcRequest } from './request.js';
import { fastifyPath } from './path.js';
import { closeDraining } from './close.js';
import { templateParameterNames } from '../../../shared/path-template.js';
import { DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/limits.js';

export { DEFAULT_REQUEST_TIMEOUT_MS };

export interface FastifyPluginOptions extends AdapterOptions {
  /**
   * Fastify's own server options (default {}): bodyLimit, trustProxy (for the real client IP), logger, https...
   * svc owns the query parser, request ids, client/framework error handling and the routing conventions
   * (case-sensitive, no trailing-slash alias); those settings are replaced.
   */
  fastify?: FastifyHttpOptions<Server> | FastifyHttpsOptions<HttpsServer>;
}

/** The keys fastifyPlugin() takes; any other is refused when the plugin is created. */
const FASTIFY_OPTIONS = optionKeys<FastifyPluginOptions>({
  routes: true,
  allowUnguardedMeta: true,
  notFound: true,
  onError: true,
  fastify: true,
});

const CLIENT_GONE = new Set(['ECONNRESET', 'ECONNABORTED', 'ERR_STREAM_PREMATURE_CLOSE']);

/** A client error Fastify raised itself (body limit, bad content length, bad URL): answered by a fixed code. */
function isFrameworkClientError(error: FastifyError): boolean {
  const status = error.statusCode;
  if (typeof status !== 'number' || status < 400 || status > 499) return false;
  return typeof error.code === 'string' && (error.code.startsWith('FST_') || CLIENT_GONE.has(error.code));
}

function normaliseFrameworkError(error: FastifyError): unknown {
  if (error instanceof SvcError) return error;
  return isFrameworkClientError(error) ? frameworkClientError(error.statusCode as number) : error;
}

class FastifyAdapter implements Plugin, HttpServer {
  readonly name = 'svc:fastify';
  private readonly options: FastifyPluginOptions;
  private instance: FastifyInstance | undefined;

  constructor(options: FastifyPluginOptions) {
    rejectUnknownOptions(options, FASTIFY_OPTIONS, 'fastifyPlugin()');
    this.options = options;
  }

  /** The Fastify instance, once the app has booted. */
  get fastify(): FastifyInstance {
    if (!this.instance)
      throw new Error('The Fastify instance exists only after app.boot() (or app.listen()).');
    return this.instance;
  }

  setup(app: App): void {
    publishRoutes(app, this.options, 'fastifyPlugin()');
    app.setServer(this);
  }

  boot(app: App): void {
    const prepared = prepareHttp(app, this.options);
    const instance = this.createInstance(prepared.pipeline);
    const answersHead = headFromGet(prepared.routes.map((c) => c.route));
    const exposeHead = (compiled: CompiledRoute) => answersHead(compiled.route);
    const streamed = prepared.routes.filter(hasStreamedBody);
    for (const compiled of prepared.routes) {
      if (!hasStreamedBody(compiled)) mountRoute(instance, compiled, prepared.pipeline, exposeHead(compiled));
    }
    if (streamed.length > 0) {
      // Upload and raw routes live in their own scope whose only parser leaves the body unread: the
      // pipeline reads it after the guards, within the route's own limits (not Fastify's bodyLimit).
      void instance.register((scope, _options, done) => {
        scope.removeAllContentTypeParsers();
        scope.addContentTypeParser('*', (_request, _payload, next) => next(null, undefined));
        for (const compiled of streamed)
          mountRoute(scope, compiled, prepared.pipeline, exposeHead(compiled), true);
        done();
      });
    }
    this.instance = instance;
    if (this.options.notFound !== false) {
      app.hooks.on('app:booted', () => mountNotFound(instance, prepared));
    }
  }

  async listen(options: { port: number; host: string }): Promise<ListeningAddress> {
    const instance = this.fastify;
    await instance.listen({ port: options.port, host: options.host });
    const address = instance.server.address() as AddressInfo;
    const secure = (this.options.fastify as { https?: unknown } | undefined)?.https != null;
    return { url: urlOf(address, secure), host: address.address, port: address.port, adapter: 'fastify' };
  }

  async close(): Promise<void> {
    if (this.instance) await closeDraining(this.instance);
  }

  private createInstance(pipeline: Pipeline): FastifyInstance {
    const user = this.options.fastify ?? {};
    const options: FastifyHttpOptions<Server> = {
      requestTimeout: DEFAULT_REQUEST_TIMEOUT_MS,
      // Every response is svc's envelope, including while the server drains.
      return503OnClosing: false,
      ...user,
      requestIdHeader: false,
      genReqId: (request) => requestIdFrom(request.headers),
      clientErrorHandler: clientErrorListener(pipeline),
      frameworkErrors: (error, request, reply) => answerError(pipeline, error, request, reply),
      routerOptions: {
        ...user.routerOptions,
        caseSensitive: true,
        ignoreTrailingSlash: false,
        ignoreDuplicateSlashes: false,
        querystringParser: parseFormEncoded,
      },
    } as FastifyHttpOptions<Server>;
    // With `https` set Fastify serves TLS; the instance API svc uses is the same.
    const instance = Fastify(options);
    instance.removeAllContentTypeParsers();
    // One parser decides by the raw header (runtime/http/body.ts). It is also registered under the common
    // media types because Fastify caches parser lookups for those but not for the catch-all.
    instance.addContentTypeParser(
      ['application/json', 'application/x-www-form-urlencoded', 'text/plain', '*'],
      { parseAs: 'string' },
      (request, body, done) => {
        let parsed: unknown;
        try {
          parsed = parseBody(body as string, request.headers['content-type']);
        } catch (error) {
          done(error as Error, undefined);
          return;
        }
        done(null, parsed);
      },
    );
    instance.setErrorHandler((error: FastifyError, request, reply) =>
      answerError(pipeline, error, request, reply),
    );
    return instance;
  }
}

/**
 * Answers an error raised by Fastify outside a route's pipeline (body parsers and limits, the router, Fastify
 * hooks). The request hooks run first, as on every answer (secure headers, the global rate limit), unless a
 * response is already under way: then the error is only reported.
 */
function answerError(
  pipeline: Pipeline,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const sink = new FastifySvcReply(reply, 500);
  const failure = normaliseFrameworkError(error);
  const context = pipeline.createContext(request.headers, request.id);
  // The route whose body Fastify refused, when it is one of svc's (mountRoute keeps it in the route config).
  const config = request.routeOptions.config as Partial<SvcRouteConfig> | undefined;
  const compiled = config?.svcRoute;
  const svcRequest = new FastifySvcRequest(request, compiled?.route.url, context, false, config?.renamed);
  // Both set the request id, answer (or only report, once a response is under way) and never reject.
  if (compiled !== undefined) void compiled.refuse(svcRequest, sink, failure);
  else void pipeline.handleUnrouted(svcRequest, sink, failure);
}

/** What mountRoute keeps in a Fastify route's config: the compiled svc route and its parameter renames. */
interface SvcRouteConfig {
  svcRoute: CompiledRoute;
  renamed: ReturnType<typeof fastifyPath>['renamed'];
}

function hasStreamedBody(compiled: CompiledRoute): boolean {
  const kind = compiled.route.body?.kind;
  return kind === 'upload' || kind === 'raw';
}

function mountRoute(
  instance: FastifyInstance,
  compiled: CompiledRoute,
  pipeline: Pipeline,
  exposeHeadRoute: boolean,
  streamedBody = false,
): void {
  const route = compiled.route;
  const pattern = route.url;
  const successStatus = route.successStatus ?? 200;
  const handle = compiled.handle;
  // find-my-way lets `/notes/` match `/notes/:id` with an empty id; other routers do not, so neither do we.
  const hasParams = templateParameterNames(route.url).length > 0;
  const { path, renamed } = fastifyPath(route.url);
  instance.route({
    method: route.method,
    url: path,
    exposeHeadRoute,
    config: { svcRoute: compiled, renamed } satisfies SvcRouteConfig,
    handler(request, reply) {
      if (hasParams && hasEmptyParam(request.params as Record<string, string>)) {
        reply.callNotFound();
        return;
      }
      const context = pipeline.createContext(request.headers, request.id);
      // handle() answers every error itself and never rejects.
      void handle(
        new FastifySvcRequest(request, pattern, context, streamedBody, renamed),
        new FastifySvcReply(reply, successStatus),
      );
    },
  });
}

function hasEmptyParam(params: Record<string, string>): boolean {
  for (const key in params) if (params[key] === '') return true;
  return false;
}

/** The neutral 404, or 405 with `Allow` when the path exists for other methods. */
function mountNotFound(instance: FastifyInstance, prepared: PreparedHttp): void {
  instance.setNotFoundHandler((request, reply) => {
    const sink = new FastifySvcReply(reply, 404);
    const error = prepared.table.unroutedError(pathOf(originForm(request.url)), sink);
    const context = prepared.pipeline.createContext(request.headers, request.id);
    // Request hooks (security headers, CORS preflights) run here too; handleUnrouted never rejects.
    void prepared.pipeline.handleUnrouted(new FastifySvcRequest(request, undefined, context), sink, error);
  });
}

/** The type of what fastifyPlugin() returns: an svc plugin exposing the Fastify instance after boot. */
export interface FastifyAdapterPlugin extends Plugin {
  readonly fastify: FastifyInstance;
}

/**
 * The Fastify adapter plugin: `createApp().register(fastifyPlugin({ routes }))`. Options: routes,
 * allowUnguardedMeta, notFound, onError, fastify (native server options).
 */
export function fastifyPlugin(options: FastifyPluginOptions = {}): FastifyAdapterPlugin {
  return new FastifyAdapter(options);
}
