// The `amr` list (authentication methods: `pwd`, `mfa`, `fed`, ...) travels inside access tokens and
// session ids. One rule for both keeps the signed forms small and safe to put in a cookie or header.

/** At most `maxEntries` entries, each matching `entry`. */
export const AMR_LIMITS = Object.freeze({
  maxEntries: 8,
  entry: /^[a-z0-9_]{1,16}$/,
});

/** Whether `value` is an amr list svc signs: an array of at most 8 short lowercase identifiers. */
export function isAmrList(value: unknown): value is string[] {
  return (
    Array.isArray(value) &&
    value.length <= AMR_LIMITS.maxEntries &&
    value.every((entry) => typeof entry === 'string' && AMR_LIMITS.entry.test(entry))
  );
}

/** Throws a TypeError naming `caller` unless `amr` is a list svc signs. */
export function assertAmrList(amr: unknown, caller: string): asserts amr is string[] {
  if (!isAmrList(amr)) {
    throw new TypeError(
      `${caller}: amr must be an array of at most ${AMR_LIMITS.maxEntries} entries matching ${AMR_LIMITS.entry}.`,
    );
  }
}
