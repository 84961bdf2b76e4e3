// Column readers shared by the stores. node-postgres (configured by pg-client.ts) and PGlite both answer BIGINT
// as numbers; reading through these keeps a store correct if a driver answers a string or a bigint instead.

/** A NOT NULL numeric column. */
export function num(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint' || typeof value === 'string') return Number(value);
  throw new TypeError(`svckit sql: expected a number, got ${typeof value}`);
}

/** A nullable numeric column: undefined for NULL, so optional record fields stay absent. */
export function optionalNum(value: unknown): number | undefined {
  return value === null || value === undefined ? undefined : num(value);
}

/** A text[] column. */
export function textArray(value: unknown): string[] {
  if (!Array.isArray(value)) throw new TypeError('svckit sql: expected a text[] column');
  return value.map(String);
}
