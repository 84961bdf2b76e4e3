// The check every count or duration option shares (maxEntries, ttlMs, intervalMs, …): a whole number, 1 or
// more. A bad value is a programming error at construction, so it throws a TypeError naming owner and option.

/** `value`, or `fallback` when undefined, checked; else a TypeError "<owner>: <option> must be …". */
export function positiveWholeNumber(value: unknown, fallback: number, owner: string, option: string): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < 1) {
    throw new TypeError(`${owner}: ${option} must be a whole number, 1 or more.`);
  }
  return chosen;
}
