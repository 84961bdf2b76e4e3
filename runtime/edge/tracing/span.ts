// The finished server span svc hands to its exporters, and the exporter contract.

export interface FinishedSpan {
  /** `service.name` of the OTLP resource. */
  serviceName: string;
  traceId: string;
  spanId: string;
  /** The received caller's span id; undefined for a root span. */
  parentSpanId: string | undefined;
  /** `<METHOD> <route template>`, or `<METHOD>` when no route matched. */
  name: string;
  kind: 'server';
  /** Unix time in nanoseconds, as a decimal string (OTLP JSON encodes 64-bit integers as strings). */
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, string | number>;
  status: 'ok' | 'error' | 'unset';
  /** W3C trace flags, 2 hex characters. */
  flags: string;
}

/**
 * Receives every finished span. `export` runs in the response path: it must return at once and never throw
 * (buffer and send later). `shutdown` flushes what is buffered; svc calls it on `app:closing`.
 */
export interface SpanExporter {
  export(span: FinishedSpan): void;
  shutdown?(): Promise<void>;
}

/** Now as unix nanoseconds, with sub-millisecond precision from the monotonic clock. */
export function nowUnixNano(): bigint {
  const ms = performance.timeOrigin + performance.now();
  return BigInt(Math.round(ms * 1000)) * 1000n;
}
