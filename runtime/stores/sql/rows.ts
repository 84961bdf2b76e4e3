// Stores select each column under its record field's name (`created_at AS "createdAt"`), and both clients answer
// BIGINT as numbers and text[] as arrays (client.ts), so a row is its record but for NULL: a record leaves an
// unset optional field out.

/** The row of a record `T`: an optional field is a column that may be NULL. */
export type RowOf<T> = { [K in keyof T]: undefined extends T[K] ? Exclude<T[K], undefined> | null : T[K] };

/** `row` as its record: NULL columns left out. */
export function recordOf<T>(row: RowOf<T>): T {
  const record: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(row)) if (value !== null) record[key] = value;
  return record as T;
}
