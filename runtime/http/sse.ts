// `sse(producer, { heartbeatMs, maxDurationMs })`: server-sent events. The
// producer gets a small stream object; events are encoded into the text/event-stream format and written with
// the same backpressure and disconnect handling as any streamed response.
import { Readable } from 'node:stream';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { StreamResult } from './stream.js';

export interface SseEvent {
  /** Event name (`event:` field); omitted for the default `message` event. */
  event?: string;
  /** A string is sent as is (one `data:` line per line); anything else as JSON. */
  data: unknown;
  /** Event id (`id:` field), which a reconnecting EventSource sends back as Last-Event-ID. */
  id?: string;
}

export interface SseStream {
  /** Queues one event. False when the stream is closed or its write buffer is full (wait and retry later). */
  send(event: SseEvent): boolean;
  /** Runs once when the stream ends: client gone, maxDurationMs reached, close() called or the server closing. */
  onClose(callback: () => void): void;
  /** Ends the stream from the server side. */
  close(): void;
  /** True once the stream has ended. */
  readonly closed: boolean;
}

export interface SseOptions {
  /** Sends a comment line this often so proxies keep the connection open; off when unset. */
  heartbeatMs?: number;
  /** Ends the stream after this long; off when unset. */
  maxDurationMs?: number;
}

export type SseProducer = (stream: SseStream) => void | Promise<void>;

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Tells nginx-style proxies not to buffer the stream.
  'x-accel-buffering': 'no',
};

/** The keys of SseOptions, built once: sse() runs per request. */
const SSE_OPTIONS: readonly string[] = optionKeys<SseOptions>({
  heartbeatMs: true,
  maxDurationMs: true,
});

/** Buffered bytes beyond which send() reports a full buffer. */
const HIGH_WATER_MARK = 64 * 1024;

const LINE_BREAK = /\r\n|\r|\n/;
const CRLF = /[\r\n]/g;

/** One event in text/event-stream framing. Field values cannot break out of their line. */
export function encodeSseEvent(event: SseEvent): string {
  let text = '';
  if (event.event !== undefined) text += `event: ${String(event.event).replace(CRLF, '')}\n`;
  if (event.id !== undefined) text += `id: ${String(event.id).replace(CRLF, '')}\n`;
  const data = typeof event.data === 'string' ? event.data : (JSON.stringify(event.data) ?? 'null');
  for (const line of data.split(LINE_BREAK)) text += `data: ${line}\n`;
  return `${text}\n`;
}

function checkDuration(name: string, value: number | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isFinite(value) || value <= 0)
    throw invalidOption('sse()', name, 'a positive number of milliseconds');
  return value;
}

class EventStream implements SseStream {
  private readonly readable: Readable;
  private readonly callbacks: Array<() => void> = [];
  private ended = false;

  constructor(readable: Readable) {
    this.readable = readable;
    readable.once('close', () => this.markClosed());
  }

  get closed(): boolean {
    return this.ended;
  }

  send(event: SseEvent): boolean {
    if (this.ended) return false;
    return this.readable.push(encodeSseEvent(event));
  }

  /** A comment line: ignored by clients, keeps intermediaries from timing the connection out. */
  heartbeat(): void {
    // A client that stopped reading gets no more; its buffer is already full of data.
    if (!this.ended && this.readable.readableLength < HIGH_WATER_MARK) this.readable.push(': heartbeat\n\n');
  }

  onClose(callback: () => void): void {
    if (this.ended) queueMicrotask(callback);
    else this.callbacks.push(callback);
  }

  close(): void {
    if (this.ended) return;
    this.readable.push(null);
    this.markClosed();
  }

  private markClosed(): void {
    if (this.ended) return;
    this.ended = true;
    for (const callback of this.callbacks.splice(0)) {
      try {
        callback();
      } catch {
        // A failing close callback must not keep the others from running.
      }
    }
  }
}

/** An event stream: `return sse((events) => { events.send({ event: 'tick', data: { n: 1 } }) })`. */
export function sse(producer: SseProducer, options: SseOptions = {}): StreamResult {
  if (typeof producer !== 'function') throw new TypeError('sse(): the producer must be a function.');
  // Per request: a for-in over the few keys given allocates nothing; the shared check only runs (and throws)
  // once an unknown key is seen.
  for (const key in options) {
    if (!SSE_OPTIONS.includes(key)) rejectUnknownOptions(options, SSE_OPTIONS, 'sse()');
  }
  const heartbeatMs = checkDuration('heartbeatMs', options.heartbeatMs);
  const maxDurationMs = checkDuration('maxDurationMs', options.maxDurationMs);
  return new StreamResult(undefined, { ...SSE_HEADERS }, () => {
    const readable = new Readable({ read() {}, highWaterMark: HIGH_WATER_MARK });
    const events = new EventStream(readable);
    // The head goes out with the first chunk; this comment sends it at once, so the client sees the stream open.
    readable.push(': stream open\n\n');
    const timers: NodeJS.Timeout[] = [];
    if (heartbeatMs !== undefined) timers.push(setInterval(() => events.heartbeat(), heartbeatMs));
    if (maxDurationMs !== undefined) timers.push(setTimeout(() => events.close(), maxDurationMs));
    events.onClose(() => {
      for (const timer of timers) clearTimeout(timer);
    });
    let pending: void | Promise<void>;
    try {
      pending = producer(events);
    } catch (error) {
      readable.destroy(error instanceof Error ? error : new Error(String(error)));
      return readable;
    }
    if (pending !== undefined) {
      Promise.resolve(pending).catch((error: unknown) => {
        readable.destroy(error instanceof Error ? error : new Error(String(error)));
      });
    }
    return readable;
  });
}
