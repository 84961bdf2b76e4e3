// The most bytes a file part can carry, known when the request declared its length: what is left of the
// body after the part's headers, less the shortest close delimiter that must still follow. A consumer that
// reserves room for the part (a quota) can take this much at once instead of growing step by step.

/**
 * The bound of a part whose data begins `consumed` bytes into a body of `declaredLength` bytes: the close
 * delimiter `\r\n--<boundary>--` must still follow it, or the body is malformed.
 */
export function partSizeBound(declaredLength: number, consumed: number, boundary: string): number {
  return Math.max(0, declaredLength - consumed - (boundary.length + 6));
}
