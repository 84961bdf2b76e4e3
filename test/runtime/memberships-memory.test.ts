// The in-memory membership store (the tenancy module's store with `stores.database: memory`): the whole
// MembershipStore contract, races included, and its options.
import { describe, expect, it } from 'vitest';
import { MemoryMembershipStore } from '../../runtime/tenancy/index.js';
import { membershipStoreContract } from './contracts/membership-store.js';

membershipStoreContract('MemoryMembershipStore', (clock) => new MemoryMembershipStore({ now: clock.now }));

describe('MemoryMembershipStore options', () => {
  it('refuses an unknown option, naming the one it takes', () => {
    expect(() => new MemoryMembershipStore({ clock: Date.now } as never)).toThrow(
      /MemoryMembershipStore: unknown option "clock".*it takes now/,
    );
  });

  it('dates tenants and memberships with Date.now by default', async () => {
    const before = Date.now();
    const tenant = await new MemoryMembershipStore().createTenant({ name: 'A', ownerId: 'u', role: 'owner' });
    expect(tenant.createdAt).toBeGreaterThanOrEqual(before);
    expect(tenant.createdAt).toBeLessThanOrEqual(Date.now());
  });
});
