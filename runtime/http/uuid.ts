// Request ids: UUID version 7 (RFC 9562), time-ordered so logs sort by id. The 74 random bits come from the
// pooled CSPRNG buffer of random-pool.ts: node's randomUUID() refills its cache every 128 ids, which under
// load cost several percent of svc's throughput (bench/RESULTS.md). The id is built with one
// String.fromCharCode call, so it is a flat string: a concatenated one would be flattened again by every
// header check and log write.
import { randomPool as pool, takeRandom } from './random-pool.js';

const RANDOM_BYTES_PER_ID = 10;

/** Char codes of the hex digits: HEX[n] for 0 <= n < 16. */
const HEX = Array.from('0123456789abcdef', (digit) => digit.charCodeAt(0));
const DASH = 0x2d;

const hi = (byte: number): number => HEX[byte >>> 4]!;
const lo = (byte: number): number => HEX[byte & 0x0f]!;

/** A new UUIDv7: 48-bit Unix milliseconds, version 7, 12 random bits, variant 10, 62 random bits. */
export function uuidv7(now: number = Date.now()): string {
  const r = takeRandom(RANDOM_BYTES_PER_ID);
  const top = Math.floor(now / 0x10000); // the top 32 of the 48 timestamp bits
  const t0 = (top >>> 24) & 0xff;
  const t1 = (top >>> 16) & 0xff;
  const t2 = (top >>> 8) & 0xff;
  const t3 = top & 0xff;
  const t4 = (now >>> 8) & 0xff;
  const t5 = now & 0xff;
  const version = 0x70 | (pool[r]! & 0x0f);
  const a = pool[r + 1]!;
  const variant = 0x80 | (pool[r + 2]! & 0x3f);
  const b = pool[r + 3]!;
  const c0 = pool[r + 4]!;
  const c1 = pool[r + 5]!;
  const c2 = pool[r + 6]!;
  const c3 = pool[r + 7]!;
  const c4 = pool[r + 8]!;
  const c5 = pool[r + 9]!;
  // prettier-ignore
  return String.fromCharCode(
    hi(t0), lo(t0), hi(t1), lo(t1), hi(t2), lo(t2), hi(t3), lo(t3), DASH,
    hi(t4), lo(t4), hi(t5), lo(t5), DASH,
    hi(version), lo(version), hi(a), lo(a), DASH,
    hi(variant), lo(variant), hi(b), lo(b), DASH,
    hi(c0), lo(c0), hi(c1), lo(c1), hi(c2), lo(c2), hi(c3), lo(c3), hi(c4), lo(c4), hi(c5), lo(c5),
  );
}
