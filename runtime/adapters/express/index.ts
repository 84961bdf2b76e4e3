// The Express adapter (`svckit/express`): an svc plugin that publishes its routes, runs the shared boot
// checks and mounts every route on an Express 5 router inside the application (a new one, or the
// application's own with its middleware). Everything HTTP-semantic lives in runtime/http; this maps Express
// onto it. Errors Express raises itself and the neutral 404/405 answer in svc's envelope from middleware
// mounted last, on `app:booted`.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { nonNegativeWholeNumber } from '../../config/whole-number.js';
import express, { Router, type Express, type NextFunction, type Request, type Response } from 'express';
import type { Server } from 'node:http';
import type { App, HttpServer, ListeningAddress, Plugin } from '../../app/app.js';
import { prepareHttp, publishRoutes, type AdapterOptions, type PreparedHttp } from '../../http/boot.js';
import { clientErrorListener } from '../../http/client-error.js';
import { SvcError } from '../../http/errors.js';
import { frameworkClientError } from '../../http/framework-errors.js';
import type { Pipeline } from '../../http/pipeline.js';
import { REQUEST_ID_HEADER, requestIdFrom } from '../../http/request-id.js';
import { originForm, pathOf } from '../../http/url.js';
import { mountRoutes } from './routes.js';
import { ExpressSvcReply, ExpressSvcRequest } from './request.js';
import { NodeServer } from '../node/server.js';
import { DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS } from '../../http/limits.js';

export { DEFAULT_BODY_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS };

export { captureRawBody } from './body.js';

export interface ExpressPluginOptions extends AdapterOptions {
  /**
   * An existing Express application to mount svc's routes on (default: a new one, with `x-powered-by`
   * off). Middleware it registered before boot keeps running in front of svc's routes, for example
   * `app.use(express.json({ verify: captureRawBody }))`; its `trust proxy` setting decides the client IP.
   * Routes it adds after boot come after svc's 404 handler, so add them before (or set `notFound: false`).
   */
  app?: Express;
  /**
   * Largest request body svc reads for its routes, in bytes (default 1048576): a larger declared
   * Content-Length is refused before reading, a longer stream is cut; both answer 413 PAYLOAD_TOO_LARGE.
   * Upload and raw-body routes have their own `maxBytes` instead. Bodies that the application's own parsers
   * read are bounded by those parsers' `limit`.
   */
  bodyLimit?: number;
  /**
   * Time the node server allows for receiving a whole request, in milliseconds (default 30000; 0 turns it
   * off). A request that takes longer answers 408 REQUEST_TIMEOUT.
   */
  requestTimeout?: number;
}

/** The keys expressPlugin() takes; any other is refused when the plugin is created. */
const EXPRESS_OPTIONS = optionKeys<ExpressPluginOptions>({
  routes: true,
  allowUnguardedMeta: true,
  notFound: true,
  onError: true,
  app: true,
  bodyLimit: true,
  requestTimeout: true,
});

/** Status an Express or body-parser error carries (`status`, or `statusCode`), if numeric. */
function statusOf(error: unknown): number | undefined {
  if (error === null || typeof error !== 'object') return undefined;
  const { status, statusCode } = error as { status?: unknown; statusCode?: unknown };
  if (typeof status === 'number') return status;
  return typeof statusCode === 'number' ? statusCode : undefined;
}

/**
 * An error that reached Express's error handling (router, body-parser, the application's middleware): a
 * client error answers its fixed code without its message; anything else answers 500 INTERNAL_ERROR.
 */
function normaliseExpressError(error: unknown): unknown {
  if (error instanceof SvcError) return error;
  const status = statusOf(error);
  return status !== undefined && status >= 400 && status < 500 ? frameworkClientError(status) : error;
}

/** The request id of a response svc did not route: the one already set, else by the inbound rule. */
function requestIdOf(req: Request, res: Response): string {
  const existing = res.getHeader(REQUEST_ID_HEADER);
  return typeof existing === 'string' ? existing : requestIdFrom(req.headers);
}

/** A response that broke off half-way cannot become an envelope any more: cut it. */
function cutUnfinished(res: Response): void {
  if (!res.writableEnded) res.destroy();
}

/**
 * Errors from Express, body-parser or the application's middleware. The request hooks run first, as on every
 * answer (secure headers, the global rate limit), unless a response is already under way: then the error is
 * only reported.
 */
