// `rawBody({ maxBytes })`: the request bytes exactly as received, for webhook
// signatures and formats svc does not parse. Read after the guards, from the unread stream the adapter
// hands over, or from bytes an application-wide parser captured (Express `captureRawBody`).
import { errors } from '../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { nonNegativeWholeNumber } from '../config/whole-number.js';
import { mediaTypeOf } from './body.js';
import { readBodyUpTo } from './body-reader.js';
import { announcesBody, parseContentLength, refuseDeclaredOverLimit } from './content-length.js';
import type { RawBody, RawBodyInput, RequestHeaders, SvcRequest } from './types.js';

/** Default `maxBytes` of a raw body: 1 MiB. */
export const DEFAULT_RAW_BODY_LIMIT = 1024 * 1024;

export interface RawBodyOptions {
  /** Largest body accepted, in bytes; larger answers 413 PAYLOAD_TOO_LARGE. Default 1 MiB. */
  maxBytes?: number;
}

/** The keys of RawBodyOptions; any other is refused when the route is made. */
const RAW_BODY_OPTIONS = optionKeys<RawBodyOptions>({ maxBytes: true });

/** A raw-body route's body: `route({ method: 'POST', url: '/webhook', body: rawBody(), handler })`. */
export function rawBody(options: RawBodyOptions = {}): RawBody {
  rejectUnknownOptions(options, RAW_BODY_OPTIONS, 'rawBody()');
  const maxBytes = nonNegativeWholeNumber(
    options.maxBytes,
    DEFAULT_RAW_BODY_LIMIT,
    'rawBody()',
    'maxBytes',
    'bytes',
  );
  return { kind: 'raw', maxBytes };
}

function input(bytes: Buffer, headers: RequestHeaders, length: number | undefined): RawBodyInput {
  return {
    bytes,
    contentType: mediaTypeOf(headers['content-type']),
    contentLength: length,
    text: () => bytes.toString('utf8'),
  };
}

/** The handler's body on a raw route. Throws 413 past maxBytes and 500 RAW_BODY_UNAVAILABLE without bytes. */
export async function readRawBody(request: SvcRequest, body: RawBody): Promise<RawBodyInput> {
  const headers = request.headers;
  const length = parseContentLength(headers['content-length']);
  refuseDeclaredOverLimit(length, body.maxBytes);
  const captured = request.capturedBody;
  if (captured !== undefined) {
    if (captured.length > body.maxBytes) throw errors.PAYLOAD_TOO_LARGE();
    return input(captured, headers, length);
  }
  if (request.method === 'GET' || request.method === 'HEAD' || !announcesBody(headers)) {
    return input(Buffer.alloc(0), headers, length);
  }
  const stream = request.bodyStream;
  if (stream === undefined || stream.readableEnded || stream.destroyed) throw errors.RAW_BODY_UNAVAILABLE();
  return input(await readBodyUpTo(stream, body.maxBytes), headers, length);
}
