// What every Redis store shares: the key prefix (one Redis may serve several services or test runs) and the
// parsing of replies, which arrive as strings.

/** Default prefix of every key a Redis store writes. */
export const DEFAULT_REDIS_PREFIX = 'svc:';

export interface RedisStoreOptions {
  /** Prefix of every key. Default 'svc:'. */
  prefix?: string;
}

export function prefixOf(options: RedisStoreOptions): string {
  return options.prefix ?? DEFAULT_REDIS_PREFIX;
}

/** A numeric hash field or script reply value (Redis answers numbers as strings or integers). */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** An optional numeric field: undefined when absent or empty. */
export function optionalNumber(value: unknown): number | undefined {
  return value === undefined || value === null || value === '' ? undefined : toNumber(value);
}

/** A script's array reply as an array (anything else is a bug in the script). */
export function arrayReply(reply: unknown): unknown[] {
  if (!Array.isArray(reply)) throw new TypeError(`Unexpected Redis reply: ${String(reply)}`);
  return reply as unknown[];
}
