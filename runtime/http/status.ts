// The check every adapter's reply.status() applies, so all three refuse the same values the same way.

/** Returns `code` when it is an integer HTTP status (100–599); throws a RangeError otherwise. */
export function checkedStatus(code: number): number {
  if (!Number.isInteger(code) || code < 100 || code > 599) {
    throw new RangeError(`reply.status(): ${String(code)} is not an HTTP status code.`);
  }
  return code;
}
