// What a handler's return value becomes: JSON (written once, through the route's compiled serializer for
// that status when it has one, else JSON.stringify), text for a string, bytes for a Buffer, 204 for
// undefined; the status the handler chose or the route's success status; ETag and 304 for meta.etag, over
// the body as sent; a stream() or sse() result streamed through the adapter.
import { errors } from '../../generated/modules/errors.js';
import { isProductionEnv } from '../config/node-env.js';
import { defaultLogger } from '../log/json-logger.js';
import type { Logger } from '../log/logger.js';
import { strongEtag, ifNoneMatchMatches } from './etag.js';
import { responseCheck, serializeResponse } from './serialize-response.js';
import { StreamResult } from './stream.js';
import type { ReplySink, Route, SvcRequest } from './types.js';

export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
export const TEXT_CONTENT_TYPE = 'text/plain; charset=utf-8';
export const BYTES_CONTENT_TYPE = 'application/octet-stream';

export type Responder = (result: unknown, request: SvcRequest, reply: ReplySink) => void | Promise<void>;

/**
 * Streams a stream()/sse() result. Its headers join those set before (CORS, rate-limit counters, request id).
 * A failure after the head went out is STREAM_FAILED: reported once, the connection already cut.
 */
function sendStream(result: StreamResult, reply: ReplySink): Promise<void> {
  let source;
  try {
    for (const [name, value] of Object.entries(result.headers)) reply.header(name, value);
    source = result.body();
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
  const status = result.status ?? (reply.statusChosen ? reply.statusCode : 200);
  return reply.stream(status, source).catch((error: unknown) => {
    if (reply.sent) throw errors.STREAM_FAILED({ cause: error });
    // Nothing went out: the error envelope answers, without the stream's own headers (Content-Disposition...).
    for (const name of Object.keys(result.headers)) reply.removeHeader(name);
    throw error;
  });
}

export interface ResponderOptions {
  /** Where a response that does not match its schema is reported. Default: defaultLogger. */
  logger?: Logger;
  /**
   * Check every serialized response against the route's response validators. Default: outside production
   * only (NODE_ENV exactly development or test), as the check costs a parse and a validation per response.
   */
  checkResponses?: boolean;
}

/** Builds, once per route, the function that sends a handler's result. */
export function buildResponder(route: Route, options: ResponderOptions = {}): Responder {
  const etag = route.meta.etag === true && (route.method === 'GET' || route.method === 'HEAD');
  const serializers = route.serializers;
  const check =
    (options.checkResponses ?? !isProductionEnv()) && serializers !== undefined
      ? responseCheck(route, options.logger ?? defaultLogger)
      : undefined;
  return function respond(result, request, reply) {
    if (reply.sent) {
      // The handler replied itself; its return value is ignored (an unsent stream is released).
      if (result instanceof StreamResult) result.body().destroy();
      return;
    }
    if (result instanceof StreamResult) return sendStream(result, reply);
    if (result === undefined) {
      reply.finish(reply.statusChosen ? reply.statusCode : 204, undefined, undefined);
      return;
    }
    let body: string | Buffer;
    let type: string;
    if (typeof result === 'string') {
      body = result;
      type = TEXT_CONTENT_TYPE;
    } else if (result instanceof Uint8Array) {
      body = Buffer.isBuffer(result)
        ? result
        : Buffer.from(result.buffer, result.byteOffset, result.byteLength);
      type = BYTES_CONTENT_TYPE;
    } else {
      const serializer = serializers === undefined ? undefined : serializers[reply.statusCode];
      if (serializer === undefined) {
        const json = JSON.stringify(result) as string | undefined;
        if (json === undefined) throw new TypeError('The handler returned a value JSON cannot represent.');
        body = json;
      } else {
        body = serializeResponse(route, reply.statusCode, serializer, result);
        if (check !== undefined) check(reply.statusCode, body, request);
      }
      type = JSON_CONTENT_TYPE;
    }
    const status = reply.statusCode;
    const contentType = reply.getHeader('content-type') === undefined ? type : undefined;
    if (etag && status >= 200 && status < 300) {
      const tag = strongEtag(body);
      reply.header('etag', tag);
      if (ifNoneMatchMatches(request.headers['if-none-match'], tag)) {
        reply.finish(304, undefined, undefined);
        return;
      }
    }
    reply.finish(status, body, contentType);
  };
}
