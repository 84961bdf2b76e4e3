// The neutral request and reply over Fastify's. Getters read Fastify lazily, so a route pays only for the
// fields it touches. Headers are kept in Fastify's reply (so headers set by Fastify hooks and plugins go out
// too), but the response is written on the node response in one writeHead + end: svc has already
// serialised the body and chosen its type, and Fastify's send path (content-type parsing, onSend hooks,
// serialisers) would redo that work. bench/RESULTS.md shows the difference.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BaseReply } from '../../http/base-reply.js';
import type { OutgoingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { bodyKindOf, type BodyKind } from '../../http/body.js';
import { lowerHeaderName } from '../../http/header-name.js';
import { writeNodeStream } from '../node/stream.js';
import { originForm, pathOf } from '../../http/url.js';
import type { HttpMethod, ReplySink, RequestContext, RequestHeaders, SvcRequest } from '../../http/types.js';
import { dropHeadersAfterRefusal, frameReply, isHeaderError } from '../../http/reply-framing.js';

const NO_PARAMS: Record<string, string> = Object.freeze(Object.create(null) as Record<string, string>);

function isEmpty(record: object): boolean {
  for (const _key in record) return false;
  return true;
}

export class FastifySvcRequest implements SvcRequest {
  readonly routePattern: string | undefined;
  readonly context: RequestContext;
  /** The Fastify request, for code that needs what the neutral request does not carry. */
  readonly raw: FastifyRequest;
  private paramsCopy: Record<string, string> | undefined = undefined;
  private readonly streamedBody: boolean;
  private readonly renamedParams: Readonly<Record<string, string>> | undefined;

  /**
   * `streamedBody`: an upload or raw route, whose body Fastify left unread for the pipeline. `renamedParams`:
   * the parameters mounted under another name (fastifyPath), find-my-way's name → svc's.
   */
  constructor(
    raw: FastifyRequest,
    routePattern: string | undefined,
    context: RequestContext,
    streamedBody = false,
    renamedParams?: Readonly<Record<string, string>>,
  ) {
    this.raw = raw;
    this.routePattern = routePattern;
    this.context = context;
    this.streamedBody = streamedBody;
    this.renamedParams = renamedParams;
  }

  get bodyStream(): Readable | undefined {
    return this.streamedBody ? this.raw.raw : undefined;
  }

  get method(): HttpMethod {
    return this.raw.method as HttpMethod;
  }

  get url(): string {
    return originForm(this.raw.url);
  }

  get path(): string {
    return pathOf(this.url);
  }

  get headers(): RequestHeaders {
    return this.raw.headers;
  }

  get ip(): string | undefined {
    return this.raw.ip;
  }

  get query(): Record<string, string | string[]> {
    return this.raw.query as Record<string, string | string[]>;
  }

  get params(): Record<string, string> {
    let params = this.paramsCopy;
    if (params === undefined) {
      const raw = this.raw.params as Record<string, string> | undefined;
      params =
        raw === undefined || isEmpty(raw)
          ? NO_PARAMS
          : (Object.assign(Object.create(null), raw) as Record<string, string>);
      const renamed = this.renamedParams;
      if (renamed !== undefined && params !== NO_PARAMS) {
        for (const mountedName in renamed) {
          const value = params[mountedName];
          delete params[mountedName];
          if (value !== undefined) params[renamed[mountedName] as string] = value;
        }
      }
      this.paramsCopy = params;
    }
    return params;
  }

  get body(): unknown {
    return this.raw.body;
  }

  get bodyKind(): BodyKind | undefined {
    return this.raw.body === undefined ? undefined : bodyKindOf(this.raw.headers['content-type']);
  }
}

/** The symbol under which Fastify keeps a reply's headers; null when this Fastify version has none. */
let replyHeadersKey: symbol | null | undefined;

/**
 * The headers set on a Fastify reply so far (by svc, a handler or a Fastify hook), as one record to hand to
 * writeHead. That is Fastify's own record, read the way Fastify's send path reads it: `reply.getHeaders()`
 * would copy it and the node response's headers on every request (about 1.5 % of a request). Headers set
 * directly on the node response are merged by writeHead itself.
 */
function headerRecord(reply: FastifyReply): OutgoingHttpHeaders {
  return ownHeaderRecord(reply) ?? (reply.getHeaders() as OutgoingHttpHeaders);
}

/** Fastify's own header record of the reply; undefined when this Fastify version keeps none. */
function ownHeaderRecord(reply: FastifyReply): OutgoingHttpHeaders | undefined {
  if (replyHeadersKey === undefined) {
    const key = Object.getOwnPropertySymbols(reply).find((s) => s.description === 'fastify.reply.headers');
    replyHeadersKey = key !== undefined && isRecord(Reflect.get(reply, key)) ? key : null;
  }
  if (replyHeadersKey === null) return undefined;
  return Reflect.get(reply, replyHeadersKey) as OutgoingHttpHeaders;
}

function isRecord(value: unknown): value is object {
  return value !== null && typeof value === 'object';
}

export class FastifySvcReply extends BaseReply implements ReplySink {
  /** The Fastify reply, for code that needs what the neutral reply does not offer. */
  readonly raw: FastifyReply;
  /** Fastify's header record of this reply, found on the first header(): Fastify never replaces it. */
  private record: OutgoingHttpHeaders | undefined = undefined;

  constructor(raw: FastifyReply, initialStatus: number) {
    super(initialStatus);
    this.raw = raw;
  }

  get sent(): boolean {
    // Fastify counts a reply as sent once ended; a streamed body is under way as soon as its head is out.
    return this.raw.sent || this.raw.raw.headersSent;
  }

  header(name: string, value: string | number | readonly string[]): this {
    // Straight into Fastify's record, where Fastify's own header() stores it: going through that method cost
    // about 0.5 µs per request for the seven headers of the edge plugins (CPU profile of the edge bench).
    // A second call replaces the value, Set-Cookie included, as on Express and Hono (Fastify's own header()
    // would append a second Set-Cookie line): a list of lines is set as a list.
    const key = lowerHeaderName(name);
    const record = (this.record ??= ownHeaderRecord(this.raw));
    if (record !== undefined) {
      record[key] = (typeof value === 'object' ? [...value] : value) as string | number | string[];
      return this;
    }
    this.raw.removeHeader(name);
    this.raw.header(name, value);
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
    const reply = this.raw;
    const headers = this.record ?? headerRecord(reply);
    if (contentType !== undefined) headers['content-type'] = contentType;
    const frame = frameReply(reply.request.method, status, body);
    if (frame.dropContentHeaders) {
      delete headers['content-type'];
      delete headers['content-length'];
    } else if (frame.contentLength !== undefined) headers['content-length'] = frame.contentLength;
    const response = reply.raw;
    try {
      response.writeHead(status, headers);
    } catch (error) {
      // Node refused a header (CR/LF, invalid name) while writing the head. Drop what the handler set so the
      // error response that follows can go out; the request id stays.
      if (!response.headersSent) this.clearHeaders();
      throw error;
    }
    response.end(frame.body);
  }

  stream(status: number, source: Readable): Promise<void> {
    const reply = this.raw;
    return writeNodeStream(reply.raw, reply.request.method, status, headerRecord(reply), source).catch(
      (error: unknown) => {
        // Node refused a header (CR/LF): nothing went out; drop what the handler set so the envelope can.
        if (!reply.raw.headersSent && isHeaderError(error)) this.clearHeaders();
        throw error;
      },
    );
  }

  private clearHeaders(): void {
    dropHeadersAfterRefusal(Object.keys(this.raw.getHeaders()), (name) => this.raw.removeHeader(name));
  }
}
