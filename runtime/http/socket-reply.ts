// The reply of a client error node raised before any request object existed: headers are collected as the
// request hooks and the pipeline set them, then one raw HTTP/1.1 response is written on the socket. The
// connection is always closed afterwards: node's parser is in an error state, so nothing else can follow.
import { STATUS_CODES, validateHeaderName, validateHeaderValue } from 'node:http';
import { BaseReply } from './base-reply.js';
import type { Duplex, Readable } from 'node:stream';
import { lowerHeaderName } from './header-name.js';
import { hasNoBody } from './status.js';
import type { ReplySink } from './types.js';

type HeaderValue = string | number | string[];

/** Framing is the writer's own: these are never taken from the headers that were set. */
const FRAMING = new Set(['content-length', 'transfer-encoding', 'connection']);

export class SocketReply extends BaseReply implements ReplySink {
  private readonly socket: Duplex;
  private readonly headers = new Map<string, HeaderValue>();
  private written = false;

  constructor(socket: Duplex, initialStatus: number) {
    super(initialStatus);
    this.socket = socket;
  }

  get sent(): boolean {
    return this.written;
  }

  header(name: string, value: string | number | readonly string[]): this {
    // Node's own checks, so a value with CR/LF is refused here as on a node response, never written.
    validateHeaderName(name);
    if (typeof value === 'object') {
      for (const item of value) validateHeaderValue(name, item);
      this.headers.set(lowerHeaderName(name), [...value]);
    } else {
      if (typeof value === 'string') validateHeaderValue(name, value);
      this.headers.set(lowerHeaderName(name), value);
    }
    return this;
  }

  getHeader(name: string): HeaderValue | undefined {
    return this.headers.get(lowerHeaderName(name));
  }

  removeHeader(name: string): this {
    this.headers.delete(lowerHeaderName(name));
    return this;
  }

  finish(status: number, body: string | Buffer | undefined, contentType: string | undefined): void {
    if (this.written) throw new Error('The response was already sent.');
    this.written = true;
    const socket = this.socket;
    if (socket.destroyed || !socket.writable) {
      socket.destroy();
      return;
    }
    if (contentType !== undefined) this.headers.set('content-type', contentType);
    const payload = hasNoBody(status) ? undefined : body;
    if (payload === undefined) this.headers.delete('content-type');
    // A Buffer body: the head is written as latin1, as node writes header values, the body as sent.
    socket.end(
      rawResponse(status, this.headers, typeof payload === 'string' ? Buffer.from(payload) : payload),
    );
  }

  /** Nothing streams an answer to a broken request; refusing lets the envelope answer instead. */
  stream(_status: number, source: Readable): Promise<void> {
    source.destroy();
    return Promise.reject(new Error('A client error is not answered with a stream.'));
  }
}

/**
 * One raw HTTP/1.1 response that closes the connection: the status line, `headers` (framing headers other
 * than the writer's own are dropped), a content length unless the status has no body, then the body.
 */
export function rawResponse(
  status: number,
  headers: Iterable<readonly [string, HeaderValue]>,
  body: string | undefined,
): string;
export function rawResponse(
  status: number,
  headers: Iterable<readonly [string, HeaderValue]>,
  body: string | Buffer | undefined,
): string | Buffer;
export function rawResponse(
  status: number,
  headers: Iterable<readonly [string, HeaderValue]>,
  body: string | Buffer | undefined,
): string | Buffer {
  let head = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  for (const [name, value] of headers) {
    if (FRAMING.has(name)) continue;
    if (Array.isArray(value)) for (const item of value) head += `${name}: ${item}\r\n`;
    else head += `${name}: ${String(value)}\r\n`;
  }
  if (!hasNoBody(status)) head += `content-length: ${body === undefined ? 0 : Buffer.byteLength(body)}\r\n`;
  head += 'connection: close\r\n\r\n';
  if (body === undefined) return head;
  if (typeof body === 'string') return head + body;
  return Buffer.concat([Buffer.from(head, 'latin1'), body]);
}
