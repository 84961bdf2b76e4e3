// The in-memory API-key store (API keys with `stores.database: memory`): the whole ApiKeyStore contract, races
// included.
import { MemoryApiKeyStore } from '../../runtime/auth/apikeys/memory-store.js';
import { apiKeyStoreContract } from './contracts/api-key-store.js';

apiKeyStoreContract('MemoryApiKeyStore', () => new MemoryApiKeyStore());
