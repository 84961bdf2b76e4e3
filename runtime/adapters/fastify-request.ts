// The neutral request and reply over Fastify's. Getters read Fastify lazily, so a route pays only for the
// fields it touches; the reply writes through Fastify (its HEAD handling, onSend hooks and header checks).
import type { FastifyReply, FastifyRequest } from 'fastify';
import { bodyKindOf, type BodyKind } from '../http/body.js';
import { REQUEST_ID_HEADER } from '../http/request-id.js';
import { originForm, pathOf } from '../http/url.js';
import type { HttpMethod, ReplySink, RequestContext, RequestHeaders, SvcRequest } from '../http/types.js';

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

  constructor(raw: FastifyRequest, routePattern: string | undefined, context: RequestContext) {
    this.raw = raw;
    this.routePattern = routePattern;
    this.context = context;
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

export class FastifySvcReply implements ReplySink {
  /** The Fastify reply, for code that needs what the neutral reply does not offer. */
  readonly raw: FastifyReply;
  private code: number;
  private chosen = false;

  constructor(raw: FastifyReply, initialStatus: number) {
    this.raw = raw;
    this.code = initialStatus;
  }

  get statusCode(): number {
    return this.code;
  }

  get statusChosen(): boolean {
    return this.chosen;
  }

  get sent(): boolean {
    return this.raw.sent;
  }

  status(code: number): this {
    if (!Number.isInteger(code) || code < 100 || code > 599) {
      throw new RangeError(`reply.status(): ${String(code)} is not an HTTP status code.`);
    }
    this.code = code;
    this.chosen = true;
    return this;
  }

  header(name: string, value: string | number | readonly string[]): this {
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

  send(payload?: string | Buffer): void {
    this.finish(this.code, payload, undefined);
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    if (contentType !== undefined) this.raw.header('content-type', contentType);
    this.raw.code(status);
    try {
      this.raw.send(body);
    } catch (error) {
      // Node refused a header (CR/LF, invalid name) while writing the head. Drop what the handler set so the
      // error response that follows can go out; the request id stays.
      if (!this.raw.raw.headersSent) this.clearHeaders();
      throw error;
    }
  }

  private clearHeaders(): void {
    for (const name of Object.keys(this.raw.getHeaders())) {
      if (name !== REQUEST_ID_HEADER) this.raw.removeHeader(name);
    }
  }
}
