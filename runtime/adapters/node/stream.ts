// Streams a response body onto a node:http response (Fastify and Express both end up here): the head with
// the headers set so far, then the source's chunks with backpressure. A client that goes away destroys the
// source, so producers (SSE) see it close; a source that fails after the head went out cuts the connection,
// because a half-sent body cannot be turned into an error envelope any more.
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Readable } from 'node:stream';
import { frameStream } from '../../http/reply-framing.js';

export function writeNodeStream(
  response: ServerResponse,
  method: string,
  status: number,
  headers: OutgoingHttpHeaders,
  source: Readable,
): Promise<void> {
  const frame = frameStream(method, status);
  if (!frame.sendsBody) {
    if (frame.dropContentHeaders) {
      delete headers['content-type'];
      delete headers['content-length'];
    }
    source.destroy();
    try {
      response.writeHead(status, headers);
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    response.end();
    return Promise.resolve();
  }
  return new Promise<void>((resolve, reject) => {
    let settled = false;
    let headSent = false;
    /** False when node refused a header (CR/LF, bad name): nothing went out and the promise rejects. */
    const sendHead = (): boolean => {
      if (headSent) return true;
      try {
        response.writeHead(status, headers);
      } catch (error) {
        source.destroy();
        settle(error);
        return false;
      }
      headSent = true;
      return true;
    };
    const settle = (error?: unknown) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      response.off('close', onClose);
      response.off('drain', onDrain);
      if (error === undefined) resolve();
      else reject(error instanceof Error ? error : new Error(String(error)));
    };
    const onData = (chunk: Buffer | string) => {
      // The head waits for the first chunk, so a source that fails at once (a missing file) still gets the
      // error envelope instead of a cut connection.
      if (sendHead() && !response.write(chunk)) source.pause();
    };
    const onDrain = () => source.resume();
    const onEnd = () => {
      if (!sendHead()) return;
      response.end();
      settle();
    };
    const onError = (error: unknown) => {
      const failure = error instanceof Error ? error : new Error('The response stream failed.');
      // Once the head is out, the only honest signal left to the client is a cut connection.
      if (headSent) response.destroy();
      settle(failure);
    };
    const onClose = () => {
      // Closed before the source ended: the client went away (or the server is closing).
      if (!source.destroyed) source.destroy();
      settle();
    };
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    response.on('drain', onDrain);
    response.on('close', onClose);
  });
}
