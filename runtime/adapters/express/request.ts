// The neutral request and reply over Express's. Getters read Express lazily, so a route pays only for the
// fields it touches. Headers live on the node response (so headers that Express middleware set with
// res.setHeader go out too, and node refuses a CR/LF value the moment it is set), and the response is
// written with one writeHead + end: res.send()/res.json() would compute an ETag and re-parse the content
// type, while svc has already serialised the body and sends an ETag only on `meta.etag` routes.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BaseReply } from '../../http/base-reply.js';
import type { Readable } from 'node:stream';
import type { BodyKind } from '../../http/body.js';
import { parseFormEncoded, queryStringOf } from '../../http/query.js';
import { originForm, pathOf } from '../../http/url.js';
import type { HttpMethod, ReplySink, RequestContext, RequestHeaders, SvcRequest } from '../../http/types.js';
import { capturedBodyOf } from './body.js';
import { WILDCARD_PARAM } from './paths.js';
import { writeNodeStream } from '../node/stream.js';
import { dropHeadersAfterRefusal, frameReply, frameStream, isHeaderError } from '../../http/reply-framing.js';

/** What svc reads from an Express request: node's request plus Express's `ip` and matched `params`. */
export interface ExpressRequestLike extends IncomingMessage {
  readonly ip?: string | undefined;
  params?: Record<string, string | string[]>;
}

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

/** Express's matched params as svc's: a null-prototype copy; a `*` wildcard's segments joined again. */
function paramsOf(matched: Record<string, string | string[]> | undefined): Record<string, string> {
  if (matched === undefined) return NO_PARAMS;
  let params: Record<string, string> | undefined;
  for (const key in matched) {
    const value = matched[key] as string | string[];
    params ??= Object.create(null) as Record<string, string>;
    params[key] =
      typeof value === 'string' ? value : key === WILDCARD_PARAM ? value.join('/') : String(value);
  }
  return params ?? NO_PARAMS;
}

export class ExpressSvcRequest implements SvcRequest {
  readonly routePattern: string | undefined;
  readonly context: RequestContext;
  /** The Express request, for code that needs what the neutral request does not carry. */
  readonly raw: ExpressRequestLike;
  /** Set by the adapter once it read (or took over) the body; undefined for none. */
  body: unknown = undefined;
  bodyKind: BodyKind | undefined = undefined;
  /** The unread request, on upload and raw routes only, and only while nothing consumed it. */
  bodyStream: Readable | undefined = undefined;
  // Express resets req.params when routing moves on; the route's own match is kept here.
  private readonly matchedParams: Record<string, string | string[]> | undefined;
  private paramsCopy: Record<string, string> | undefined = undefined;
  private queryCopy: Record<string, string | string[]> | undefined = undefined;

  constructor(raw: ExpressRequestLike, routePattern: string | undefined, context: RequestContext) {
    this.raw = raw;
    this.routePattern = routePattern;
    this.context = context;
    this.matchedParams = raw.params;
  }

  get method(): HttpMethod {
    return this.raw.method as HttpMethod;
  }

  get url(): string {
    return originForm(this.raw.url as string);
  }

  get path(): string {
    return pathOf(this.url);
  }

  get headers(): RequestHeaders {
    return this.raw.headers;
  }

  /** The socket address, or what Express derives from X-Forwarded-For when the app sets `trust proxy`. */
  get ip(): string | undefined {
    return this.raw.ip ?? this.raw.socket.remoteAddress;
  }

  get query(): Record<string, string | string[]> {
    return (this.queryCopy ??= parseFormEncoded(queryStringOf(this.raw.url as string)));
  }

  get params(): Record<string, string> {
    return (this.paramsCopy ??= paramsOf(this.matchedParams));
  }

  get capturedBody(): Buffer | undefined {
    return capturedBodyOf(this.raw);
  }
}

export class ExpressSvcReply extends BaseReply implements ReplySink {
  /** The node response (Express's), for code that needs what the neutral reply does not offer. */
  readonly raw: ServerResponse;
  private readonly method: string;

  constructor(raw: ServerResponse, method: string, initialStatus: number) {
    super(initialStatus);
    this.raw = raw;
    this.method = method;
  }

  /** True as soon as the head went out, so nothing tries to answer twice. */
  get sent(): boolean {
    return this.raw.headersSent;
  }

  header(name: string, value: string | number | readonly string[]): this {
    // Node validates name and value here: a CR/LF value throws before anything is stored.
    this.raw.setHeader(name, value);
    return this;
  }

  getHeader(name: string): string | number | string[] | undefined {
    return this.raw.getHeader(name);
  }

  removeHeader(name: string): this {
    this.raw.removeHeader(name);
    return this;
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    const response = this.raw;
    const frame = frameReply(this.method, status, body);
    try {
      if (contentType !== undefined) response.setHeader('content-type', contentType);
      if (frame.dropContentHeaders) {
        response.removeHeader('content-type');
        response.removeHeader('content-length');
      } else if (frame.contentLength !== undefined) response.setHeader('content-length', frame.contentLength);
      response.writeHead(status);
    } catch (error) {
      // Node refused something while writing the head. Drop what the handler set so the error response
      // that follows can go out; the request id stays.
      if (!response.headersSent) this.clearHeaders();
      throw error;
    }
    response.end(frame.body);
  }

  stream(status: number, source: Readable): Promise<void> {
    const response = this.raw;
    if (frameStream(this.method, status).dropContentHeaders) {
      response.removeHeader('content-type');
      response.removeHeader('content-length');
    }
    // The headers are on the response already; writeHead merges them with this (empty) record.
    return writeNodeStream(response, this.method, status, {}, source).catch((error: unknown) => {
      if (!response.headersSent && isHeaderError(error)) this.clearHeaders();
      throw error;
    });
  }

  private clearHeaders(): void {
    dropHeadersAfterRefusal(this.raw.getHeaderNames(), (name) => this.raw.removeHeader(name));
  }
}
