// Idempotency keys: idempotencyPlugin, its stores and the scope a key is unique in (docs/http.md,
// "idempotencyPlugin(...)").
export {
  idempotencyPlugin,
  DEFAULT_IDEMPOTENCY_HEADER,
  IDEMPOTENT_REPLAYED_HEADER,
  MAX_IDEMPOTENCY_KEY_LENGTH,
} from './plugin.js';
export type { IdempotencyPluginOptions } from './plugin.js';
export { idempotencyPlugins, type IdempotencyModuleContext } from './config.js';
export {
  MemoryIdempotencyStore,
  DEFAULT_IDEMPOTENCY_MAX_ENTRIES,
  DEFAULT_IDEMPOTENCY_TTL_MS,
} from './memory-store.js';
export type { MemoryIdempotencyStoreOptions } from './memory-store.js';
export { idempotencyScope, DEFAULT_CREDENTIAL_HEADERS } from './scope.js';
export type { ScopeInput } from './scope.js';
export type { IdempotencyRecord, IdempotencyStore } from './store.js';
