// W3C Trace Context `traceparent` (version 00): parse what a caller sent, make the one svc answers.
import { randomPool as pool, takeRandom } from '../../http/random-pool.js';

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

// Where the parts sit in `00-<trace id>-<span id>-<flags>`.
const TRACE_ID_AT = 3;
const SPAN_ID_AT = TRACE_ID_AT + 32 + 1;
const FLAGS_AT = SPAN_ID_AT + 16 + 1;
const TRACEPARENT_LENGTH = FLAGS_AT + 2;

/** Char codes of the hex digits: HEX[n] for 0 <= n < 16. */
const HEX = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));

// The header is assembled as char codes and made a string in one String.fromCharCode call, so it is flat and
// no native call is made: the concatenation of pooled hex slices it replaced was flattened again by node's
// header check on every response, and each slice kept its refill's 128 KiB hex string alive
// (bench/RESULTS.md, `npm run bench -- edge`).
const codes = Array.from(`00-${ZERO_TRACE_ID}-${ZERO_SPAN_ID}-00`, (char) => char.charCodeAt(0));

/** Puts `count` fresh random bytes as hex at `at`; false when they were all zero (an invalid id). */
function putRandomHex(at: number, count: number): boolean {
  const start = takeRandom(count);
  let any = 0;
  for (let index = 0; index < count; index++) {
    const byte = pool[start + index] as number;
    any |= byte;
    codes[at + 2 * index] = HEX[byte >>> 4] as number;
    codes[at + 2 * index + 1] = HEX[byte & 0x0f] as number;
  }
  return any !== 0;
}

/** Puts `text` (ASCII) at `at`. */
function putText(at: number, text: string): void {
  for (let index = 0; index < text.length; index++) codes[at + index] = text.charCodeAt(index);
}

/** Flags of a trace svc starts: it records every span it starts, so it marks them sampled. */
const ROOT_FLAGS = '01';

/**
 * The `traceparent` of a new server span: a child of `parent` (same trace id and flags), or the root of a new
 * sampled trace. Read its parts back with traceIdOf(), spanIdOf() and flagsOf().
 */
export function newSpanTraceparent(parent: TraceParent | undefined): string {
  if (parent === undefined) {
    // An all-zero id is invalid; the odds are negligible, but the retry costs nothing.
    while (!putRandomHex(TRACE_ID_AT, 16));
    putText(FLAGS_AT, ROOT_FLAGS);
  } else {
    putText(TRACE_ID_AT, parent.traceId);
    putText(FLAGS_AT, parent.flags);
  }
  while (!putRandomHex(SPAN_ID_AT, 8));
  return String.fromCharCode(...codes);
}

export function traceIdOf(traceparent: string): string {
  return traceparent.slice(TRACE_ID_AT, TRACE_ID_AT + 32);
}

export function spanIdOf(traceparent: string): string {
  return traceparent.slice(SPAN_ID_AT, SPAN_ID_AT + 16);
}

export function flagsOf(traceparent: string): string {
  return traceparent.slice(FLAGS_AT, TRACEPARENT_LENGTH);
}
