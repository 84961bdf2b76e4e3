// One pooled CSPRNG buffer for the random ids svc makes per request (request ids, trace and span ids): it is
// refilled 64 KiB at a time, because a crypto call per id cost a visible share of a request (bench/RESULTS.md).
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 65_536;

/** The pool; read only the bytes takeRandom() handed out. */
export const randomPool: Buffer = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/** Reserves `count` fresh random bytes (at most 64 KiB) and returns where they start in `randomPool`. */
export function takeRandom(count: number): number {
  if (offset + count > POOL_BYTES) {
    randomFillSync(randomPool);
    offset = 0;
  }
  const start = offset;
  offset += count;
  return start;
}
