// Client errors Node's HTTP parser raises before any request exists (oversized headers, garbage, request
// timeout) answered in the envelope on the raw socket. Shared by adapters built on node:http.
import { uuidv7 } from './uuid.js';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { frameworkClientError } from './framework-errors.js';
import { toErrorResponse } from './envelope.js';
import { JSON_CONTENT_TYPE } from './reply-mapping.js';
import { REQUEST_ID_HEADER } from './request-id.js';

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
  const json = JSON.stringify(body);
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\n` +
    `content-type: ${JSON_CONTENT_TYPE}\r\n` +
    `content-length: ${Buffer.byteLength(json)}\r\n` +
    `${REQUEST_ID_HEADER}: ${uuidv7()}\r\n` +
    'connection: close\r\n\r\n' +
    json
  );
}

interface SocketWithResponse extends Duplex {
  _httpMessage?: { headersSent?: boolean } | null;
}

/** A `clientError` listener for node:http servers. */
export function handleClientError(error: Error & { code?: unknown }, socket: Duplex): void {
  const partial = (socket as SocketWithResponse)._httpMessage?.headersSent === true;
  if (error.code === 'ECONNRESET' || socket.destroyed || !socket.writable || partial) {
    socket.destroy();
    return;
  }
  socket.end(clientErrorResponse(error.code));
}
