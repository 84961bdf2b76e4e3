// The key prefix every Redis store writes under: one Redis may serve several services or test runs.

/** Default prefix of every key a Redis store writes. */
export const DEFAULT_REDIS_PREFIX = 'svc:';

export interface RedisStoreOptions {
  /** Prefix of every key. Default 'svc:'. */
  prefix?: string;
}

export function prefixOf(options: RedisStoreOptions): string {
  return options.prefix ?? DEFAULT_REDIS_PREFIX;
}
