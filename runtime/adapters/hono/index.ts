// The Hono adapter (`svckit/hono`), svc's fetch-based adapter: an svc plugin that publishes its routes, runs
// the shared boot checks and mounts every route on a Hono app (yours or a new one). The app's fetch handler
// runs anywhere Hono runs (Bun, Deno, Workers: `plugin.fetch`); on Node, `app.listen()` serves it through
// @hono/node-server. Everything HTTP-semantic lives in runtime/http; this maps Hono onto it.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { nonNegativeWholeNumber } from '../../config/whole-number.js';
import { RequestError } from '@hono/node-server';
import { Hono, type Context, type Env, type Schema } from 'hono';
import type { BlankEnv } from 'hono/types';
import type { Server } from 'node:http';
import type { App, HttpServer, ListeningAddress, Plugin } from '../../app/app.js';
import { prepareHttp, publishRoutes, type AdapterOptions } from '../../http/boot.js';
import { clientErrorListener } from '../../http/client-error.js';
import { frameworkClientError } from '../../http/framework-errors.js';
import type { Pipeline } from '../../http/pipeline.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../../http/request-id.js';
import { honoNodeListener } from './listener.js';
import { routeOnTargetAsSent } from './path.js';
import { HonoSvcReply } from './reply.js';
import { NodeServer } from '../node/server.js';
import type { ClientIpSource } from './request.js';
import { mountErrorHandler, mountNotFound, mountRoutes, type Runtime } from './routes.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/limits.js';
import type { Logger } from '../../log/logger.js';

export { DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS };

export interface HonoPluginOptions<E extends Env = BlankEnv> extends AdapterOptions {
  /**
   * Your own Hono app (default a new one). Middleware registered on it before boot runs before svc's routes,
   * and headers it sets on the context go out with svc's answers; middleware added after boot runs only for
   * requests svc's routes do not answer. Your routes win over svc's on a tie. svc's routing conventions
   * (case-sensitive, no trailing-slash alias) are Hono's defaults; an app made with `strict: false` would
   * alias trailing slashes.
   */
  app?: Hono<E, Schema, string>;
  /**
   * Largest body read on JSON, form and text routes, in bytes (default DEFAULT_BODY_LIMIT). A declared
   * Content-Length over it is refused with 413 before reading; a streamed body is cut at the limit with 413.
   * Upload and raw-body routes have their own `maxBytes` instead.
   */
  bodyLimit?: number;
  /**
   * On Node (`app.listen()`): time the node server allows for receiving a whole request, in milliseconds
   * (default 30000; 0 turns it off). A request that takes longer answers 408 REQUEST_TIMEOUT.
   */
  requestTimeout?: number;
  /**
   * The client IP for `request.ip` (and so for rate limiting). Default: the socket address on
   * @hono/node-server. Elsewhere there is none without a resolver (e.g. Hono's `getConnInfo` for Bun or
   * Deno): `request.ip` is undefined, all clients share one rate-limit bucket, and a warning is printed
   * once through the app's logger the first time a request's IP is asked for.
   */
  getClientIp?: (context: Context<E>) => string | undefined;
  /**
   * true (default): errors raised outside svc's routes (Hono's own, thrown by middleware) answer svc's
   * neutral envelope through `app.onError`, replacing any handler set there. false leaves `app.onError` alone.
   */
  errorHandler?: boolean;
}

/** The keys honoPlugin() takes; any other is refused when the plugin is created. */
const HONO_OPTIONS = optionKeys<HonoPluginOptions>({
  routes: true,
  allowUnguardedMeta: true,
  notFound: true,
  onError: true,
  app: true,
  bodyLimit: true,
  requestTimeout: true,
  getClientIp: true,
  errorHandler: true,
});

const NO_IP_WARNING =
  'svc (hono): no client IP is available (not running on @hono/node-server and no getClientIp option), so ' +
  'request.ip is undefined and all clients share one rate-limit bucket. Pass getClientIp, e.g. with ' +
  "Hono's getConnInfo for your runtime.";

/** The default IP source: the node socket, else undefined with one warning per plugin. */
function defaultIpSource(logger: Logger): ClientIpSource {
  let warned = false;
  return (_context, incoming) => {
    if (incoming !== undefined) return incoming.socket?.remoteAddress;
    if (!warned) {
      warned = true;
      logger.warn(NO_IP_WARNING);
    }
    return undefined;
  };
}

class HonoAdapter<E extends Env> implements Plugin, HttpServer {
  readonly name = 'svc:hono';
  private readonly options: HonoPluginOptions<E>;
  private readonly bodyLimit: number;
  private instance: Hono<E, Schema, string> | undefined;
  private pipeline: Pipeline | undefined;
  private readonly nodeServer: NodeServer;