function errorMiddleware(pipeline: Pipeline) {
  return function svcErrorHandler(error: unknown, req: Request, res: Response, _next: NextFunction): void {
    const reply = new ExpressSvcReply(res, req.method, 500);
    const requestId = requestIdOf(req, res);
    const failure = normaliseExpressError(error);
    const context = pipeline.createContext(req.headers, requestId);
    // handleUnrouted sets the request id, answers (or only reports, once a response is under way) and never
    // rejects.
    const pending = pipeline.handleUnrouted(new ExpressSvcRequest(req, undefined, context), reply, failure);
    if (pending === undefined) cutUnfinished(res);
    else void pending.then(() => cutUnfinished(res));
  };
}

/** The neutral 404, or 405 with `Allow` when the path exists for other methods. */
function notFoundMiddleware(prepared: PreparedHttp) {
  return function svcNotFound(req: Request, res: Response): void {
    const reply = new ExpressSvcReply(res, req.method, 404);
    const error = prepared.table.unroutedError(pathOf(originForm(req.url)), reply);
    const context = prepared.pipeline.createContext(req.headers, requestIdOf(req, res));
    // Request hooks (security headers, CORS preflights) run here too; handleUnrouted never rejects.
    void prepared.pipeline.handleUnrouted(new ExpressSvcRequest(req, undefined, context), reply, error);
  };
}

function newApplication(): Express {
  const application = express();
  // svc's other adapters do not announce themselves either.
  application.disable('x-powered-by');
  return application;
}

class ExpressAdapter implements Plugin, HttpServer {
  readonly name = 'svc:express';
  private readonly options: ExpressPluginOptions;
  private readonly bodyLimit: number;
  private readonly nodeServer: NodeServer;
  private application: Express | undefined;
  private pipeline: Pipeline | undefined;

  constructor(options: ExpressPluginOptions) {
    rejectUnknownOptions(options, EXPRESS_OPTIONS, 'expressPlugin()');
    if (options.app !== undefined && typeof options.app !== 'function') {
      throw invalidOption('expressPlugin()', 'app', 'an Express application');
    }
    this.options = options;
    const owner = 'expressPlugin()';
    this.bodyLimit = nonNegativeWholeNumber(
      options.bodyLimit,
      DEFAULT_BODY_LIMIT,
      owner,
      'bodyLimit',
      'bytes',
    );
    this.nodeServer = new NodeServer(
      'Express',
      nonNegativeWholeNumber(
        options.requestTimeout,
        DEFAULT_REQUEST_TIMEOUT_MS,
        owner,
        'requestTimeout',
        'milliseconds',
      ),
    );
  }

  /** The Express application, once the app has booted. */
  get express(): Express {
    if (!this.application)
      throw new Error('The Express application exists only after app.boot() (or app.listen()).');
    return this.application;
  }

  setup(app: App): void {
    publishRoutes(app, this.options, 'expressPlugin()');
    app.setServer(this);
  }

  boot(app: App): void {
    const prepared = prepareHttp(app, this.options);
    const application = this.options.app ?? newApplication();
    // svc's routing conventions hold whatever the application's own routing settings say.
    const router = Router({ caseSensitive: true, strict: true });
    mountRoutes(router, prepared, this.bodyLimit);
    application.use(router);
    this.application = application;
    this.pipeline = prepared.pipeline;
    app.hooks.on('app:booted', () => {
      if (this.options.notFound !== false) application.use(notFoundMiddleware(prepared));
      application.use(errorMiddleware(prepared.pipeline));
    });
  }

  /** The node:http server while listening, else undefined. */
  get server(): Server | undefined {
    return this.nodeServer.current;
  }

  async listen(options: { port: number; host: string }): Promise<ListeningAddress> {
    const application = this.express;
    const clientErrors = clientErrorListener(this.pipeline as Pipeline);
    const address = await this.nodeServer.listen(application, options, clientErrors);
    return { ...address, adapter: 'express' };
  }

  close(): Promise<void> {
    return this.nodeServer.close();
  }
}

/** The type of what expressPlugin() returns: an svc plugin exposing the Express application after boot. */
export interface ExpressAdapterPlugin extends Plugin {
  /** The Express application; throws before boot. */
  readonly express: Express;
  /** The node:http server while listening (after app.listen()), else undefined. */
  readonly server: Server | undefined;
}

/**
 * The Express adapter plugin: `createApp().register(expressPlugin({ routes }))`. Options: routes,
 * allowUnguardedMeta, notFound, onError, app (an existing Express application), bodyLimit, requestTimeout.
 */
export function expressPlugin(options: ExpressPluginOptions = {}): ExpressAdapterPlugin {
  return new ExpressAdapter(options);
}
