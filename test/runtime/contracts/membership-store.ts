// The MembershipStore contract as reusable suites, run on every backend (memory, PGlite, PostgreSQL).
// `membershipStoreContract` covers every method and rule on a fresh, empty store per test whose clock the test
// moves; `membershipRaceContract` races two owners and many additions through two stores on the same data (one
// store twice, or two pools of one database: two processes), where a check followed by a separate write would
// let both sides through.
import { describe, expect, it } from 'vitest';
import type { SqlQueryable } from '../../../runtime/stores/sql/index.js';
import type { MembershipChangeRules, MembershipStore } from '../../../runtime/tenancy/index.js';
import { fakeClock, type FakeClock } from './fake-clock.js';

const T0 = 1_700_000_000_000;
const OWNERS: MembershipChangeRules = { protectedRole: 'owner' };
/** What an admin may manage: admins and members, never owners. */
const AS_ADMIN: MembershipChangeRules = { protectedRole: 'owner', onlyFrom: ['admin', 'member'] };

/** Empties the tenancy tables of a SQL store's database, for a fresh store per test. */
export async function emptyMembershipTables(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_tenant_members, svc_tenants');
}

export function membershipStoreContract(
  name: string,
  makeStore: (clock: FakeClock) => Promise<MembershipStore> | MembershipStore,
): void {
  describe(`MembershipStore contract: ${name}`, () => {
    async function fresh(): Promise<{ store: MembershipStore; clock: FakeClock }> {
      const clock = fakeClock(T0);
      return { store: await makeStore(clock), clock };
    }

    it('creates a tenant with a new id and its creator as first member in the given role', async () => {
      const { store, clock } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      expect(tenant).toEqual({ id: expect.any(String), name: 'Acme', createdAt: T0 });
      expect(await store.getTenant(tenant.id)).toEqual(tenant);
      expect(await store.members(tenant.id)).toEqual([
        { tenantId: tenant.id, userId: 'alice', role: 'owner', createdAt: T0 },
      ]);
      expect(await store.membership(tenant.id, 'alice')).toEqual({
        tenantId: tenant.id,
        userId: 'alice',
        role: 'owner',
        createdAt: T0,
      });

      clock.advance(5);
      const other = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'lead' });
      expect(other.id).not.toBe(tenant.id);
      expect(other.createdAt).toBe(T0 + 5);
      expect(await store.roleOf(other.id, 'alice')).toBe('lead');
      expect(await store.getTenant('no-such-tenant')).toBeUndefined();
    });

    it('roleOf answers a member role, and undefined for a non-member or an unknown tenant', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'member');
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      expect(await store.roleOf(tenant.id, 'bob')).toBe('member');
      expect(await store.roleOf(tenant.id, 'mallory')).toBeUndefined();
      expect(await store.roleOf('no-such-tenant', 'alice')).toBeUndefined();
      expect(await store.membership(tenant.id, 'mallory')).toBeUndefined();
      expect(await store.membership('no-such-tenant', 'alice')).toBeUndefined();
    });

    it('tenantsOf lists an account tenants by membership age (ties by tenant id) with its role in each', async () => {
      const { store, clock } = await fresh();
      const older = await store.createTenant({ name: 'Bob & co', ownerId: 'bob', role: 'owner' });
      clock.advance(1);
      const own = await store.createTenant({ name: 'Alice', ownerId: 'alice', role: 'owner' });
      clock.advance(1);
      // The tenant is older than Alice's own, her membership in it is not.
      await store.addMember(older.id, 'alice', 'member');
      clock.advance(1);
      const c = await store.createTenant({ name: 'C', ownerId: 'carol', role: 'owner' });
      const d = await store.createTenant({ name: 'D', ownerId: 'carol', role: 'owner' });
      clock.advance(1);
      await store.addMember(c.id, 'alice', 'admin');
      await store.addMember(d.id, 'alice', 'member');
      const tied = [
        { id: c.id, name: 'C', role: 'admin' },
        { id: d.id, name: 'D', role: 'member' },
      ].sort((x, y) => (x.id < y.id ? -1 : 1));

      expect(await store.tenantsOf('alice')).toEqual([
        { id: own.id, name: 'Alice', role: 'owner' },
        { id: older.id, name: 'Bob & co', role: 'member' },
        ...tied,
      ]);
      expect(await store.tenantsOf('bob')).toEqual([{ id: older.id, name: 'Bob & co', role: 'owner' }]);
      expect(await store.tenantsOf('nobody')).toEqual([]);
    });

    it('members lists the tenant oldest first (ties by user id), and nothing for an unknown tenant', async () => {
      const { store, clock } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'zoe', role: 'owner' });
      const other = await store.createTenant({ name: 'Other', ownerId: 'olga', role: 'owner' });
      clock.advance(10);
      await store.addMember(tenant.id, 'yann', 'member');
      await store.addMember(tenant.id, 'abel', 'admin');
      clock.advance(10);
      await store.addMember(tenant.id, 'aaron', 'member');
      expect(await store.members(tenant.id)).toEqual([
        { tenantId: tenant.id, userId: 'zoe', role: 'owner', createdAt: T0 },
        { tenantId: tenant.id, userId: 'abel', role: 'admin', createdAt: T0 + 10 },
        { tenantId: tenant.id, userId: 'yann', role: 'member', createdAt: T0 + 10 },
        { tenantId: tenant.id, userId: 'aaron', role: 'member', createdAt: T0 + 20 },
      ]);
      expect((await store.members(other.id)).map((member) => member.userId)).toEqual(['olga']);
      expect(await store.members('no-such-tenant')).toEqual([]);
    });

    it('addMember adds an account once: a second add is refused and changes nothing; an unknown tenant is no-tenant', async () => {
      const { store, clock } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      clock.advance(7);
      expect(await store.addMember(tenant.id, 'bob', 'member')).toEqual({
        ok: true,
        membership: { tenantId: tenant.id, userId: 'bob', role: 'member', createdAt: T0 + 7 },
      });
      clock.advance(1);
      expect(await store.addMember(tenant.id, 'bob', 'owner')).toEqual({ ok: false, reason: 'exists' });
      expect(await store.addMember(tenant.id, 'alice', 'member')).toEqual({ ok: false, reason: 'exists' });
      expect(await store.membership(tenant.id, 'bob')).toEqual({
        tenantId: tenant.id,
        userId: 'bob',
        role: 'member',
        createdAt: T0 + 7,
      });
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      expect(await store.addMember('no-such-tenant', 'bob', 'member')).toEqual({
        ok: false,
        reason: 'no-tenant',
      });
      expect(await store.tenantsOf('bob')).toEqual([{ id: tenant.id, name: 'Acme', role: 'member' }]);
    });

    it('setRole changes a member role and keeps the join time; a non-member or unknown tenant is not-member', async () => {
      const { store, clock } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'member');
      clock.advance(100);
      expect(await store.setRole(tenant.id, 'bob', 'admin', OWNERS)).toEqual({
        ok: true,
        membership: { tenantId: tenant.id, userId: 'bob', role: 'admin', createdAt: T0 },
      });
      expect(await store.roleOf(tenant.id, 'bob')).toBe('admin');
      expect(await store.tenantsOf('bob')).toEqual([{ id: tenant.id, name: 'Acme', role: 'admin' }]);
      expect(await store.setRole(tenant.id, 'mallory', 'owner', OWNERS)).toEqual({
        ok: false,
        reason: 'not-member',
      });
      expect(await store.setRole('no-such-tenant', 'bob', 'owner', OWNERS)).toEqual({
        ok: false,
        reason: 'not-member',
      });
      expect(await store.roleOf(tenant.id, 'mallory')).toBeUndefined();
    });

    it('setRole never demotes the last owner; with two owners one may be demoted, then not the other', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      expect(await store.setRole(tenant.id, 'alice', 'admin', OWNERS)).toEqual({
        ok: false,
        reason: 'last-owner',
      });
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      // Staying owner is no demotion.
      expect((await store.setRole(tenant.id, 'alice', 'owner', OWNERS)).ok).toBe(true);

      await store.addMember(tenant.id, 'bob', 'owner');
      expect((await store.setRole(tenant.id, 'alice', 'member', OWNERS)).ok).toBe(true);
      expect(await store.setRole(tenant.id, 'bob', 'member', OWNERS)).toEqual({
        ok: false,
        reason: 'last-owner',
      });
      expect(await store.roleOf(tenant.id, 'bob')).toBe('owner');
      // The protected role is the caller's: with another one, "owner" is an ordinary role.
      expect((await store.setRole(tenant.id, 'bob', 'member', { protectedRole: 'lead' })).ok).toBe(true);
    });

    it('setRole applies only to members holding a role of onlyFrom: forbidden otherwise, before last-owner', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'member');
      // An admin may not touch the owner, even where the owner could not be demoted anyway.
      expect(await store.setRole(tenant.id, 'alice', 'member', AS_ADMIN)).toEqual({
        ok: false,
        reason: 'forbidden',
      });
      await store.addMember(tenant.id, 'carol', 'owner');
      expect(await store.setRole(tenant.id, 'alice', 'member', AS_ADMIN)).toEqual({
        ok: false,
        reason: 'forbidden',
      });
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      // onlyFrom is about the current role, not the new one.
      expect((await store.setRole(tenant.id, 'bob', 'admin', AS_ADMIN)).ok).toBe(true);
      expect(await store.setRole(tenant.id, 'mallory', 'member', AS_ADMIN)).toEqual({
        ok: false,
        reason: 'not-member',
      });
    });

    it('removeMember removes a member everywhere; again, or an unknown tenant, is not-member; they may rejoin', async () => {
      const { store, clock } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'member');
      expect(await store.removeMember(tenant.id, 'bob', OWNERS)).toEqual({ ok: true });
      expect(await store.roleOf(tenant.id, 'bob')).toBeUndefined();
      expect(await store.membership(tenant.id, 'bob')).toBeUndefined();
      expect(await store.tenantsOf('bob')).toEqual([]);
      expect((await store.members(tenant.id)).map((member) => member.userId)).toEqual(['alice']);
      expect(await store.removeMember(tenant.id, 'bob', OWNERS)).toEqual({ ok: false, reason: 'not-member' });
      expect(await store.removeMember('no-such-tenant', 'alice', OWNERS)).toEqual({
        ok: false,
        reason: 'not-member',
      });
      clock.advance(3);
      expect(await store.addMember(tenant.id, 'bob', 'admin')).toMatchObject({
        ok: true,
        membership: { role: 'admin', createdAt: T0 + 3 },
      });
    });

    it('removeMember never removes the last owner; with two owners one may go, then not the other', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'admin');
      expect(await store.removeMember(tenant.id, 'alice', OWNERS)).toEqual({
        ok: false,
        reason: 'last-owner',
      });
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      await store.addMember(tenant.id, 'carol', 'owner');
      expect(await store.removeMember(tenant.id, 'alice', OWNERS)).toEqual({ ok: true });
      expect(await store.removeMember(tenant.id, 'carol', OWNERS)).toEqual({
        ok: false,
        reason: 'last-owner',
      });
      // Members of other roles go whatever the owner count.
      expect(await store.removeMember(tenant.id, 'bob', OWNERS)).toEqual({ ok: true });
      expect(await store.members(tenant.id)).toMatchObject([{ userId: 'carol', role: 'owner' }]);
    });

    it('removeMember applies only to members holding a role of onlyFrom', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'owner');
      await store.addMember(tenant.id, 'carol', 'member');
      expect(await store.removeMember(tenant.id, 'bob', AS_ADMIN)).toEqual({
        ok: false,
        reason: 'forbidden',
      });
      expect(await store.roleOf(tenant.id, 'bob')).toBe('owner');
      expect(await store.removeMember(tenant.id, 'carol', AS_ADMIN)).toEqual({ ok: true });
      expect(await store.removeMember(tenant.id, 'carol', AS_ADMIN)).toEqual({
        ok: false,
        reason: 'not-member',
      });
    });

    it('answers copies: changing a returned record changes nothing stored', async () => {
      const { store } = await fresh();
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      tenant.name = 'Changed';
      const added = await store.addMember(tenant.id, 'bob', 'member');
      if (added.ok) added.membership.role = 'owner';
      const [first] = await store.members(tenant.id);
      first!.role = 'member';
      const membership = await store.membership(tenant.id, 'alice');
      membership!.role = 'member';
      const [mine] = await store.tenantsOf('alice');
      mine!.role = 'member';
      const fetched = await store.getTenant(tenant.id);
      fetched!.name = 'Changed';
      expect(await store.getTenant(tenant.id)).toMatchObject({ name: 'Acme' });
      expect(await store.roleOf(tenant.id, 'alice')).toBe('owner');
      expect(await store.roleOf(tenant.id, 'bob')).toBe('member');
    });
  });

  membershipRaceContract(name, async () => {
    const store = await makeStore(fakeClock(T0));
    return [store, store];
  });
}

