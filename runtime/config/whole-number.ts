// The check every count or duration option shares (maxEntries, ttlMs, intervalMs, …): a whole number, 1 or
// more. A bad value is a programming error at construction, so it throws an OptionError (OPTION_INVALID)
// naming owner and option.
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
