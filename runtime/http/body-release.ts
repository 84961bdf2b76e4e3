// What happens to the unread rest of a streamed request body (upload and raw routes) when the route answers
// early: a refused upload, a 413, a handler that returned before reading every file. Node would otherwise
// dump the rest without limit to keep the connection alive; instead svc answers with `Connection: close`
// and discards at most a bounded number of further bytes before cutting the connection, so the client still
// reads the answer and nobody can keep the server busy with an endless body.
import type { Readable } from 'node:stream';
import type { ReplySink } from './types.js';

/** True when nothing of the request body is left on the wire. */
export function bodyFullyReceived(stream: Readable | undefined): boolean {
  if (stream === undefined || stream.readableEnded || stream.destroyed) return true;
  // node:http marks a request complete once its last byte was parsed, even while chunks wait in the buffer.
  return (stream as { complete?: unknown }).complete === true;
}

/** Reads and drops what arrives, up to `limit` more bytes; past that the connection is cut. */
export function discardBody(stream: Readable, limit: number): void {
  let seen = 0;
  const onData = (chunk: Buffer) => {
    seen += chunk.length;
    if (seen > limit) {
      stream.off('data', onData);
      stream.destroy();
    }
  };
  stream.on('data', onData);
  // An abort while discarding is expected; without a listener it would be an uncaught error.
  stream.on('error', () => undefined);
  stream.resume();
}

/**
 * Marks the reply `Connection: close` when the body was not read to its end, and starts discarding it. Call
 * right before the response is written; `release` runs the route-specific draining (the upload session).
 */
export function closeIfBodyUnread(stream: Readable | undefined, reply: ReplySink, release: () => void): void {
  if (stream === undefined) return;
  if (!bodyFullyReceived(stream) && !reply.sent) reply.header('connection', 'close');
  release();
}
