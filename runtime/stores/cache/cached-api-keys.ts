// An ApiKeyStore that answers `findByHash` (every request presenting a key) from this process's hot cache.
// Only keys that exist are kept, tagged with the key's topic and its user's: revoking one key, or all of a
// user's, reaches every process. A `touch` this process makes is applied to its cached copy too, so the
// service's once-a-minute lastUsedAt write stays once a minute while the key is served from cache.
import type { ApiKeyAddResult, ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from '../../auth/apikeys/store.js';
import { apiKeyTopic, userTopic, type InvalidationBus } from './bus.js';
import type { HotCache } from './hot-cache.js';
import { hotCacheFor, type CachedStoreOptions } from './options.js';

/** The contract answers copies: a caller changing one must not change what the next request reads. */
function copyOf(record: ApiKeyRecord): ApiKeyRecord {
  return { ...record, scopes: [...record.scopes] };
}

function tagsOf(record: ApiKeyRecord | undefined): string[] {
  if (record === undefined) return [];
  return record.userId === undefined
    ? [apiKeyTopic(record.id)]
    : [apiKeyTopic(record.id), userTopic(record.userId)];
}

export class CachedApiKeyStore implements ApiKeyStore {
  private readonly cache: HotCache<ApiKeyRecord | undefined>;

  constructor(
    readonly inner: ApiKeyStore,
    private readonly bus: InvalidationBus,
    options: CachedStoreOptions = {},
  ) {
    this.cache = hotCacheFor(bus, 'CachedApiKeyStore', options);
  }

  // Nothing is cached for an unknown hash, so a new key has nothing to evict.
  add(record: ApiKeyRecord, maxPerOwner: number, now: number): Promise<ApiKeyAddResult> {
    return this.inner.add(record, maxPerOwner, now);
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    // A hit builds no loader: the hot path is one map lookup.
    const record =
      this.cache.get(hash) ??
      (await this.cache.through(
        hash,
        () => this.inner.findByHash(hash),
        tagsOf,
        (found) => found !== undefined,
      ));
    return record === undefined ? undefined : copyOf(record);
  }

  get(id: string): Promise<ApiKeyRecord | undefined> {
    return this.inner.get(id);
  }

  list(filter: ApiKeyFilter): Promise<ApiKeyRecord[]> {
    return this.inner.list(filter);
  }

  async remove(id: string, owner?: ApiKeyFilter): Promise<boolean> {
    const removed = await this.inner.remove(id, owner);
    if (removed) await this.bus.publish(apiKeyTopic(id));
    return removed;
  }

  async removeByUser(userId: string): Promise<number> {
    const removed = await this.inner.removeByUser(userId);
    await this.bus.publish(userTopic(userId));
    return removed;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.inner.touch(id, at);
    // As the store does: a later use already recorded wins over this one.
    this.cache.updateTagged(apiKeyTopic(id), (record) =>
      record === undefined ? record : { ...record, lastUsedAt: Math.max(record.lastUsedAt ?? at, at) },
    );
  }

  /** Stops listening to the bus and forgets what it cached. */
  close(): void {
    this.cache.close();
  }
}
