// The key prefix every Redis store writes under: one Redis may serve several services or test runs.
import { optionKeys } from '../../config/known-options.js';

/** Default prefix of every key a Redis store writes. */
export const DEFAULT_REDIS_PREFIX = 'svc:';

export interface RedisStoreOptions {
  /** Prefix of every key. Default 'svc:'. */
  prefix?: string;
}

/**
 * The keys of RedisStoreOptions, for the stores that take nothing else. A
 * store whose options extend RedisStoreOptions lists every key of its own interface, `prefix` included.
 */
export const REDIS_STORE_OPTIONS: readonly string[] = optionKeys<RedisStoreOptions>({
  prefix: true,
});

export function prefixOf(options: RedisStoreOptions): string {
  return options.prefix ?? DEFAULT_REDIS_PREFIX;
}
