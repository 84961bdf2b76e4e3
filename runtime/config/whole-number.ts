// The check every count or duration option shares (maxEntries, ttlMs, intervalMs, …): a whole number, 1 or
// more. A bad value is a programming error at construction, so it throws a TypeError naming owner and option.

export function isPositiveWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** `value`, or `fallback` when undefined, checked; else a TypeError "<owner>: <option> must be …". */
export function positiveWholeNumber(value: unknown, fallback: number, owner: string, option: string): number {
  const chosen = value ?? fallback;
  if (!isPositiveWholeNumber(chosen)) {
    throw new TypeError(`${owner}: ${option} must be a whole number, 1 or more.`);
  }
  return chosen;
}
