// CachedMembershipStore: the membership store contract still holds through the cache; a role, and "not a
// member", cost no read of the store once cached; adding, re-roling and removing a member on one process is
// seen at once on another.
import { describe, expect, it } from 'vitest';
import { CachedMembershipStore } from '../../../runtime/stores/cache/cached-memberships.js';
import { localBus } from '../../../runtime/stores/cache/local-bus.js';
import { MemoryMembershipStore } from '../../../runtime/tenancy/memory-memberships.js';
import { membershipStoreContract } from '../contracts/membership-store.js';
import { counted, linkedBuses, unreachableBus } from './fake-buses.js';

const RULES = { protectedRole: 'owner' };

membershipStoreContract('CachedMembershipStore over MemoryMembershipStore', (clock) => {
  return new CachedMembershipStore(new MemoryMembershipStore({ now: clock.now }), localBus());
});

function twoProcesses() {
  const inner = counted(new MemoryMembershipStore());
  const [busA, busB] = linkedBuses();
  return {
    inner,
    a: new CachedMembershipStore(inner.store, busA),
    b: new CachedMembershipStore(inner.store, busB),
  };
}

describe('CachedMembershipStore', () => {
  it('answers a cached role, and a cached "not a member", without reading the store', async () => {
    const { inner, a } = twoProcesses();
    const tenant = await a.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
    for (let read = 0; read < 3; read++) {
      expect(await a.roleOf(tenant.id, 'alice')).toBe('owner');
      expect(await a.roleOf(tenant.id, 'mallory')).toBeUndefined();
    }
    expect(inner.calls.roleOf).toBe(2);
  });

  it('gives a member added on another process its role at once, though "not a member" was cached', async () => {
    const { a, b } = twoProcesses();
    const tenant = await a.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
    expect(await b.roleOf(tenant.id, 'bob')).toBeUndefined();
    expect((await a.addMember(tenant.id, 'bob', 'member')).ok).toBe(true);
    expect(await b.roleOf(tenant.id, 'bob')).toBe('member');
  });

  it('sees a role changed or a member removed on another process at once', async () => {
    const { a, b } = twoProcesses();
    const tenant = await a.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
    await a.addMember(tenant.id, 'bob', 'member');
    expect(await b.roleOf(tenant.id, 'bob')).toBe('member');
    expect((await a.setRole(tenant.id, 'bob', 'admin', RULES)).ok).toBe(true);
    expect(await b.roleOf(tenant.id, 'bob')).toBe('admin');
    expect((await a.removeMember(tenant.id, 'bob', RULES)).ok).toBe(true);
    expect(await b.roleOf(tenant.id, 'bob')).toBeUndefined();
  });

  it('fails a change whose invalidation cannot be sent (503)', async () => {
    const store = new CachedMembershipStore(new MemoryMembershipStore(), unreachableBus());
    await expect(store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' })).rejects.toMatchObject(
      {
        code: 'STORE_UNAVAILABLE',
        status: 503,
      },
    );
  });
});
