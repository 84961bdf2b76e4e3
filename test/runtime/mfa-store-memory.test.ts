// The in-memory MFA store (two-factor sign-in with `stores.database: memory`): the whole MfaStore contract,
// races included.
import { MemoryMfaStore } from '../../runtime/auth/mfa/memory-store.js';
import { mfaStoreContract } from './contracts/mfa-store.js';

mfaStoreContract('MemoryMfaStore', () => new MemoryMfaStore());
