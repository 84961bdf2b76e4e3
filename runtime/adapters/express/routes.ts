// svc's compiled routes on an Express router: one `all` layer per route template, which picks the route by
// method itself. That keeps Express from answering OPTIONS on its own (svc answers 405 with Allow), lets an
// application's HEAD route win over the HEAD answer of a GET route whichever comes first, and costs one
// layer per path instead of one per method. Per request: the neutral request and reply, the body by svc's
// rules (or what an application-wide parser left), then the route's pipeline.
import type { NextFunction, Request, Response, Router } from 'express';
import { errors } from '../../../generated/modules/errors.js';
import { bodyKindOf, parseBody } from '../../http/body.js';
import type { PreparedHttp } from '../../http/boot.js';
import { headFromGet } from '../../http/route-table.js';
import type { CompiledRoute, Pipeline } from '../../http/pipeline.js';
import { readBodyUpTo } from '../../http/body-reader.js';
import { announcesBody, parseContentLength, refuseDeclaredOverLimit } from '../../http/content-length.js';
import { bodyConsumed, bodyFromAppParser } from './body.js';
import { compareTemplateSpecificity } from '../../../shared/path-template.js';
import { expressPath } from './paths.js';
import { ExpressSvcReply, ExpressSvcRequest } from './request.js';

/** One route as the dispatcher needs it, resolved at boot. */
interface MountedRoute {
  readonly handle: CompiledRoute['handle'];
  readonly refuse: CompiledRoute['refuse'];
  readonly pattern: string;
  readonly successStatus: number;
  /** Upload and raw routes: the body is left unread for the pipeline. */
  readonly streamedBody: boolean;
}

type MethodTable = Record<string, MountedRoute | undefined>;

function mountedRoute(compiled: CompiledRoute): MountedRoute {
  const kind = compiled.route.body?.kind;
  return {
    handle: compiled.handle,
    refuse: compiled.refuse,
    pattern: compiled.route.url,
    successStatus: compiled.route.successStatus ?? 200,
    streamedBody: kind === 'upload' || kind === 'raw',
  };
}

/** Route templates → method → route; a GET route also answers HEAD as headFromGet decides. */
function methodTables(routes: readonly CompiledRoute[]): Map<string, MethodTable> {
  const answersHead = headFromGet(routes.map((c) => c.route));
  const tables = new Map<string, MethodTable>();
  for (const compiled of routes) {
    const { url, method } = compiled.route;
    let table = tables.get(url);
    if (table === undefined) tables.set(url, (table = Object.create(null) as MethodTable));
    const mounted = mountedRoute(compiled);
    table[method] = mounted;
    if (answersHead(compiled.route)) table.HEAD = mounted;
  }
  return tables;
}

/** Mounts every route of `prepared` on `router`, most specific template first. */
export function mountRoutes(router: Router, prepared: PreparedHttp, bodyLimit: number): void {
  const tables = methodTables(prepared.routes);
  const templates = [...tables.keys()].sort(compareTemplateSpecificity);
  const serve = server(prepared.pipeline, bodyLimit);
  for (const template of templates) {
    const table = tables.get(template) as MethodTable;
    let path: string;
    try {
      path = expressPath(template);
      router.all(path, dispatcher(table, serve));
    } catch (error) {
      throw errors.HTTP_ROUTE_INVALID({
        message: `Route path ${template} cannot be mounted on Express.`,
        cause: error,
      });
    }
  }
}

type Serve = (route: MountedRoute, req: Request, res: Response) => void;

function dispatcher(table: MethodTable, serve: Serve) {
  return function svcRoute(req: Request, res: Response, next: NextFunction): void {
    const route = table[req.method];
    // Another method of this path: let later templates try, then the 405 handler answer.
    if (route === undefined) next();
    else serve(route, req, res);
  };
}

function server(pipeline: Pipeline, bodyLimit: number): Serve {
  return function serve(route, req, res) {
    const request = new ExpressSvcRequest(req, route.pattern, pipeline.createContext(req.headers));
    const reply = new ExpressSvcReply(res, req.method, route.successStatus);
    const method = req.method;
    if (route.streamedBody) {
      // The pipeline reads the body after the guards; gone when the application's parser consumed it.
      if (!bodyConsumed(req)) request.bodyStream = req;
      void route.handle(request, reply);
      return;
    }
    if (method === 'GET' || method === 'HEAD' || !announcesBody(req.headers)) {
      void route.handle(request, reply);
      return;
    }
    // A body refused before the route ran: the request hooks still run for this route (secure headers, the
    // global rate limit, metrics), as on every answer; refuse sets the request id and never rejects.
    const fail = (error: unknown) => void route.refuse(request, reply, error);
    if (bodyConsumed(req)) {
      try {
        setBody(request, bodyFromAppParser(req));
      } catch (error) {
        fail(error);
        return;
      }
      void route.handle(request, reply);
      return;
    }
    try {
      refuseDeclaredOverLimit(parseContentLength(req.headers['content-length']), bodyLimit);
    } catch (error) {
      reply.header('connection', 'close');
      fail(error);
      return;
    }
    readBodyUpTo(req, bodyLimit).then(
      (bytes) => {
        try {
          setBody(request, parseBody(bytes.toString('utf8'), req.headers['content-type']));
        } catch (parseError) {
          fail(parseError);
          return;
        }
        void route.handle(request, reply);
      },
      (error: unknown) => {
        // A client that went away mid-body is not answered: nobody is left to read it.
        if (req.socket.destroyed) return;
        // The rest of an oversized body is never read: close the connection once answered.
        reply.header('connection', 'close');
        fail(error);
      },
    );
  };
}

function setBody(request: ExpressSvcRequest, value: unknown): void {
  if (value === undefined) return;
  request.body = value;
  request.bodyKind = bodyKindOf(request.headers['content-type']);
}
