// The neutral request over a Hono context. On @hono/node-server the node request (`c.env.incoming`) is read
// directly: its headers record, URL and socket already exist, which is cheaper than going through the web
// Request. Elsewhere (Bun, Deno, Workers, app.fetch in tests) everything is derived from the web Request.
// Getters are lazy, so a route pays only for the fields it touches.
import type { Context } from 'hono';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { ReadableStream as NodeWebReadableStream } from 'node:stream/web';
import { bodyKindOf, type BodyKind } from '../../http/body.js';
import { parseFormEncoded } from '../../http/query.js';
import { CORRELATION_ID_HEADER, REQUEST_ID_HEADER } from '../../http/request-id.js';
import { originForm, pathOf } from '../../http/url.js';
import type { HttpMethod, RequestContext, RequestHeaders, SvcRequest } from '../../http/types.js';

/** What the request needs to know about the route it is on (computed once, at boot). */
export interface RouteFacts {
  /** The route template (`/notes/:id`); undefined for a request no route matched. */
  readonly pattern: string | undefined;
  /** The template has path parameters; without any, Hono's request object is never needed for them. */
  readonly hasParams: boolean;
  /** An upload or raw-body route: the body is left unread and exposed as `bodyStream`. */
  readonly streamedBody: boolean;
}

/** Resolves `request.ip` for one request: the plugin's `getClientIp`, or its default. */
export type ClientIpSource = (context: Context, incoming: IncomingMessage | undefined) => string | undefined;

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** The node request and response @hono/node-server passes as `c.env`. */
export interface NodeBindings {
  incoming: IncomingMessage;
  outgoing: ServerResponse;
}

/** `c.env` when running on @hono/node-server, else undefined. */
export function nodeBindingsOf(context: Context): NodeBindings | undefined {
  const env = context.env as { incoming?: unknown } | undefined;
  return env?.incoming instanceof Readable ? (env as NodeBindings) : undefined;
}

/** Web headers as node delivers them: lower-cased names, repeated values joined, set-cookie as a list. */
export function headerRecordOf(headers: Headers): RequestHeaders {
  const record = Object.create(null) as Record<string, string | string[]>;
  headers.forEach((value, name) => {
    record[name] = value;
  });
  if (record['set-cookie'] !== undefined) record['set-cookie'] = headers.getSetCookie();
  return record as RequestHeaders;
}

/** Only the headers the request context reads (ids), without copying every header of a web request. */
export function idHeadersOf(headers: Headers): RequestHeaders {
  return {
    [REQUEST_ID_HEADER]: headers.get(REQUEST_ID_HEADER) ?? undefined,
    [CORRELATION_ID_HEADER]: headers.get(CORRELATION_ID_HEADER) ?? undefined,
  };
}

/** The origin-form target of the request (`/path?query`). */
export function targetOf(context: Context, incoming: IncomingMessage | undefined): string {
  return originForm(incoming?.url ?? context.req.raw.url);
}

export class HonoSvcRequest implements SvcRequest {
  readonly routePattern: string | undefined;
  readonly context: RequestContext;
  /** The Hono context, for code that needs what the neutral request does not carry. */
  readonly raw: Context;
  /** The parsed body, set by the adapter once read. */
  body: unknown = undefined;
  /** Body bytes Hono middleware already read (its body cache), on upload and raw routes. */
  capturedBody: Buffer | undefined = undefined;
  private readonly incoming: IncomingMessage | undefined;
  private readonly ipSource: ClientIpSource;
  private readonly route: RouteFacts;
  private urlCache: string | undefined = undefined;
  private headersCache: RequestHeaders | undefined = undefined;
  private queryCache: Record<string, string | string[]> | undefined = undefined;
  private paramsCache: Record<string, string> | undefined = undefined;
  private ipCache: { value: string | undefined } | undefined = undefined;
  private streamCache: { value: Readable | undefined } | undefined = undefined;

  constructor(
    raw: Context,
    incoming: IncomingMessage | undefined,
    route: RouteFacts,
    context: RequestContext,
    ipSource: ClientIpSource,
  ) {
    this.raw = raw;
    this.incoming = incoming;
    this.route = route;
    this.routePattern = route.pattern;
    this.context = context;
    this.ipSource = ipSource;
  }

  get method(): HttpMethod {
    return (this.incoming?.method ?? this.raw.req.method) as HttpMethod;
  }

  get url(): string {
    return (this.urlCache ??= targetOf(this.raw, this.incoming));
  }

  get path(): string {
    return pathOf(this.url);
  }

  get headers(): RequestHeaders {
    const incoming = this.incoming;
    if (incoming !== undefined) return incoming.headers;
    return (this.headersCache ??= headerRecordOf(this.raw.req.raw.headers));
  }

  get ip(): string | undefined {
    return (this.ipCache ??= { value: this.ipSource(this.raw, this.incoming) }).value;
  }

  get query(): Record<string, string | string[]> {
    let query = this.queryCache;
    if (query === undefined) {
      const url = this.url;
      const mark = url.indexOf('?');
      query = parseFormEncoded(mark === -1 ? '' : url.slice(mark + 1));
      this.queryCache = query;
    }
    return query;
  }

  get params(): Record<string, string> {
    let params = this.paramsCache;
    if (params === undefined) {
      if (!this.route.hasParams) return NO_PARAMS;
      // Hono decodes each value (percent-encoding, once); the adapter refused malformed encodings already.
      const decoded = this.raw.req.param() as Record<string, string>;
      params = NO_PARAMS;
      for (const _key in decoded) {
        params = Object.assign(Object.create(null), decoded) as Record<string, string>;
        break;
      }
      this.paramsCache = params;
    }
    return params;
  }

  get bodyKind(): BodyKind | undefined {
    if (this.body === undefined) return undefined;
    const incoming = this.incoming;
    return bodyKindOf(
      incoming !== undefined
        ? incoming.headers['content-type']
        : (this.raw.req.raw.headers.get('content-type') ?? undefined),
    );
  }

  /**
   * The unread body on upload and raw routes: the node request itself on @hono/node-server, else a node
   * Readable over the web body. Undefined once something (Hono middleware) consumed it.
   */
  get bodyStream(): Readable | undefined {
    if (!this.route.streamedBody) return undefined;
    return (this.streamCache ??= { value: this.unreadBody() }).value;
  }

  private unreadBody(): Readable | undefined {
    const incoming = this.incoming;
    if (incoming !== undefined) return incoming.readableDidRead ? undefined : incoming;
    const request = this.raw.req.raw;
    if (request.bodyUsed) return undefined;
    const body = request.body;
    if (body === null) return Readable.from([]);
    return Readable.fromWeb(body as unknown as NodeWebReadableStream<Uint8Array>);
  }
}
