// How every reply frames its answer, decided once for the Fastify, Express and Hono replies, the node
// stream writer and the raw socket reply: which statuses carry no body (and so no content headers), what a
// HEAD answer announces, and which header names and values are refused before anything is written.
import { REQUEST_ID_HEADER } from './request-id.js';
import { hasNoBody } from './status.js';

export interface ReplyFrame {
  /** What to send: undefined for 1xx/204/304 and for HEAD; an empty body is '' so keep-alive framing holds. */
  body: string | Buffer | undefined;
  /** 1xx, 204, 304: remove content-type and content-length, whatever was set. */
  dropContentHeaders: boolean;
  /**
   * The Content-Length to announce: the body's size (on HEAD, the size the GET body would have); undefined
   * leaves the header as it was set (a HEAD answer without a body, or a no-body status, which drops it).
   */
  contentLength: number | undefined;
}

/** The frame of a finished (not streamed) answer to `method` with `status` and `body`. */
export function frameReply(
  method: string | undefined,
  status: number,
  body: string | Buffer | undefined,
): ReplyFrame {
  if (hasNoBody(status)) return { body: undefined, dropContentHeaders: true, contentLength: undefined };
  const contentLength = body === undefined ? undefined : Buffer.byteLength(body);
  if (method === 'HEAD') return { body: undefined, dropContentHeaders: false, contentLength };
  return { body: body ?? '', dropContentHeaders: false, contentLength: contentLength ?? 0 };
}

export interface StreamFrame {
  /** False on HEAD and no-body statuses: the head goes out alone and the source is destroyed unread. */
  sendsBody: boolean;
  /** 1xx, 204, 304: remove content-type and content-length, whatever was set. */
  dropContentHeaders: boolean;
}

/** The frame of a streamed answer to `method` with `status`. */
export function frameStream(method: string | undefined, status: number): StreamFrame {
  const noBody = hasNoBody(status);
  return { sendsBody: method !== 'HEAD' && !noBody, dropContentHeaders: noBody };
}

// The characters node:http accepts in a header name (RFC 9110 token) and value; anything else, CR/LF above
// all, would split the response.
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const INVALID_VALUE_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * Throws a TypeError for a header node would refuse to write (and `__proto__`, which a header record cannot
 * hold): replies that keep headers themselves check when a header is set, as node does on its responses.
 */
export function checkHeader(name: string, value: string | number | readonly string[]): void {
  if (!HEADER_NAME.test(name) || name === '__proto__') {
    throw new TypeError(`Invalid header name: ${JSON.stringify(name)}.`);
  }
  if (typeof value === 'number') return;
  if (typeof value === 'string') {
    if (INVALID_VALUE_CHAR.test(value)) throw new TypeError(`Invalid value for header ${name}.`);
    return;
  }
  for (const item of value) {
    if (typeof item !== 'string' || INVALID_VALUE_CHAR.test(item)) {
      throw new TypeError(`Invalid value for header ${name}.`);
    }
  }
}

/** Node's errors for a header it will not write (ERR_INVALID_CHAR, ERR_INVALID_HTTP_TOKEN, ...). */
export function isHeaderError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('ERR_INVALID_') || code.startsWith('ERR_HTTP_INVALID'));
}

/**
 * After node refused a header while writing the head, what the handler set is dropped so the error envelope
 * that follows can go out: every header but the request id. `remove` is the reply's own header removal.
 */
export function dropHeadersAfterRefusal(names: Iterable<string>, remove: (name: string) => void): void {
  for (const name of [...names]) if (name !== REQUEST_ID_HEADER) remove(name);
}
