// OTLP/HTTP JSON exporter: buffers finished spans in a bounded queue and posts them in batches with fetch.
// Nothing here runs in the request path except a push; a collector that is down or slow only costs dropped
// spans, reported once through the logger.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { defaultLogger } from '../../log/json-logger.js';
import type { Logger } from '../../log/logger.js';
import { unixNanoString, type FinishedSpan, type SpanExporter } from './span.js';

export interface OtlpHttpExporterOptions {
  /** The collector's traces endpoint, e.g. `http://127.0.0.1:4318/v1/traces`. */
  url: string;
  /** Extra request headers (authentication for a hosted collector). */
  headers?: Record<string, string>;
  /** Spans per request; a full batch is sent at once. Default 512. */
  batchSize?: number;
  /** Longest time a span waits in the queue, in milliseconds. Default 5000. */
  intervalMs?: number;
  /** Spans kept while the collector is unreachable; the oldest are dropped beyond it. Default 2048. */
  maxQueueSize?: number;
  /** Per-request timeout, in milliseconds. Default 10000. */
  timeoutMs?: number;
  /** Where the first failed export is reported (tracingPlugin passes the app's). Default: JSON on stderr. */
  logger?: Logger;
}

export interface OtlpHttpExporter extends SpanExporter {
  /** Sends everything queued now; resolves when the posts finished (failures are swallowed). */
  flush(): Promise<void>;
  /** Spans dropped because the queue was full. */
  readonly dropped: number;
  shutdown(): Promise<void>;
}

const OWNER = 'otlpHttpExporter()';
/** The keys of OtlpHttpExporterOptions; any other is refused at creation. */
const EXPORTER_OPTIONS = optionKeys<OtlpHttpExporterOptions>({
  url: true,
  headers: true,
  batchSize: true,
  intervalMs: true,
  maxQueueSize: true,
  timeoutMs: true,
  logger: true,
});
/** OTLP enum values (opentelemetry-proto trace.proto). */
const SPAN_KIND_SERVER = 2;
const STATUS_CODE = { unset: 0, ok: 1, error: 2 } as const;

function positiveInteger(name: string, value: unknown, fallback: number): number {
  const resolved = value ?? fallback;
  if (typeof resolved !== 'number' || !Number.isInteger(resolved) || resolved < 1) {
    throw invalidOption(OWNER, name, 'a positive integer');
  }
  return resolved;
}

function attributeValue(value: string | number): Record<string, string | number> {
  if (typeof value === 'number' && Number.isInteger(value)) return { intValue: String(value) };
  if (typeof value === 'number') return { doubleValue: value };
  return { stringValue: value };
}

function encodeSpan(span: FinishedSpan): Record<string, unknown> {
  return {
    traceId: span.traceId,
    spanId: span.spanId,
    ...(span.parentSpanId === undefined ? {} : { parentSpanId: span.parentSpanId }),
    name: span.name,
    kind: SPAN_KIND_SERVER,
    startTimeUnixNano: unixNanoString(span.startTimeUnixMs),
    endTimeUnixNano: unixNanoString(span.endTimeUnixMs),
    attributes: Object.entries(span.attributes).map(([key, value]) => ({
      key,
      value: attributeValue(value),
    })),
    status: { code: STATUS_CODE[span.status] },
    flags: Number.parseInt(span.flags, 16),
  };
}

/** The OTLP/HTTP JSON body: one resource per service name, one scope for svc. */
export function encodeOtlpJson(spans: readonly FinishedSpan[]): { resourceSpans: unknown[] } {
  const byService = new Map<string, FinishedSpan[]>();
  for (const span of spans) {
    const list = byService.get(span.serviceName) ?? [];
    list.push(span);
    byService.set(span.serviceName, list);
  }
  return {
    resourceSpans: [...byService].map(([serviceName, list]) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: serviceName } }] },
      scopeSpans: [{ scope: { name: 'svckit' }, spans: list.map(encodeSpan) }],
    })),
  };
}

export function otlpHttpExporter(options: OtlpHttpExporterOptions): OtlpHttpExporter {
  if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
  // `headers` holds request header names of the application's choosing: only the options' own keys are fixed.
  rejectUnknownOptions(options, EXPORTER_OPTIONS, OWNER);
  let url: URL;
  try {
    url = new URL(options.url);
  } catch {
    throw invalidOption(OWNER, 'url', 'an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidOption(OWNER, 'url', 'an absolute http(s) URL');
  }
  const logger = options.logger ?? defaultLogger;
  const batchSize = positiveInteger('batchSize', options.batchSize, 512);
  const intervalMs = positiveInteger('intervalMs', options.intervalMs, 5000);
  const maxQueueSize = positiveInteger('maxQueueSize', options.maxQueueSize, 2048);
  const timeoutMs = positiveInteger('timeoutMs', options.timeoutMs, 10_000);
  const headers = { ...options.headers, 'content-type': 'application/json' };

  const queue: FinishedSpan[] = [];
  const inFlight = new Set<Promise<void>>();
  let dropped = 0;
  let reported = false;
  let timer: NodeJS.Timeout | undefined;

  const reportOnce = (reason: string) => {
    if (reported) return;
    reported = true;
    logger.warn('exporting spans failed; further failures are not reported', { url: url.href, reason });
  };

  async function post(batch: FinishedSpan[]): Promise<void> {
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers,
        body: JSON.stringify(encodeOtlpJson(batch)),
        signal: AbortSignal.timeout(timeoutMs),
      });
      await response.arrayBuffer().catch(() => undefined);
      if (!response.ok) reportOnce(`status ${response.status}`);
    } catch (error) {
      reportOnce(error instanceof Error ? error.message : String(error));
    }
  }

  function sendBatch(): void {
    const batch = queue.splice(0, batchSize);
    if (batch.length === 0) return;
    const sending = post(batch).finally(() => inFlight.delete(sending));
    inFlight.add(sending);
  }

  function schedule(): void {
    if (timer !== undefined) return;
    timer = setTimeout(() => {
      timer = undefined;
      while (queue.length > 0) sendBatch();
    }, intervalMs);
    // A pending export must not keep the process alive.
    timer.unref();
  }

  async function flush(): Promise<void> {
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    while (queue.length > 0) sendBatch();
    await Promise.all([...inFlight]);
  }

  return {
    export(span) {
      queue.push(span);
      if (queue.length > maxQueueSize) {
        queue.shift();
        dropped++;
      }
      if (queue.length >= batchSize) sendBatch();
      else schedule();
    },
    flush,
    shutdown: flush,
    get dropped() {
      return dropped;
    },
  };
}
