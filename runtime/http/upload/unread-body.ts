// What an upload does with the request bytes nobody read once the handler settled: they are discarded
// without parsing, and past the route's maxBytes in total the request is cut, so an endless body cannot keep
// the server busy.
import type { Readable } from 'node:stream';

/** Whether the request body was received to its end (so the connection can be kept). */
export function receivedCompletely(source: Readable, received: number, maxBytes: number): boolean {
  if (source.readableEnded) return true;
  if (source.destroyed) return false;
  // node:http marks a request complete once its last byte arrived, even while chunks wait in the buffer.
  return (source as { complete?: unknown }).complete === true && received + source.readableLength <= maxBytes;
}

/**
 * Reads and drops the rest in the background; `received` bytes were read already. Once the total passes
 * `maxBytes` the request is destroyed, a turn later, so a response written in the same turn goes out first.
 * The caller keeps an 'error' listener on the source.
 */
export function discardUnread(source: Readable, received: number, maxBytes: number): void {
  if (source.readableEnded || source.destroyed) return;
  let total = received;
  const cut = (): void => {
    source.pause();
    setImmediate(() => source.destroy());
  };
  if (total > maxBytes) return cut();
  const onData = (chunk: Buffer | string): void => {
    total += typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk.length;
    if (total <= maxBytes) return;
    source.off('data', onData);
    cut();
  };
  source.on('data', onData);
  source.resume();
}
