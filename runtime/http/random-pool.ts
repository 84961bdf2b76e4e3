// One pooled CSPRNG buffer for the random ids svc makes per request (request ids, trace and span ids): it is
// refilled 64 KiB at a time, because a crypto call per id cost a visible share of a request (bench/RESULTS.md).
import { randomFillSync } from 'node:crypto';

const POOL_BYTES = 65_536;

/** The pool; read only the bytes takeRandom() handed out. */
export const randomPool: Buffer = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;
/** The pool as lower-case hex, made on the first randomHex() after a refill. */
let poolHex: string | undefined;

/** Reserves `count` fresh random bytes (at most 64 KiB) and returns where they start in `randomPool`. */
export function takeRandom(count: number): number {
  if (offset + count > POOL_BYTES) {
    randomFillSync(randomPool);
    offset = 0;
    poolHex = undefined;
  }
  const start = offset;
  offset += count;
  return start;
}

/**
 * `count` fresh random bytes as 2 * count lower-case hex characters. The result is a slice of one hex string
 * made per refill (a substring costs far less than a Buffer#toString per id), so while any id is kept, its
 * 128 KiB parent string stays in memory too: fine for ids held by bounded buffers (spans awaiting export).
 */
export function randomHex(count: number): string {
  const start = takeRandom(count);
  poolHex ??= randomPool.toString('hex');
  return poolHex.slice(2 * start, 2 * (start + count));
}