/** Tenants raced at once per case: more chances for an unguarded check to let both sides through. */
const RACED_TENANTS = 4;

export function membershipRaceContract(
  name: string,
  makeStores: () => Promise<readonly [MembershipStore, MembershipStore]>,
): void {
  describe(`MembershipStore races: ${name}`, () => {
    /** Tenants owned by alice and bob both. */
    async function twoOwnerTenants(store: MembershipStore): Promise<string[]> {
      const ids: string[] = [];
      for (let i = 0; i < RACED_TENANTS; i++) {
        const tenant = await store.createTenant({ name: `T${i}`, ownerId: 'alice', role: 'owner' });
        await store.addMember(tenant.id, 'bob', 'owner');
        ids.push(tenant.id);
      }
      return ids;
    }

    async function expectOneOwnerLeft(store: MembershipStore, tenantId: string): Promise<void> {
      const owners = (await store.members(tenantId)).filter((member) => member.role === 'owner');
      expect(owners).toHaveLength(1);
    }

    it('two owners demoting each other at once: exactly one succeeds, one owner is left', async () => {
      const [a, b] = await makeStores();
      const tenants = await twoOwnerTenants(a);
      const outcomes = await Promise.all(
        tenants.map((id) =>
          Promise.all([a.setRole(id, 'bob', 'admin', OWNERS), b.setRole(id, 'alice', 'admin', OWNERS)]),
        ),
      );
      for (const [index, pair] of outcomes.entries()) {
        expect(pair.filter((outcome) => outcome.ok)).toHaveLength(1);
        expect(pair.filter((outcome) => !outcome.ok)).toEqual([{ ok: false, reason: 'last-owner' }]);
        await expectOneOwnerLeft(a, tenants[index]!);
      }
    });

    it('two owners removing each other at once: exactly one succeeds, one owner is left', async () => {
      const [a, b] = await makeStores();
      const tenants = await twoOwnerTenants(a);
      const outcomes = await Promise.all(
        tenants.map((id) =>
          Promise.all([a.removeMember(id, 'bob', OWNERS), b.removeMember(id, 'alice', OWNERS)]),
        ),
      );
      for (const [index, pair] of outcomes.entries()) {
        expect(pair).toContainEqual({ ok: true });
        expect(pair).toContainEqual({ ok: false, reason: 'last-owner' });
        await expectOneOwnerLeft(a, tenants[index]!);
        expect(await a.members(tenants[index]!)).toHaveLength(1);
      }
    });

    it('an owner leaving while the other is demoted: exactly one succeeds', async () => {
      const [a, b] = await makeStores();
      const tenants = await twoOwnerTenants(a);
      const outcomes = await Promise.all(
        tenants.map((id) =>
          Promise.all([a.removeMember(id, 'alice', OWNERS), b.setRole(id, 'bob', 'member', OWNERS)]),
        ),
      );
      for (const [index, pair] of outcomes.entries()) {
        expect(pair.filter((outcome) => outcome.ok)).toHaveLength(1);
        await expectOneOwnerLeft(a, tenants[index]!);
      }
    });

    it('20 concurrent additions of one account: exactly one is added, the others are told it exists', async () => {
      const [a, b] = await makeStores();
      const tenant = await a.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      const outcomes = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? a : b).addMember(tenant.id, 'bob', i === 0 ? 'admin' : 'member'),
        ),
      );
      const added = outcomes.filter((outcome) => outcome.ok);
      expect(added).toHaveLength(1);
      expect(outcomes.filter((outcome) => !outcome.ok && outcome.reason === 'exists')).toHaveLength(19);
      expect(await b.membership(tenant.id, 'bob')).toEqual(added[0]!.ok ? added[0]!.membership : undefined);
      expect((await b.members(tenant.id)).map((member) => member.userId).sort()).toEqual(['alice', 'bob']);
    });
  });
}
