// `stream(source, options)`: a handler's streamed download. The handler returns
// the result; the reply mapping writes it with backpressure through the adapter's ReplySink.stream.
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { nonNegativeWholeNumber } from '../config/whole-number.js';
import { contentDisposition } from './content-disposition.js';

/** What a stream may be made from: a node byte stream, a web stream or an async iterable of byte chunks. */
export type StreamSource =
  | Readable
  | WebReadableStream<Uint8Array>
  | globalThis.ReadableStream<Uint8Array>
  | AsyncIterable<Uint8Array | string>;

export interface StreamOptions {
  /** Default `application/octet-stream`. */
  contentType?: string;
  /** Sent as Content-Length when known; otherwise the body is chunked. */
  contentLength?: number;
  /** Offers the body as a file: Content-Disposition with a sanitised name (RFC 5987 with an ASCII fallback). */
  filename?: string;
  /** `attachment` (default) or `inline`; read only when `filename` is set. */
  disposition?: 'attachment' | 'inline';
  /** Extra response headers; CR and LF are stripped from names and values. */
  headers?: Readonly<Record<string, string | number>>;
  /** Default: the status the handler set with reply.status(), else 200. */
  status?: number;
}

/** The keys of StreamOptions, built once: stream() runs per request. */
const STREAM_OPTIONS: readonly string[] = optionKeys<StreamOptions>({
  contentType: true,
  contentLength: true,
  filename: true,
  disposition: true,
  headers: true,
  status: true,
});

/** A streamed response as a handler returns it. Created by stream() and sse(); read by the reply mapping. */
export class StreamResult {
  /** The status stream() was given; undefined: the one the handler chose with reply.status(), else 200. */
  readonly status: number | undefined;
  readonly headers: Readonly<Record<string, string>>;
  private readonly open: () => Readable;

  constructor(status: number | undefined, headers: Record<string, string>, open: () => Readable) {
    this.status = status;
    this.headers = headers;
    this.open = open;
  }

  /** The body as a node Readable; called once, when the head is about to be written. */
  body(): Readable {
    return this.open();
  }
}

const CRLF = /[\r\n]/g;

function isWebStream(value: unknown): value is globalThis.ReadableStream<Uint8Array> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { getReader?: unknown }).getReader === 'function'
  );
}

function isAsyncIterable(value: unknown): value is AsyncIterable<Uint8Array | string> {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as { [Symbol.asyncIterator]?: unknown })[Symbol.asyncIterator] === 'function'
  );
}

/** The source as a node Readable, without copying chunks. */
export function toReadable(source: StreamSource): Readable {
  if (source instanceof Readable) return source;
  if (isWebStream(source)) return Readable.fromWeb(source as WebReadableStream<Uint8Array>);
  if (isAsyncIterable(source)) return Readable.from(source, { objectMode: false });
  throw new TypeError(
    'stream(): the source must be a Readable, a ReadableStream or an async iterable of bytes.',
  );
}

function checkStatus(status: number): number {
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw invalidOption('stream()', 'status', 'a final HTTP status (200 to 599)', `got ${String(status)}`);
  }
  return status;
}

/** Headers with CR and LF removed, so no value can split the response. */
function cleanHeaders(
  headers: Readonly<Record<string, string | number>> | undefined,
): Record<string, string> {
  const clean: Record<string, string> = Object.create(null) as Record<string, string>;
  if (headers === undefined) return clean;
  for (const [name, value] of Object.entries(headers)) {
    const key = name.replace(CRLF, '').trim().toLowerCase();
    if (key !== '') clean[key] = String(value).replace(CRLF, '');
  }
  return clean;
}

/** A streamed response: `return stream(createReadStream(path), { contentType: 'application/pdf', filename })`. */
export function stream(source: StreamSource, options: StreamOptions = {}): StreamResult {
  const readable = toReadable(source);
  let headers: Record<string, string>;
  let status: number | undefined;
  try {
    headers = streamHeaders(options);
    status = options.status === undefined ? undefined : checkStatus(options.status);
  } catch (error) {
    // Bad options must not leave the caller's file (or socket) open.
    readable.destroy();
    throw error;
  }
  return new StreamResult(status, headers, () => readable);
}

function streamHeaders(options: StreamOptions): Record<string, string> {
  // Per request: a for-in over the few keys given allocates nothing; the shared check only runs (and throws)
  // once an unknown key is seen. `headers` holds response header names of the handler's choosing.
  for (const key in options) {
    if (!STREAM_OPTIONS.includes(key)) rejectUnknownOptions(options, STREAM_OPTIONS, 'stream()');
  }
  const headers = cleanHeaders(options.headers);
  headers['content-type'] = (options.contentType ?? 'application/octet-stream').replace(CRLF, '');
  if (options.contentLength !== undefined) {
    const contentLength = nonNegativeWholeNumber(
      options.contentLength,
      0,
      'stream()',
      'contentLength',
      'bytes',
    );
    headers['content-length'] = String(contentLength);
  }
  if (options.filename !== undefined) {
    const disposition = options.disposition ?? 'attachment';
    if (disposition !== 'attachment' && disposition !== 'inline') {
      throw invalidOption('stream()', 'disposition', "'attachment' or 'inline'");
    }
    headers['content-disposition'] = contentDisposition(disposition, options.filename);
  }
  return headers;
}
