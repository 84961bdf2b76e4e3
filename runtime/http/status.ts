// Status rules every adapter's reply applies, so all three refuse the same values and frame the same bodies.

/** Returns `code` when it is an integer HTTP status (100–599); throws a RangeError otherwise. */
export function checkedStatus(code: number): number {
  if (!Number.isInteger(code) || code < 100 || code > 599) {
    throw new RangeError(`reply.status(): ${String(code)} is not an HTTP status code.`);
  }
  return code;
}

/** 1xx, 204 and 304 answers carry no body, and so no content headers either (RFC 9110 §6.4.1, §8.6). */
export function hasNoBody(status: number): boolean {
  return status < 200 || status === 204 || status === 304;
}
