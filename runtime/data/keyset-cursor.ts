// A list's cursor: the position of a page's last row (its order column's value, then its id), as base64url
// JSON. Each value is the database's own text for it (`column::text`), read back as the column's type when
// the next page binds it as a parameter: text keeps the column's full precision (a timestamptz's
// microseconds, a bigint past 2^53), where a JavaScript Date or number would round it and so repeat or skip
// rows. The cursor also carries a short fingerprint of its list (table, order, direction), so a cursor made
// by another list is refused rather than read as a position in this one. Anything that does not decode
// answers DATA_CURSOR_INVALID. A cursor is opaque, not secret: it holds no more than the row it points after
// showed.
import { createHash } from 'node:crypto';
import { errors } from '../../generated/modules/errors.js';

/** A few characters naming the list, so cursors of different lists never pass for one another. */
export function listFingerprint(parts: readonly string[]): string {
  return createHash('sha256').update(parts.join('\u0000')).digest('base64url').slice(0, 8);
}

/** The cursor for the position `values` (the columns' text), or undefined when one is not text (NULL). */
export function encodeCursor(fingerprint: string, values: readonly unknown[]): string | undefined {
  if (!values.every((value) => typeof value === 'string')) return undefined;
  return Buffer.from(JSON.stringify([fingerprint, ...values])).toString('base64url');
}

/** The position a cursor of this list holds (`count` texts), or DATA_CURSOR_INVALID. */
export function decodeCursor(fingerprint: string, cursor: unknown, count: number): string[] {
  const refuse = () => errors.DATA_CURSOR_INVALID();
  if (typeof cursor !== 'string' || cursor === '' || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refuse();
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refuse();
  }
  if (!Array.isArray(decoded) || decoded.length !== count + 1 || decoded[0] !== fingerprint) throw refuse();
  const values = decoded.slice(1);
  // A NUL cannot be in a PostgreSQL text value: it would only make the driver fail.
  if (!values.every((value): value is string => typeof value === 'string' && !value.includes('\u0000'))) {
    throw refuse();
  }
  return values;
}
