// The neutral reply over a fetch handler: headers are collected here and the answer is one web Response,
// which the Hono handler returns. The handler may get it synchronously (the common case: on
// @hono/node-server a synchronous Response with a string body takes the server's fast path) or through a
// promise that the first finish()/stream() resolves, since `compiled.handle` may settle before or after.
import type { Context } from 'hono';
import { BaseReply } from '../../http/base-reply.js';
import type { ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { catalog } from '../../../generated/modules/errors.js';
import { lowerHeaderName } from '../../http/header-name.js';
import { JSON_CONTENT_TYPE } from '../../http/reply-mapping.js';
import { REQUEST_ID_HEADER } from '../../http/request-id.js';
import type { ReplySink } from '../../http/types.js';
import { pipeToWebStream } from './stream.js';
import { checkHeader, frameReply, frameStream } from '../../http/reply-framing.js';

type HeaderValue = string | number | string[];
type HeaderRecord = Record<string, HeaderValue>;
type ResponseBody = string | Buffer | ReadableStream<Uint8Array> | null;
/** What the Response constructor takes, under whichever typings (node or DOM) compile this file. */
type FetchBody = ConstructorParameters<typeof Response>[0];

/** The record as a HeadersInit: name/value pairs when a header holds a list (set-cookie), else the record. */
function headersInit(record: HeaderRecord, hasList: boolean): [string, string][] | Record<string, string> {
  if (hasList) {
    const pairs: [string, string][] = [];
    for (const name in record) {
      const value = record[name] as HeaderValue;
      if (Array.isArray(value)) for (const item of value) pairs.push([name, item]);
      else pairs.push([name, String(value)]);
    }
    return pairs;
  }
  // Numbers are converted by the Response constructor (and written as-is by @hono/node-server).
  return record as Record<string, string>;
}

/** A 500 envelope built without anything that could fail, for when answering through the pipeline failed. */
function lastResort(requestId: HeaderValue | undefined): Response {
  const headers: Record<string, string> = { 'content-type': JSON_CONTENT_TYPE };
  if (typeof requestId === 'string') headers[REQUEST_ID_HEADER] = requestId;
  const body = { error: { code: 'INTERNAL_ERROR', message: catalog.INTERNAL_ERROR.message } };
  return new Response(JSON.stringify(body), { status: 500, headers });
}

export class HonoSvcReply extends BaseReply implements ReplySink {
  /** The Hono context, for code that needs what the neutral reply does not offer; undefined outside routing. */
  readonly raw: Context | undefined;
  /** The answer, once finish() or stream() produced it. */
  response: Response | undefined = undefined;
  // A plain object rather than a null-prototype one: V8 keeps it in fast mode, which the node server's
  // writeHead iterates too. `__proto__` is refused as a name and reads check own properties.
  private readonly headers: HeaderRecord = {};
  /** Some header holds a list of values (set-cookie), so the Response needs name/value pairs. */
  private hasList = false;
  private readonly head: boolean;
  private readonly throughContext: boolean;
  private readonly outgoing: ServerResponse | undefined;
  private deliver: ((response: Response) => void) | undefined = undefined;

  /**
   * @param head the request is HEAD: headers only.
   * @param throughContext build the Response with `c.newResponse`, so headers Hono middleware set on the
   *   context before the route ran go out too (only needed when middleware ran; it costs a Headers object).
   * @param outgoing the node response on @hono/node-server, to cut a failed stream.
   */
  constructor(
    raw: Context | undefined,
    initialStatus: number,
    head: boolean,
    throughContext: boolean,
    outgoing: ServerResponse | undefined,
  ) {
    super(initialStatus);
    this.raw = raw;
    this.head = head;
    this.throughContext = throughContext && raw !== undefined;
    this.outgoing = outgoing;
  }

  /** True once the Response exists: from then on the runtime owns the head. */
  get sent(): boolean {
    return this.response !== undefined;
  }

  header(name: string, value: string | number | readonly string[]): this {
    checkHeader(name, value);
    const key = lowerHeaderName(name);
    if (typeof value === 'object') {
      this.headers[key] = [...value];
      this.hasList = true;
    } else {
      this.headers[key] = value;
    }
    return this;
  }

  getHeader(name: string): string | number | string[] | undefined {
    const key = lowerHeaderName(name);
    return Object.hasOwn(this.headers, key) ? this.headers[key] : undefined;
  }

  removeHeader(name: string): this {
    delete this.headers[lowerHeaderName(name)];
    return this;
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    this.assertUnsent();
    const headers = this.headers;
    if (contentType !== undefined) headers['content-type'] = contentType;
    const frame = frameReply(this.head ? 'HEAD' : undefined, status, body);
    if (frame.dropContentHeaders) {
      delete headers['content-type'];
      delete headers['content-length'];
    } else if (frame.body !== undefined) {
      // The fetch runtime frames the body itself. A length kept in the headers would also outlive the body if
      // Hono middleware replaced the Response afterwards.
      delete headers['content-length'];
    } else if (frame.contentLength !== undefined) headers['content-length'] = frame.contentLength;
    this.respond(this.build(status, frame.body ?? null));
  }

  stream(status: number, source: Readable): Promise<void> {
    try {
      this.assertUnsent();
      const headers = this.headers;
      const frame = frameStream(this.head ? 'HEAD' : undefined, status);
      if (!frame.sendsBody) {
        if (frame.dropContentHeaders) {
          delete headers['content-type'];
          delete headers['content-length'];
        }
        source.destroy();
        this.respond(this.build(status, null));
        return Promise.resolve();
      }
    } catch (error) {
      source.destroy();
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    const outgoing = this.outgoing;
    return pipeToWebStream(source, {
      open: (webBody) => this.respond(this.build(status, webBody)),
      signal: this.raw?.req.raw.signal,
      cut: outgoing === undefined ? undefined : () => outgoing.destroy(),
    });
  }

  /**
   * The Response, now or once produced. `pending` is what `compiled.handle` returned. Should it settle with
   * nothing answered (the pipeline always answers, so this is a safety net), `unanswered` answers through
   * this sink, and a bare 500 envelope goes out if even that fails.
   */
  whenAnswered(pending: void | Promise<void>, unanswered: () => void): Response | Promise<Response> {
    const response = this.response;
    if (response !== undefined) return response;
    if (pending === undefined) return this.answerUnanswered(unanswered);
    return new Promise<Response>((resolve) => {
      this.deliver = resolve;
      const settled = () => {
        if (this.response === undefined) this.answerUnanswered(unanswered);
      };
      pending.then(settled, settled);
    });
  }

  /** Runs `answer` (which should finish this reply); a bare 500 envelope when it did not. */
  answerWith(answer: () => void): Response {
    return this.answerUnanswered(answer);
  }

  private answerUnanswered(answer: () => void): Response {
    try {
      answer();
    } catch {
      // answered below
    }
    if (this.response === undefined) this.respond(lastResort(this.headers[REQUEST_ID_HEADER]));
    return this.response as Response;
  }

  private assertUnsent(): void {
    if (this.response !== undefined) throw new Error('The response was already sent.');
  }

  private build(status: number, payload: ResponseBody): Response {
    const init = { status, headers: headersInit(this.headers, this.hasList) };
    // Every fetch runtime accepts a Buffer (a Uint8Array); the DOM typings only name Uint8Array<ArrayBuffer>.
    const body = payload as FetchBody;
    if (this.throughContext) {
      type NewResponse = (body: FetchBody, init: ResponseInit) => Response;
      return ((this.raw as Context).newResponse as NewResponse)(body, init);
    }
    return new Response(body, init);
  }

  private respond(response: Response): void {
    this.response = response;
    const deliver = this.deliver;
    if (deliver !== undefined) {
      this.deliver = undefined;
      deliver(response);
    }
  }
}
