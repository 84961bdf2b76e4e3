// Reading a request body as text under the fetch adapter's `bodyLimit`. A declared Content-Length over the
// limit is refused before a byte is read; a body without one (chunked) is cut as soon as it passes the limit.
// On @hono/node-server the node request is read directly by runtime/http's reader (no web-stream layer);
// elsewhere the web body is, by the same rules.
import type { Context } from 'hono';
import type { IncomingMessage } from 'node:http';
import { errors } from '../../../generated/modules/errors.js';
import { parseBody } from '../../http/body.js';
import { readBodyUpTo } from '../../http/body-reader.js';
import { announcesBody, parseContentLength, refuseDeclaredOverLimit } from '../../http/content-length.js';
import type { HonoSvcRequest } from './request.js';

/** A web body as text; rejects with 413 once more than `limit` bytes arrived, cancelling the rest. */
export async function readWebBody(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    let next: Awaited<ReturnType<typeof reader.read>>;
    try {
      next = await reader.read();
    } catch {
      throw errors.BAD_REQUEST();
    }
    const { done, value } = next;
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => undefined);
      throw errors.PAYLOAD_TOO_LARGE();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks, size).toString('utf8');
}

/**
 * Reads and parses the body of a JSON/form/text route into `request.body`; undefined when the request has
 * none (nothing to wait for). A body Hono middleware already read comes from Hono's body cache.
 */
export function readRequestBody(
  c: Context,
  incoming: IncomingMessage | undefined,
  limit: number,
  request: HonoSvcRequest,
): Promise<void> | undefined {
  if (incoming !== undefined) {
    const headers = incoming.headers;
    // Read already (Hono middleware called c.req.json() or text()): Hono keeps what it read.
    if (incoming.readableDidRead) return readFromHonoCache(c, request, headers['content-type']);
    if (!announcesBody(headers)) return undefined;
    refuseDeclaredOverLimit(parseContentLength(headers['content-length']), limit);
    return readBodyUpTo(incoming, limit).then((bytes) => {
      request.body = parseBody(bytes.toString('utf8'), headers['content-type']);
    });
  }
  const webRequest = c.req.raw;
  const headers = webRequest.headers;
  const contentType = headers.get('content-type') ?? undefined;
  if (webRequest.bodyUsed) return readFromHonoCache(c, request, contentType);
  const body = webRequest.body;
  if (body === null) return undefined;
  refuseDeclaredOverLimit(parseContentLength(headers.get('content-length')), limit);
  return readWebBody(body, limit).then((text) => {
    request.body = parseBody(text, contentType);
  });
}

function readFromHonoCache(
  c: Context,
  request: HonoSvcRequest,
  contentType: string | undefined,
): Promise<void> {
  return c.req.text().then((text) => {
    request.body = parseBody(text, contentType);
  });
}

/**
 * On upload and raw routes the body stays unread. When Hono middleware already read it, its bytes come from
 * Hono's body cache as `capturedBody`; undefined when there is nothing to wait for.
 */
export function readConsumedBody(
  c: Context,
  incoming: IncomingMessage | undefined,
  request: HonoSvcRequest,
): Promise<void> | undefined {
  if (incoming !== undefined && !incoming.readableDidRead) return undefined;
  const honoRequest = c.req;
  if (!honoRequest.raw.bodyUsed) return undefined;
  for (const _cached in honoRequest.bodyCache) {
    return honoRequest.arrayBuffer().then((bytes) => {
      request.capturedBody = Buffer.from(bytes);
    });
  }
  return undefined;
}
