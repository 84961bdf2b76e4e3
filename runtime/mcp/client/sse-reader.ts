// Reading HTTP response bodies for the client transport: `text/event-stream` events one at a time (the
// WHATWG event-stream format, only what the protocol uses: `event` and `data`), a capped text body, and the
// first KiB of an error body for the error's details.

export interface SseEvent {
  /** The `event:` field; 'message' when absent. */
  event: string;
  data: string;
}

/** Thrown (and turned into MCP_SERVER_FAILED by the caller) when one event or body passes `maxBytes`. */
export class BodyTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`The tool server sent a message larger than ${maxBytes} bytes.`);
  }
}

/** Yields each event of an event stream as it completes; ends with the body. Comments and `id`/`retry` are skipped. */
export async function* readSseEvents(
  body: ReadableStream<Uint8Array>,
  maxBytes: number,
): AsyncGenerator<SseEvent, void, undefined> {
  const decoder = new TextDecoder();
  let buffer = '';
  let event = '';
  let data: string[] = [];
  let dataLength = 0;
  const lineEnd = /\r\n|\n|\r/g;
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      // Lines end with CRLF, LF or CR; a CR at the very end may be the first half of a CRLF still to come.
      let start = 0;
      for (;;) {
        lineEnd.lastIndex = start;
        const found = lineEnd.exec(buffer);
        if (!found || (found[0] === '\r' && found.index === buffer.length - 1 && !done)) break;
        const line = buffer.slice(start, found.index);
        start = found.index + found[0].length;
        if (line === '') {
          if (data.length > 0) yield { event: event || 'message', data: data.join('\n') };
          event = '';
          data = [];
          dataLength = 0;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let fieldValue = colon < 0 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'data') {
          dataLength += fieldValue.length + 1;
          if (dataLength > maxBytes) throw new BodyTooLargeError(maxBytes);
          data.push(fieldValue);
        } else if (field === 'event') {
          event = fieldValue;
        }
      }
      buffer = buffer.slice(start);
      if (buffer.length > maxBytes) throw new BodyTooLargeError(maxBytes);
      if (done) return;
    }
  } finally {
    // Stop the download when the caller leaves early (its answer arrived) or on error.
    await reader.cancel().catch(() => undefined);
  }
}

/** The whole body as text; throws BodyTooLargeError past `maxBytes`. */
export async function readText(body: ReadableStream<Uint8Array> | null, maxBytes: number): Promise<string> {
  if (!body) return '';
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let text = '';
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return text + decoder.decode();
      bytes += value.byteLength;
      if (bytes > maxBytes) throw new BodyTooLargeError(maxBytes);
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
}

/** At most the first `limit` bytes of a body as text, for an error's details; never throws. */
export async function readPrefix(body: ReadableStream<Uint8Array> | null, limit = 1024): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  try {
    while (bytes < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
    }
  } catch {
    // A body cut short still gives what arrived.
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  const all = new Uint8Array(Math.min(bytes, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, all.length - offset);
    all.set(part, offset);
    offset += part.length;
    if (offset >= all.length) break;
  }
  // A character cut in half at the limit decodes to U+FFFD; drop it rather than show a broken glyph.
  return new TextDecoder().decode(all).replace(/\uFFFD$/, '');
}
