// The checks every count, size or duration option shares (maxEntries, ttlMs, bodyLimit, …): a whole number,
// 1 or more, or 0 or more where 0 means none or off. A bad value is a programming error at construction, so
// it throws an OptionError (OPTION_INVALID) naming owner and option.
import { invalidOption } from './option-errors.js';

export function isPositiveWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0;
}

/** `value`, or `fallback` when undefined, checked; else OPTION_INVALID "<owner>: <option> must be …". */
export function positiveWholeNumber(value: unknown, fallback: number, owner: string, option: string): number {
  const chosen = value ?? fallback;
  if (!isPositiveWholeNumber(chosen)) {
    throw invalidOption(owner, option, 'a whole number, 1 or more');
  }
  return chosen;
}

/**
 * `value`, or `fallback` when undefined, checked to be a whole number, 0 or more; else OPTION_INVALID
 * "<owner>: <option> must be a whole number [of <unit>], 0 or more; got <value>".
 */
export function nonNegativeWholeNumber(
  value: unknown,
  fallback: number,
  owner: string,
  option: string,
  unit?: 'bytes' | 'milliseconds' | 'seconds',
): number {
  const chosen = value ?? fallback;
  if (typeof chosen !== 'number' || !Number.isSafeInteger(chosen) || chosen < 0) {
    const number = unit === undefined ? 'a whole number' : `a whole number of ${unit}`;
    throw invalidOption(owner, option, `${number}, 0 or more`, `got ${String(chosen)}`);
  }
  return chosen;
}
