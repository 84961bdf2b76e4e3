// Request bodies on Express. svc reads the body of its routes itself, by the shared rules of
// runtime/http/body.ts, unless an application-wide parser (express.json(), urlencoded(), text(), raw())
// already consumed the stream: then svc takes what that parser left, and raw-body routes get the bytes the
// parser's `verify: captureRawBody` hook kept.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { errors } from '../../../generated/modules/errors.js';
import { hasPoisoningKey, parseBody } from '../../http/body.js';

const CAPTURED_BODY = Symbol('svckit.capturedBody');

interface ParsedRequest extends IncomingMessage {
  /** Set by body-parser 1.x (and parsers modelled on it) once it read the stream. */
  _body?: unknown;
  /** What an application-wide parser produced. */
  body?: unknown;
  [CAPTURED_BODY]?: Buffer;
}

/**
 * The `verify` hook for express.json(), express.urlencoded(), express.text() and express.raw() (body-parser):
 * `app.use(express.json({ verify: captureRawBody }))`. It keeps the body's bytes on the request, so
 * `rawBody()` routes still receive them after the application's parser consumed the stream; without it
 * such a route answers 500 RAW_BODY_UNAVAILABLE. The bytes are those the parser saw: after decompression
 * when the request carried a Content-Encoding.
 */
export function captureRawBody(req: IncomingMessage, _res: ServerResponse, buf: Buffer): void {
  (req as ParsedRequest)[CAPTURED_BODY] = buf;
}

/** The bytes captureRawBody kept for this request, if any. */
export function capturedBodyOf(req: IncomingMessage): Buffer | undefined {
  return (req as ParsedRequest)[CAPTURED_BODY];
}

/**
 * Whether something before svc read the request stream (even partly): body-parser 1.x sets `_body`; any
 * reader makes node record that data was handed out (`readableDidRead`) or that the end was reached.
 */
export function bodyConsumed(req: IncomingMessage): boolean {
  return (req as ParsedRequest)._body === true || req.readableDidRead || req.readableEnded;
}

/**
 * The body of an svc route whose stream an application-wide parser consumed. Text and bytes are parsed by
 * svc's rules; a value the parser built (JSON, form) is taken as it is, except that an empty body stays no
 * body and prototype-poisoning keys are refused, as svc's own parser does. Throws 400 BAD_REQUEST.
 */
export function bodyFromAppParser(req: IncomingMessage): unknown {
  const parsed = req as ParsedRequest;
  const contentType = req.headers['content-type'];
  const value = parsed.body;
  if (typeof value === 'string') return parseBody(value, contentType);
  if (value instanceof Uint8Array) return parseBody(Buffer.from(value).toString('utf8'), contentType);
  const captured = parsed[CAPTURED_BODY];
  if (value === undefined || value === null) {
    return captured === undefined ? undefined : parseBody(captured.toString('utf8'), contentType);
  }
  // body-parser turns an empty JSON body into {}; svc counts it as no body. (A request declaring length 0
  // never gets here; an empty chunked body is recognisable only by its captured bytes.)
  if (captured?.length === 0) return undefined;
  if (typeof value === 'object' && hasPoisoningKey(value)) {
    throw errors.BAD_REQUEST({ message: 'Request body contains a forbidden property name.' });
  }
  return value;
}
