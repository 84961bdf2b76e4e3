// The hot cache of the shared stores (docs/stores.md, "Hot cache"): the bus, the cache, the four cached
// stores, and `cachedStores`, which wraps whichever of them a process has.
import type { ApiKeyStore } from '../../auth/apikeys/store.js';
import type { SessionStore } from '../../auth/stores/sessions.js';
import type { UserSource } from '../../auth/stores/users.js';
import type { MembershipStore } from '../../tenancy/memberships.js';
import type { InvalidationBus } from './bus.js';
import { CachedApiKeyStore } from './cached-api-keys.js';
import { CachedMembershipStore } from './cached-memberships.js';
import { CachedSessionStore } from './cached-sessions.js';
import { CachedUserSource } from './cached-users.js';
import type { CachedStoreOptions } from './options.js';

export {
  apiKeyTopic,
  EVERYTHING,
  membershipTopic,
  sessionTopic,
  userTopic,
  type InvalidationBus,
} from './bus.js';
export {
  DEFAULT_CACHE_FALLBACK_TTL_MS,
  DEFAULT_CACHE_MAX_AGE_MS,
  DEFAULT_CACHE_MAX_ENTRIES,
  HotCache,
  type HotCacheOptions,
} from './hot-cache.js';
export { localBus } from './local-bus.js';
export { DEFAULT_REDIS_BUS_CHANNEL, openRedisBus, type RedisBusOptions } from './redis-bus.js';
export { DEFAULT_PG_BUS_CHANNEL, openPgBus, type PgBusOptions } from './pg-bus.js';
export { DEFAULT_BUS_HEARTBEAT_MS, DEFAULT_BUS_RETRY_FOR_MS, type BusOptions } from './bus-health.js';
export { CachedApiKeyStore } from './cached-api-keys.js';
export { CachedMembershipStore } from './cached-memberships.js';
export { CachedSessionStore } from './cached-sessions.js';
export { CachedUserSource } from './cached-users.js';
export type { CachedStoreOptions } from './options.js';

/** The stores read on every request, any of them absent. */
export interface HotPathStores {
  users?: UserSource;
  sessions?: SessionStore;
  apiKeys?: ApiKeyStore;
  memberships?: MembershipStore;
}

export interface CachedHotPathStores extends HotPathStores {
  /** Stops every cache listening to the bus and forgets what they hold; the bus itself stays open. */
  close(): void;
}

/** Each store of `stores` that is there, wrapped with a cache of its own kept honest by `bus`. */
export function cachedStores(
  stores: HotPathStores,
  bus: InvalidationBus,
  options: CachedStoreOptions = {},
): CachedHotPathStores {
  const users = stores.users && new CachedUserSource(stores.users, bus, options);
  const sessions = stores.sessions && new CachedSessionStore(stores.sessions, bus, options);
  const apiKeys = stores.apiKeys && new CachedApiKeyStore(stores.apiKeys, bus, options);
  const memberships = stores.memberships && new CachedMembershipStore(stores.memberships, bus, options);
  return {
    users,
    sessions,
    apiKeys,
    memberships,
    close() {
      for (const cached of [users, sessions, apiKeys, memberships]) cached?.close();
    },
  };
}
