// API keys: the service issuing and checking them, the scope rule, the store contract and its in-memory default.
export {
  ApiKeys,
  DEFAULT_MAX_KEYS_PER_OWNER,
  type ApiKeyCheck,
  type ApiKeyInput,
  type ApiKeysOptions,
  type ApiKeyView,
  type IssuedApiKey,
} from './service.js';
export { ALL_SCOPES, isScope, scopesSatisfy } from './scopes.js';
export { API_KEY_PREFIX } from './key.js';
export type { ApiKeyAddResult, ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from './store.js';
export { MemoryApiKeyStore } from './memory-store.js';
