// `rawBody({ maxBytes })`: the request bytes exactly as received (seed 001 "Raw body"), for webhook
// signatures and formats svc does not parse. Read after the guards, from the unread stream the adapter
// hands over, or from bytes an application-wide parser captured (Express `captureRawBody`).
import type { Readable } from 'node:stream';
import { errors } from '../../generated/modules/errors.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { mediaTypeOf } from './body.js';
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
  const maxBytes = options.maxBytes ?? DEFAULT_RAW_BODY_LIMIT;
  if (!Number.isSafeInteger(maxBytes) || maxBytes < 0) {
    throw new TypeError(`rawBody(): maxBytes must be a non-negative integer, got ${String(maxBytes)}.`);
  }
  return { kind: 'raw', maxBytes };
}

/** The declared Content-Length as a number; undefined when absent or not a plain decimal. */
export function declaredLength(headers: RequestHeaders): number | undefined {
  const value = headers['content-length'];
  if (value === undefined || !/^\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

/** True when the request announced a body (a length above zero, or chunked transfer coding). */
function declaresBody(headers: RequestHeaders, length: number | undefined): boolean {
  if (length !== undefined) return length > 0;
  return headers['transfer-encoding'] !== undefined;
}

function input(bytes: Buffer, headers: RequestHeaders, length: number | undefined): RawBodyInput {
  return {
    bytes,
    contentType: mediaTypeOf(headers['content-type']),
    contentLength: length,
    text: () => bytes.toString('utf8'),
  };
}

/** Reads the stream to its end, refusing more than `maxBytes` (the rest is left unread). */
function collect(stream: Readable, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const cleanup = () => {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        cleanup();
        stream.pause();
        reject(errors.PAYLOAD_TOO_LARGE());
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      cleanup();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onError = (error: Error) => {
      cleanup();
      reject(errors.BAD_REQUEST({ message: 'The request body could not be read.', cause: error }));
    };
    // Aborted by the client before the end: nothing usable arrived.
    const onClose = () => {
      cleanup();
      reject(errors.BAD_REQUEST({ message: 'The request body could not be read.' }));
    };
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', onError);
    stream.on('close', onClose);
  });
}

/** The handler's body on a raw route. Throws 413 past maxBytes and 500 RAW_BODY_UNAVAILABLE without bytes. */
export async function readRawBody(request: SvcRequest, body: RawBody): Promise<RawBodyInput> {
  const headers = request.headers;
  const length = declaredLength(headers);
  if (length !== undefined && length > body.maxBytes) throw errors.PAYLOAD_TOO_LARGE();
  const captured = request.capturedBody;
  if (captured !== undefined) {
    if (captured.length > body.maxBytes) throw errors.PAYLOAD_TOO_LARGE();
    return input(captured, headers, length);
  }
  if (request.method === 'GET' || request.method === 'HEAD' || !declaresBody(headers, length)) {
    return input(Buffer.alloc(0), headers, length);
  }
  const stream = request.bodyStream;
  if (stream === undefined || stream.readableEnded || stream.destroyed) throw errors.RAW_BODY_UNAVAILABLE();
  return input(await collect(stream, body.maxBytes), headers, length);
}
