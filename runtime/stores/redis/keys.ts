// The key prefix every Redis store writes under: one Redis may serve several services or test runs.

/** Default prefix of every key a Redis store writes. */
export const DEFAULT_REDIS_PREFIX = 'svc:';

export interface RedisStoreOptions {
  /** Prefix of every key. Default 'svc:'. */
  prefix?: string;
}

/**
 * The keys of RedisStoreOptions (`satisfies` keeps the list exact), for the stores that take nothing else. A
 * store whose options extend RedisStoreOptions lists every key of its own interface, `prefix` included.
 */
export const REDIS_STORE_OPTIONS: readonly string[] = Object.keys({
  prefix: true,
} satisfies Record<keyof RedisStoreOptions, true>);

export function prefixOf(options: RedisStoreOptions): string {
  return options.prefix ?? DEFAULT_REDIS_PREFIX;
}
