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
  /**
   * Unix time in milliseconds, with sub-millisecond precision from the monotonic clock. A number, not
   * OTLP's nanosecond string: formatting two 64-bit integers per request cost a visible share of a traced
   * request, so exporters that need the string make it (`unixNanoString`) off the request path.
   */
  startTimeUnixMs: number;
  endTimeUnixMs: number;
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

/** Now as unix milliseconds with sub-millisecond precision (the monotonic clock from the process start). */
export function nowUnixMs(): number {
  return performance.timeOrigin + performance.now();
}

/** Unix milliseconds as OTLP's unix nanoseconds, a decimal string, precise to the microsecond. */
export function unixNanoString(unixMs: number): string {
  // Microseconds since 1970 stay below 2^53 until the year 2255, so the number is exact.
  return `${Math.round(unixMs * 1000)}000`;
}
