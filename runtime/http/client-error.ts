// Client errors Node's HTTP parser raises before any request exists (oversized headers, garbage, request
// timeout) answered in the envelope on the raw socket, with a fresh request id and Connection: close. Shared
// by the adapters built on node:http. With the adapter's pipeline, the request hooks run first, as on any
// other answer: the secure headers go out and the global rate limit counts the client by its socket address
// (and answers 429 instead once that bucket is spent).
import { uuidv7 } from './uuid.js';
import type { Duplex } from 'node:stream';
import { frameworkClientError } from './framework-errors.js';
import { toErrorResponse } from './envelope.js';
import type { Pipeline } from './pipeline.js';
import { JSON_CONTENT_TYPE } from './reply-mapping.js';
import { REQUEST_ID_HEADER } from './request-id.js';
import { rawResponse, SocketReply } from './socket-reply.js';
import { requestLineOf, SocketRequest } from './socket-request.js';

/** The status for a Node client error code: 431 for header overflow, 408 for a request timeout, else 400. */
export function clientErrorStatus(code: unknown): number {
  if (code === 'HPE_HEADER_OVERFLOW') return 431;
  if (code === 'ERR_HTTP_REQUEST_TIMEOUT') return 408;
  if (code === 'HPE_URI_TOO_LONG') return 414;
  return 400;
}

/** The raw HTTP/1.1 response for a client error: the envelope, a fresh request id, Connection: close. */
export function clientErrorResponse(code: unknown): string {
  const status = clientErrorStatus(code);
  const { body } = toErrorResponse(frameworkClientError(status));
  const headers: [string, string][] = [
    ['content-type', JSON_CONTENT_TYPE],
    [REQUEST_ID_HEADER, uuidv7()],
  ];
  return rawResponse(status, headers, JSON.stringify(body));
}

interface SocketWithResponse extends Duplex {
  _httpMessage?: { headersSent?: boolean } | null;
  remoteAddress?: string;
}

/** What node passes to a `clientError` listener. */
export type ClientError = Error & { code?: unknown; rawPacket?: unknown };

/** True when nothing can be answered any more: the client left, or a response is already half-way out. */
function unanswerable(error: ClientError, socket: Duplex): boolean {
  const partial = (socket as SocketWithResponse)._httpMessage?.headersSent === true;
  return error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || partial;
}

/** The `clientError` listener of an adapter: the envelope after the pipeline's request hooks. */
export function clientErrorListener(pipeline: Pipeline): (error: ClientError, socket: Duplex) => void {
  // Node's parser stays in its error state and reports every further chunk again: while the hooks of the
  // first error run (a rate-limit store may be remote), those reports are ignored, so one answer goes out.
  const answering = new WeakMap<Duplex, SocketReply>();
  return function answerClientError(error, socket) {
    const underWay = answering.get(socket);
    if (underWay !== undefined && !underWay.sent) return;
    if (unanswerable(error, socket)) {
      socket.destroy();
      return;
    }
    const status = clientErrorStatus(error.code);
    const reply = new SocketReply(socket, status);
    answering.set(socket, reply);
    const fallback = () => {
      // The pipeline always answers; should it not have, the hook-less envelope still goes out.
      if (!reply.sent && !socket.destroyed && socket.writable) socket.end(clientErrorResponse(error.code));
    };
    let pending: void | Promise<void>;
    try {
      const context = pipeline.createContext({});
      const ip = (socket as SocketWithResponse).remoteAddress;
      const request = new SocketRequest(requestLineOf(error.rawPacket), ip, context);
      pending = pipeline.handleUnrouted(request, reply, frameworkClientError(status));
    } catch {
      fallback();
      return;
    }
    if (pending === undefined) fallback();
    else pending.then(fallback, fallback);
  };
}
