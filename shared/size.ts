// Sizes in bytes as svc writes them: an integer number of bytes, or a number with a unit
// (`25MiB`, `10MB`, `64KiB`). Dependency-free, so the runtime's config resolver can share it.

/** Bytes per unit: decimal (SI) and binary (IEC) units, spelled exactly so. */
export const SIZE_UNITS: Readonly<Record<string, number>> = {
  B: 1,
  KB: 1000,
  MB: 1000 ** 2,
  GB: 1000 ** 3,
  KiB: 1024,
  MiB: 1024 ** 2,
  GiB: 1024 ** 3,
};

/** What a size may look like, for messages. */
export const SIZE_FORMS = 'a number of bytes or a size such as 25MiB, 10MB or 64KiB';

const SIZE_TEXT = /^([0-9]+(?:\.[0-9]+)?) ?([A-Za-z]+)$/;

/**
 * The size in bytes: a non-negative integer, a string of digits, or a number with a unit (`1.5MiB`, one
 * optional space before the unit). Undefined for anything else, for a unit spelled another way (`mb`,
 * `MIB`), and for a result that is not a whole number of bytes or beyond Number.MAX_SAFE_INTEGER.
 */
export function parseSize(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value !== 'string') return undefined;
  if (/^[0-9]+$/.test(value)) return parseSize(Number(value));
  const match = SIZE_TEXT.exec(value);
  const [, number = '', unitName = ''] = match ?? [];
  if (!Object.hasOwn(SIZE_UNITS, unitName)) return undefined;
  // Exact arithmetic: 1.001KB is 1001 bytes, not 1000.9999999999999.
  const [whole = '', fraction = ''] = number.split('.');
  const numerator = BigInt(whole + fraction) * BigInt(SIZE_UNITS[unitName] ?? 0);
  const denominator = 10n ** BigInt(fraction.length);
  if (numerator % denominator !== 0n) return undefined;
  const bytes = Number(numerator / denominator);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** The unit meant by a unit written in the wrong case (`mib` → `MiB`), for hints. */
export function sizeUnitLike(value: string): string | undefined {
  const written = SIZE_TEXT.exec(value)?.[2]?.toLowerCase();
  return Object.keys(SIZE_UNITS).find((unit) => unit.toLowerCase() === written);
}

// Largest first; at one size the binary unit wins (2048 → 2 KiB, 2000 → 2 KB).
const DISPLAY_UNITS = ['GiB', 'GB', 'MiB', 'MB', 'KiB', 'KB'] as const;

/** Bytes for people: the largest unit that divides them exactly (`26214400` → `25 MiB`), else bytes. */
export function formatSize(bytes: number): string {
  for (const unit of DISPLAY_UNITS) {
    const size = SIZE_UNITS[unit] ?? 0;
    if (bytes >= size && bytes % size === 0) return `${bytes / size} ${unit}`;
  }
  return bytes === 1 ? '1 byte' : `${bytes} bytes`;
}
