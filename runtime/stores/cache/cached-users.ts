// A UserSource that answers `findById` (read after every session lookup) from this process's hot cache. Only
// users that exist are kept, tagged with the user's topic; `update` publishes it. Lookups by email and the
// bulk lookup pass through: they are not on the hot path, and an email lookup must see a new account at once.
import type { AuthUser, NewUser, PublicUser, UserPatch, UserSource } from '../../auth/stores/users.js';
import { userTopic, type InvalidationBus } from './bus.js';
import type { HotCache } from './hot-cache.js';
import { hotCacheFor, type CachedStoreOptions } from './options.js';

export class CachedUserSource implements UserSource {
  private readonly cache: HotCache<AuthUser | null>;
  // Declared, not initialised: a source without `update`/`findByIds` must not gain the key (callers test
  // whether the method is there to know whether the application supports it).
  declare readonly update?: (id: string, patch: UserPatch) => Promise<AuthUser | null>;
  declare readonly findByIds?: (ids: readonly string[]) => Promise<PublicUser[]>;

  constructor(
    readonly inner: UserSource,
    private readonly bus: InvalidationBus,
    options: CachedStoreOptions = {},
  ) {
    this.cache = hotCacheFor(bus, 'CachedUserSource', options);
    const update = inner.update?.bind(inner);
    if (update !== undefined) {
      Object.defineProperty(this, 'update', {
        enumerable: true,
        value: async (id: string, patch: UserPatch): Promise<AuthUser | null> => {
          const updated = await update(id, patch);
          // Published even for null: a user removed behind svc's back must not be served on.
          await this.bus.publish(userTopic(id));
          return updated;
        },
      });
    }
    const findByIds = inner.findByIds?.bind(inner);
    if (findByIds !== undefined) {
      Object.defineProperty(this, 'findByIds', { enumerable: true, value: findByIds });
    }
  }

  findByEmail(email: string): Promise<AuthUser | null> {
    return this.inner.findByEmail(email);
  }

  async findById(id: string): Promise<AuthUser | null> {
    // A hit builds no loader: the hot path is one map lookup.
    const user =
      this.cache.get(id) ??
      (await this.cache.through(
        id,
        () => this.inner.findById(id),
        () => [userTopic(id)],
        (found) => found !== null,
      ));
    return user === null ? null : { ...user };
  }

  create(user: NewUser): Promise<AuthUser> {
    return this.inner.create(user);
  }

  /** Stops listening to the bus and forgets what it cached. */
  close(): void {
    this.cache.close();
  }
}
