// A SessionStore that answers `get` from this process's hot cache (docs/stores.md, "Hot cache"): a session
// read on every request costs no round trip while it is cached. Only sessions that exist are kept, tagged
// with their own topic and their user's, so ending one session or all of a user's reaches every process.
import type { SessionRecord, SessionStore } from '../../auth/stores/sessions.js';
import { sessionTopic, userTopic, type InvalidationBus } from './bus.js';
import type { HotCache } from './hot-cache.js';
import { hotCacheFor, type CachedStoreOptions } from './options.js';

export class CachedSessionStore implements SessionStore {
  private readonly cache: HotCache<SessionRecord | undefined>;

  constructor(
    readonly inner: SessionStore,
    private readonly bus: InvalidationBus,
    options: CachedStoreOptions = {},
  ) {
    this.cache = hotCacheFor(bus, 'CachedSessionStore', options);
  }

  // Nothing is cached for an unknown id, so a new session has nothing to evict.
  create(idHash: string, record: SessionRecord): Promise<void> {
    return this.inner.create(idHash, record);
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    // A hit builds no loader: the hot path is one map lookup.
    const record =
      this.cache.get(idHash) ??
      (await this.cache.through(
        idHash,
        () => this.inner.get(idHash, now),
        (found) => (found === undefined ? [] : [sessionTopic(idHash), userTopic(found.userId)]),
        (found) => found !== undefined,
      ));
    if (record === undefined) return undefined;
    // The cached record outlives no session: its expiry is checked against every caller's `now`.
    if (record.expiresAt <= now) {
      this.cache.forget(idHash);
      return undefined;
    }
    return { ...record, amr: [...record.amr] };
  }

  async delete(idHash: string): Promise<void> {
    await this.inner.delete(idHash);
    await this.bus.publish(sessionTopic(idHash));
  }

  async deleteByUser(userId: string): Promise<number> {
    const ended = await this.inner.deleteByUser(userId);
    await this.bus.publish(userTopic(userId));
    return ended;
  }

  /** Stops listening to the bus and forgets what it cached. */
  close(): void {
    this.cache.close();
  }
}
