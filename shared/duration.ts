// Durations as svc writes them: a non-negative integer number of milliseconds, or a number with
// a unit (`500ms`, `30s`, `15m`, `1h`, `30d`). Dependency-free, so the runtime's config resolver can share it.

/** Milliseconds per unit, spelled exactly so. */
export const DURATION_UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/** What a duration may look like, for messages. */
export const DURATION_FORMS = 'a number of milliseconds or a duration such as 500ms, 30s, 15m, 1h or 30d';

const DURATION_TEXT = /^([0-9]+) ?(ms|s|m|h|d)$/;

/**
 * The duration in milliseconds: a non-negative safe integer, a string of digits, or whole units (`15m`,
 * one optional space before the unit). Undefined for anything else (fractions, other spellings, negatives).
 */
export function parseDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^[0-9]+$/.test(value)) return parseDuration(Number(value));
  const match = DURATION_TEXT.exec(value);
  if (!match) return undefined;
  const [, amount = '', unit = ''] = match;
  const ms = Number(amount) * (DURATION_UNITS[unit] ?? 0);
  return Number.isSafeInteger(ms) ? ms : undefined;
}
