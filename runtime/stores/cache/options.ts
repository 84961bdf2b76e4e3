// What every cached store takes: HotCache's bounds and windows. Checked at construction, unknown keys refused.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { HotCache, type HotCacheOptions } from './hot-cache.js';
import type { InvalidationBus } from './bus.js';

export type CachedStoreOptions = HotCacheOptions;

const CACHED_STORE_OPTIONS = optionKeys<CachedStoreOptions>({
  maxEntries: true,
  maxAgeMs: true,
  fallbackTtlMs: true,
  now: true,
});

/** The HotCache of one cached store, its options checked under `owner`'s name. */
export function hotCacheFor<V>(
  bus: InvalidationBus,
  owner: string,
  options: CachedStoreOptions,
): HotCache<V> {
  rejectUnknownOptions(options, CACHED_STORE_OPTIONS, owner);
  return new HotCache<V>(bus, owner, options);
}
