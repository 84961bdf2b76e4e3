// A node Readable carried by a web ReadableStream, the body a fetch handler returns. Same semantics as
// node-stream.ts on node:http: the head waits for the first chunk, so a source that fails at once still gets
// the error envelope; the source is paused while the consumer is behind (backpressure); a consumer that goes
// away (the client closed the connection) destroys the source; a source that fails after the head went out
// cuts the connection, because a half-sent body cannot become an error envelope any more.
import type { Readable } from 'node:stream';

export interface StreamTarget {
  /** Called once, with the body to answer, when the first chunk (or the end) arrived, or the client left. */
  open(body: ReadableStream<Uint8Array>): void;
  /** Aborts when the client goes away before the head went out; undefined when the runtime gives none. */
  signal: AbortSignal | undefined;
  /**
   * Cuts the connection after the head went out. On node the response is destroyed directly, so the node
   * server sees a closed client rather than a failed body (which it would log and try to answer itself).
   * Undefined elsewhere: the web stream is errored, which makes the runtime abort the response.
   */
  cut: (() => void) | undefined;
}

/** Pipes `source` into a web stream handed to `target.open`; settles like ReplySink.stream(). */
export function pipeToWebStream(source: Readable, target: StreamTarget): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    let opened = false;
    let settled = false;
    const body = new ReadableStream<Uint8Array>(
      {
        start(streamController) {
          controller = streamController;
        },
        pull() {
          if (!settled && source.isPaused()) source.resume();
        },
        cancel() {
          // The consumer stopped reading: the client went away (or the runtime gave up on the response).
          if (!source.destroyed) source.destroy();
          settle();
        },
      },
      { highWaterMark: 1 },
    );
    const open = () => {
      if (opened) return;
      opened = true;
      try {
        target.open(body);
      } catch (error) {
        // No Response could be made of it (a status the runtime refuses): nothing was sent.
        opened = false;
        if (!source.destroyed) source.destroy();
        settle(error instanceof Error ? error : new Error(String(error)));
      }
    };
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      source.off('data', onData);
      source.off('end', onEnd);
      source.off('error', onError);
      source.off('close', onSourceClose);
      target.signal?.removeEventListener('abort', onAbort);
      if (error === undefined) resolve();
      else reject(error);
    };
    const onData = (chunk: Buffer | string) => {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      controller?.enqueue(bytes);
      open();
      if ((controller?.desiredSize ?? 0) <= 0) source.pause();
    };
    const onEnd = () => {
      controller?.close();
      open();
      settle();
    };
    const onSourceClose = () => {
      // Destroyed without an error and without ending (a producer closing its stream): the body ends here.
      if (settled) return;
      onEnd();
    };
    const onError = (error: unknown) => {
      const failure = error instanceof Error ? error : new Error('The response stream failed.');
      if (opened) {
        // Once the head is out, the only honest signal left to the client is a cut connection.
        if (target.cut !== undefined) target.cut();
        else controller?.error(failure);
      }
      settle(failure);
    };
    const onAbort = () => {
      // The client left: the producer stops. Before the first chunk an empty answer settles the handler;
      // after it, the runtime cancels the body as well.
      if (!source.destroyed) source.destroy();
      try {
        controller?.close();
      } catch {
        // already closed or errored
      }
      open();
      settle();
    };
    if (target.signal?.aborted === true) {
      onAbort();
      return;
    }
    target.signal?.addEventListener('abort', onAbort, { once: true });
    source.on('data', onData);
    source.on('end', onEnd);
    source.on('error', onError);
    source.on('close', onSourceClose);
  });
}
