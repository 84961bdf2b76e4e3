// A list's cursor: the position of a page's last row (its order column's value, then its id), as base64url
// JSON. Each value carries its kind (text, number, bigint, timestamp) so it travels back as the same JS
// value, and the cursor carries a short fingerprint of its list (table, order, direction) so a cursor made by
// another list is refused rather than read as a position in this one. Anything that does not decode answers
// DATA_CURSOR_INVALID. A cursor is opaque, not secret: it holds no more than the row it points after showed.
import { createHash } from 'node:crypto';
import { errors } from '../../generated/modules/errors.js';

/** The values a position may hold: what the drivers answer for text, uuid, integer, bigint and timestamp columns. */
export type KeyValue = string | number | bigint | Date;

type Tagged = ['s', string] | ['n', number] | ['b', string] | ['d', string];

/** A few characters naming the list, so cursors of different lists never pass for one another. */
export function listFingerprint(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 8);
}

/** `value`'s tagged form, or undefined for a value no cursor can hold (null, an object, NaN). */
function tag(value: unknown): Tagged | undefined {
  if (typeof value === 'string') return ['s', value];
  if (typeof value === 'number') return Number.isFinite(value) ? ['n', value] : undefined;
  if (typeof value === 'bigint') return ['b', value.toString()];
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : ['d', value.toISOString()];
  return undefined;
}

function untag(tagged: unknown): KeyValue | undefined {
  if (!Array.isArray(tagged) || tagged.length !== 2) return undefined;
  const [kind, value] = tagged as [unknown, unknown];
  if (kind === 's' && typeof value === 'string') return value;
  if (kind === 'n' && typeof value === 'number' && Number.isFinite(value)) return value;
  if (kind === 'b' && typeof value === 'string' && /^-?\d{1,40}$/.test(value)) return BigInt(value);
  if (kind === 'd' && typeof value === 'string') {
    const date = new Date(value);
    // Only the form toISOString writes: a hand-made date is not a position this list gave out.
    return !Number.isNaN(date.getTime()) && date.toISOString() === value ? date : undefined;
  }
  return undefined;
}

/** The cursor for the position `values`, or undefined when a value cannot be held (see KeyValue). */
export function encodeCursor(fingerprint: string, values: readonly unknown[]): string | undefined {
  const tagged: Tagged[] = [];
  for (const value of values) {
    const one = tag(value);
    if (one === undefined) return undefined;
    tagged.push(one);
  }
  return Buffer.from(JSON.stringify([fingerprint, ...tagged])).toString('base64url');
}

/** The position a cursor of this list holds (`count` values), or DATA_CURSOR_INVALID. */
export function decodeCursor(fingerprint: string, cursor: unknown, count: number): KeyValue[] {
  const refuse = () => errors.DATA_CURSOR_INVALID();
  if (typeof cursor !== 'string' || cursor === '' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded.length !== count + 1 || decoded[0] !== fingerprint) throw refuse();
  const values: KeyValue[] = [];
  for (const tagged of decoded.slice(1)) {
    const value = untag(tagged);
    if (value === undefined) throw refuse();
    values.push(value);
  }
  return values;
}