  constructor(options: HonoPluginOptions<E>) {
    rejectUnknownOptions(options, HONO_OPTIONS, 'honoPlugin()');
    const owner = 'honoPlugin()';
    const bodyLimit = nonNegativeWholeNumber(
      options.bodyLimit,
      DEFAULT_BODY_LIMIT,
      owner,
      'bodyLimit',
      'bytes',
    );
    const requestTimeout = nonNegativeWholeNumber(
      options.requestTimeout,
      DEFAULT_REQUEST_TIMEOUT_MS,
      owner,
      'requestTimeout',
      'milliseconds',
    );
    this.options = options;
    this.bodyLimit = bodyLimit;
    this.nodeServer = new NodeServer('Hono', requestTimeout);
  }

  /** The Hono app, once the app has booted. */
  get hono(): Hono<E, Schema, string> {
    if (!this.instance) throw new Error('The Hono app exists only after app.boot() (or app.listen()).');
    return this.instance;
  }

  /** The Hono app's fetch handler (Bun, Deno, Workers), once the app has booted. */
  get fetch(): Hono<E, Schema, string>['fetch'] {
    return this.hono.fetch;
  }

  /** The node server `listen()` started, while it runs. */
  get server(): Server | undefined {
    return this.nodeServer.current;
  }

  setup(app: App): void {
    publishRoutes(app, this.options, 'honoPlugin()');
    app.setServer(this);
  }

  boot(app: App): void {
    const prepared = prepareHttp(app, this.options);
    const hono = this.options.app ?? new Hono<E>();
    const untyped = hono as unknown as Hono;
    const resolver = this.options.getClientIp as ((context: Context) => string | undefined) | undefined;
    const runtime: Runtime = {
      pipeline: prepared.pipeline,
      ipSource: resolver === undefined ? defaultIpSource(app.logger) : (context) => resolver(context),
      bodyLimit: this.bodyLimit,
      throughContext: untyped.routes.length > 0,
    };
    if (this.options.errorHandler !== false) mountErrorHandler(untyped, runtime);
    routeOnTargetAsSent(untyped);
    mountRoutes(untyped, runtime, prepared.routes);
    this.pipeline = prepared.pipeline;
    this.instance = hono;
    if (this.options.notFound !== false) {
      app.hooks.on('app:booted', () => mountNotFound(untyped, runtime, prepared.table));
    }
  }

  async listen(options: { port: number; host: string }): Promise<ListeningAddress> {
    const hono = this.hono;
    const listener = honoNodeListener(hono.fetch, {
      hostname: options.host,
      onError: (error) => this.answerListenerError(error),
    });
    const clientErrors = clientErrorListener(this.pipeline as Pipeline);
    const address = await this.nodeServer.listen(listener, options, clientErrors);
    return { ...address, adapter: 'hono' };
  }

  close(): Promise<void> {
    return this.nodeServer.close();
  }

  /**
   * Errors @hono/node-server raised before Hono ran (a request it cannot turn into a web Request even with
   * hono-listener.ts's placeholders) or a fetch promise that rejected: the envelope instead of the server's
   * bare 400/500. No request object exists here, so the request hooks cannot run.
   */
  private answerListenerError(error: unknown): Response {
    const sink = new HonoSvcReply(undefined, 500, false, false, undefined);
    const requestId = requestIdFrom({});
    sink.header(REQUEST_ID_HEADER, requestId);
    const failure = error instanceof RequestError ? frameworkClientError(400) : error;
    return sink.answerWith(() =>
      this.pipeline?.sendError(failure, sink, { requestId, method: undefined, route: undefined }),
    );
  }
}

/** The type of what honoPlugin() returns: an svc plugin exposing the Hono app and its fetch after boot. */
export interface HonoAdapterPlugin<E extends Env = BlankEnv> extends Plugin {
  readonly hono: Hono<E, Schema, string>;
  readonly fetch: Hono<E, Schema, string>['fetch'];
  /** The node server `app.listen()` started, while it runs; undefined otherwise. */
  readonly server: Server | undefined;
}

/**
 * The Hono adapter plugin: `createApp().register(honoPlugin({ routes }))`. Options: routes,
 * allowUnguardedMeta, notFound, onError, app, bodyLimit, requestTimeout, getClientIp, errorHandler.
 */
export function honoPlugin<E extends Env = BlankEnv>(
  options: HonoPluginOptions<E> = {},
): HonoAdapterPlugin<E> {
  return new HonoAdapter<E>(options);
}
