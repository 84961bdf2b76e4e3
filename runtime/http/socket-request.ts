// The neutral request of a client error node raised before any request object existed (oversized headers,
// garbage, a request timeout): the request hooks still see it (secure headers, the rate limit by socket IP),
// so it carries only what is known for sure: the method and target when the request line was readable,
// the socket address, and no headers at all.
import { originForm, pathOf } from './url.js';
import type { HttpMethod, RequestContext, RequestHeaders, SvcRequest } from './types.js';

const NONE: Record<string, never> = Object.freeze(Object.create(null) as Record<string, never>);
const NO_HEADERS: RequestHeaders = Object.freeze({});

/** Longest target taken from a request line; a longer one (likely the cause of the error) reads as `/`. */
const MAX_TARGET = 2048;
/** `METHOD target HTTP/1.x` at the very start of what node had read. */
const REQUEST_LINE = new RegExp(`^([A-Z]{1,20}) ([^\\s]{1,${MAX_TARGET}}) HTTP/1\\.[01]\\r?\\n`);

export interface RequestLine {
  /**
   * The method as sent, like the adapters pass a method svc does not route (`PROPFIND`); GET when the
   * request line could not be read.
   */
  method: HttpMethod;
  /** The origin-form target, or `/` when none could be read. */
  url: string;
}

/** The request line at the start of the bytes node failed on (`error.rawPacket`), as far as it is readable. */
export function requestLineOf(packet: unknown): RequestLine {
  if (!Buffer.isBuffer(packet)) return { method: 'GET', url: '/' };
  const match = REQUEST_LINE.exec(packet.toString('latin1', 0, MAX_TARGET + 40));
  if (match === null) return { method: 'GET', url: '/' };
  const url = originForm(match[2] as string);
  return { method: match[1] as HttpMethod, url: url.charCodeAt(0) === 0x2f /* / */ ? url : '/' };
}

export class SocketRequest implements SvcRequest {
  readonly method: HttpMethod;
  readonly url: string;
  readonly path: string;
  readonly routePattern = undefined;
  readonly headers = NO_HEADERS;
  readonly ip: string | undefined;
  readonly query = NONE;
  readonly params = NONE;
  readonly body = undefined;
  readonly bodyKind = undefined;
  readonly context: RequestContext;

  constructor(line: RequestLine, ip: string | undefined, context: RequestContext) {
    this.method = line.method;
    this.url = line.url;
    this.path = pathOf(line.url);
    this.ip = ip;
    this.context = context;
  }
}
