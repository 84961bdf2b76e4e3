// W3C Trace Context `traceparent` (version 00): parse what a caller sent, format what svc answers.
import { randomHex } from '../../http/random-pool.js';

export interface TraceParent {
  /** 32 lower-case hex characters, never all zeros. */
  traceId: string;
  /** 16 lower-case hex characters, never all zeros. */
  spanId: string;
  /** 2 hex characters (bit 0: sampled). */
  flags: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** The received parent, or undefined when the header is missing, repeated or malformed (a new trace starts). */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  if (traceId === ZERO_TRACE_ID || spanId === ZERO_SPAN_ID) return undefined;
  return { traceId, spanId, flags };
}

export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.flags}`;
}

// Ids come from the shared CSPRNG pool: one randomBytes call per request cost about a seventh of a traced
// request's CPU (bench/RESULTS.md, `npm run bench -- edge`). An all-zero id is invalid; the odds are
// negligible but the retry costs nothing.
export function newTraceId(): string {
  for (;;) {
    const id = randomHex(16);
    if (id !== ZERO_TRACE_ID) return id;
  }
}

export function newSpanId(): string {
  for (;;) {
    const id = randomHex(8);
    if (id !== ZERO_SPAN_ID) return id;
  }
}
