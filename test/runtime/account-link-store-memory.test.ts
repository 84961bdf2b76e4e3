// The in-memory account-link store (social sign-in with `stores.database: memory`): the whole
// AccountLinkStore contract, races included.
import { MemoryAccountLinkStore } from '../../runtime/auth/stores/memory-account-links.js';
import { accountLinkStoreContract } from './contracts/account-link-store.js';

accountLinkStoreContract('MemoryAccountLinkStore', () => new MemoryAccountLinkStore());
