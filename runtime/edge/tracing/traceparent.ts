// W3C Trace Context `traceparent` (version 00): parse what a caller sent, format what svc answers.
import { randomPool, takeRandom } from '../../http/random-pool.js';

export interface TraceParent {
  /** 32 lower-case hex characters, never all zeros. */
  traceId: string;
  /** 16 lower-case hex characters, never all zeros. */
  spanId: string;
  /** 2 hex characters (bit 0: sampled). */
  flags: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
const ALL_ZEROS = /^0+$/;

/** The received parent, or undefined when the header is missing, repeated or malformed (a new trace starts). */
export function parseTraceparent(header: string | string[] | undefined): TraceParent | undefined {
  if (typeof header !== 'string') return undefined;
  const match = TRACEPARENT.exec(header.trim());
  if (match === null) return undefined;
  const [, traceId = '', spanId = '', flags = ''] = match;
  if (ALL_ZEROS.test(traceId) || ALL_ZEROS.test(spanId)) return undefined;
  return { traceId, spanId, flags };
}

export function formatTraceparent(parent: TraceParent): string {
  return `00-${parent.traceId}-${parent.spanId}-${parent.flags}`;
}

// Ids come from the shared CSPRNG pool: one randomBytes call per request cost about a seventh of a traced
// request's CPU (bench/RESULTS.md, `npm run bench -- edge`).
function randomHex(bytes: number): string {
  // An all-zero id is invalid; the odds are negligible but the retry costs nothing.
  for (;;) {
    const start = takeRandom(bytes);
    const hex = randomPool.toString('hex', start, start + bytes);
    if (!ALL_ZEROS.test(hex)) return hex;
  }
}

export const newTraceId = (): string => randomHex(16);
export const newSpanId = (): string => randomHex(8);
