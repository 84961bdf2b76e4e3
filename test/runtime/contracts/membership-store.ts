// The MembershipStore contract as reusable suites, run on every backend (memory, PGlite, PostgreSQL).
// `membershipStoreContract` covers every method and rule on a fresh, empty store per test whose clock the test
// moves; `membershipRaceContract` races two owners, many additions, and an owner removing an admin while the
// admin acts, through two stores on the same data (one store twice, or two pools of one database: two
// processes), where a check followed by a separate write would let both sides through.
import { describe, expect, it } from 'vitest';
import type { SqlClient, SqlQueryable } from '../../../runtime/stores/sql/index.js';
import type { MembershipChangeRules, MembershipStore } from '../../../runtime/tenancy/index.js';
import { fakeClock, type FakeClock } from './fake-clock.js';

const T0 = 1_700_000_000_000;
const OWNERS: MembershipChangeRules = { protectedRole: 'owner' };
/** What an admin may manage: admins and members, never owners. */
const AS_ADMIN: MembershipChangeRules = { protectedRole: 'owner', onlyFrom: ['admin', 'member'] };
/** Bob acting as the admin his request was authorised as. */
const BOB_AS_ADMIN = { userId: 'bob', role: 'admin' } as const;
const BOB_ADMIN: MembershipChangeRules = { ...AS_ADMIN, actor: BOB_AS_ADMIN };

/** Empties the tenancy tables of a SQL store's database, for a fresh store per test. */
export async function emptyMembershipTables(db: SqlQueryable): Promise<void> {
  await db.query('TRUNCATE svc_tenant_members, svc_tenants');
}

/** A change of the first racing store, held once made and before it commits: the other store's call runs then. */
export interface HeldCommit {
  /** Resolves once the change is made: its locks held, its effect not yet committed. */
  made: Promise<void>;
  /** Resolves once `other` waits on a lock (the held change's), or has settled without waiting. */
  waitingOn(other: Promise<unknown>): Promise<void>;
  /** Lets the change commit. */
  release(): void;
}

/** Two stores on the same data, and (SQL) a way to hold the first one's next change before it commits. */
export interface RacingStores {
  stores: readonly [MembershipStore, MembershipStore];
  /**
   * Absent where a call issued first is also applied first (memory: one synchronous step; PGlite: one
   * connection, in call order).
   */
  holdFirst?: () => HeldCommit;
}

/**
 * `client` whose next transaction, after `hold()`, waits before its COMMIT until released. `lockWaiters`
 * tells whether a session of the database waits on a lock (PostgreSQL: pg_stat_activity).
 */
export function holdingClient(
  client: SqlClient,
  lockWaiters: () => Promise<boolean>,
): { client: SqlClient; hold: () => HeldCommit } {
  let next: { made: () => void; released: Promise<void> } | undefined;
  const holding: SqlClient = Object.assign(Object.create(client) as SqlClient, {
    transaction<T>(fn: (tx: SqlQueryable) => Promise<T>): Promise<T> {
      return client.transaction(async (tx) => {
        const result = await fn(tx);
        const gate = next;
        next = undefined;
        if (gate !== undefined) {
          gate.made();
          await gate.released;
        }
        return result;
      });
    },
  });
  const hold = (): HeldCommit => {
    let made!: () => void;
    let release!: () => void;
    const madePromise = new Promise<void>((resolve) => (made = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    next = { made, released };
    return {
      made: madePromise,
      release,
      async waitingOn(other) {
        let settled = false;
        other.then(
          () => (settled = true),
          () => (settled = true),
        );
        // Polls the server (no timer): each round trip gives `other` time to reach the lock.
        for (let round = 0; round < 1000 && !settled; round++) if (await lockWaiters()) return;
      },
    };
  };
  return { client: holding, hold };
}

export function membershipStoreContract(
  name: string,
  makeStore: (clock: FakeClock) => Promise<MembershipStore> | MembershipStore,
  makeRacingStores: () => Promise<RacingStores> = async () => {
    const store = await makeStore(fakeClock(T0));
    return { stores: [store, store] };
  },
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
        previousRole: 'member',
      });
      // Setting the role held already is a change from that role to itself.
      expect(await store.setRole(tenant.id, 'bob', 'admin', OWNERS)).toMatchObject({ previousRole: 'admin' });
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

    /** A tenant owned by alice, with bob an admin and carol a member. */
    async function staffed(store: MembershipStore): Promise<string> {
      const tenant = await store.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
      await store.addMember(tenant.id, 'bob', 'admin');
      await store.addMember(tenant.id, 'carol', 'member');
      return tenant.id;
    }

    async function rolesIn(store: MembershipStore, tenantId: string): Promise<Record<string, string>> {
      const members = await store.members(tenantId);
      return Object.fromEntries(members.map((member) => [member.userId, member.role]));
    }

    it('addMember with an actor adds only while the actor holds the role it acts as, checked first', async () => {
      const { store, clock } = await fresh();
      const id = await staffed(store);
      clock.advance(1);
      expect(await store.addMember(id, 'dave', 'member', { actor: BOB_AS_ADMIN })).toEqual({
        ok: true,
        membership: { tenantId: id, userId: 'dave', role: 'member', createdAt: T0 + 1 },
      });
      // Authorised as an owner, but bob is an admin.
      expect(await store.addMember(id, 'erin', 'admin', { actor: { userId: 'bob', role: 'owner' } })).toEqual(
        {
          ok: false,
          reason: 'actor-role-changed',
        },
      );
      await store.setRole(id, 'bob', 'member', OWNERS);
      expect(await store.addMember(id, 'erin', 'member', { actor: BOB_AS_ADMIN })).toEqual({
        ok: false,
        reason: 'actor-role-changed',
      });
      await store.removeMember(id, 'bob', OWNERS);
      // Before whether the account is already a member, or the tenant exists: nothing leaks.
      for (const [tenantId, userId] of [
        [id, 'erin'],
        [id, 'carol'],
        ['no-such-tenant', 'erin'],
      ] as const) {
        expect(await store.addMember(tenantId, userId, 'member', { actor: BOB_AS_ADMIN })).toEqual({
          ok: false,
          reason: 'actor-not-member',
        });
      }
      expect(await rolesIn(store, id)).toEqual({ alice: 'owner', carol: 'member', dave: 'member' });
      // Without an actor, as before; with one still in its role, as before.
      expect((await store.addMember(id, 'erin', 'member')).ok).toBe(true);
      expect(
        await store.addMember(id, 'erin', 'member', { actor: { userId: 'alice', role: 'owner' } }),
      ).toEqual({ ok: false, reason: 'exists' });
    });

    it('setRole with an actor applies only while the actor holds the role it acts as, checked first', async () => {
      const { store } = await fresh();
      const id = await staffed(store);
      expect(await store.setRole(id, 'carol', 'admin', BOB_ADMIN)).toMatchObject({
        ok: true,
        membership: { userId: 'carol', role: 'admin' },
        previousRole: 'member',
      });
      const asOwner = { ...BOB_ADMIN, actor: { userId: 'bob', role: 'owner' } };
      expect(await store.setRole(id, 'carol', 'member', asOwner)).toEqual({
        ok: false,
        reason: 'actor-role-changed',
      });
      // An actor may change its own role (it holds the role it acts as when the change starts).
      expect((await store.setRole(id, 'bob', 'member', BOB_ADMIN)).ok).toBe(true);
      expect(await store.setRole(id, 'carol', 'member', BOB_ADMIN)).toEqual({
        ok: false,
        reason: 'actor-role-changed',
      });
      await store.removeMember(id, 'bob', OWNERS);
      // Before not-member, forbidden and last-owner, and on an unknown tenant.
      for (const [tenantId, userId, role] of [
        [id, 'carol', 'member'],
        [id, 'mallory', 'member'],
        [id, 'alice', 'admin'],
        ['no-such-tenant', 'carol', 'member'],
      ] as const) {
        expect(await store.setRole(tenantId, userId, role, BOB_ADMIN)).toEqual({
          ok: false,
          reason: 'actor-not-member',
        });
      }
      expect(await rolesIn(store, id)).toEqual({ alice: 'owner', carol: 'admin' });
      expect(
        await store.setRole(id, 'alice', 'admin', { ...OWNERS, actor: { userId: 'alice', role: 'owner' } }),
      ).toEqual({ ok: false, reason: 'last-owner' });
    });

    it('removeMember with an actor applies only while the actor holds the role it acts as, checked first', async () => {
      const { store } = await fresh();
      const id = await staffed(store);
      await store.addMember(id, 'dave', 'member');
      expect(await store.removeMember(id, 'dave', BOB_ADMIN)).toEqual({ ok: true });
      await store.setRole(id, 'bob', 'owner', OWNERS);
      expect(await store.removeMember(id, 'carol', BOB_ADMIN)).toEqual({
        ok: false,
        reason: 'actor-role-changed',
      });
      await store.setRole(id, 'bob', 'admin', OWNERS);
      await store.removeMember(id, 'bob', OWNERS);
      for (const [tenantId, userId] of [
        [id, 'carol'],
        [id, 'mallory'],
        [id, 'alice'],
        ['no-such-tenant', 'carol'],
      ] as const) {
        expect(await store.removeMember(tenantId, userId, BOB_ADMIN)).toEqual({
          ok: false,
          reason: 'actor-not-member',
        });
      }
      expect(await rolesIn(store, id)).toEqual({ alice: 'owner', carol: 'member' });
      // An actor may remove itself.
      await store.addMember(id, 'bob', 'admin');
      expect(await store.removeMember(id, 'bob', BOB_ADMIN)).toEqual({ ok: true });
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

  membershipRaceContract(name, makeRacingStores);
}

/** Tenants raced at once per case: more chances for an unguarded check to let both sides through. */
const RACED_TENANTS = 4;

export function membershipRaceContract(name: string, makeStores: () => Promise<RacingStores>): void {
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
      const {
        stores: [a, b],
      } = await makeStores();
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
      const {
        stores: [a, b],
      } = await makeStores();
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
      const {
        stores: [a, b],
      } = await makeStores();
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

    /**
     * The admin's calls, each checked against the admin's role its request was authorised with, and how the
     * tenant (alice owner, bob admin, carol member) must look when the call was refused.
     */
    const ADMIN_CALLS = [
      [
        'adds a member',
        (store: MembershipStore, id: string) => store.addMember(id, 'dave', 'member', BOB_ADMIN),
      ],
      [
        'changes a role',
        (store: MembershipStore, id: string) => store.setRole(id, 'carol', 'admin', BOB_ADMIN),
      ],
      [
        'removes a member',
        (store: MembershipStore, id: string) => store.removeMember(id, 'carol', BOB_ADMIN),
      ],
    ] as const;

    for (const [action, adminCall] of ADMIN_CALLS) {
      it(`the owner removes an admin while the admin ${action}: the admin's change never lands after`, async () => {
        const {
          stores: [owner, admin],
          holdFirst,
        } = await makeStores();
        const tenant = await owner.createTenant({ name: 'Acme', ownerId: 'alice', role: 'owner' });
        await owner.addMember(tenant.id, 'bob', 'admin');
        await owner.addMember(tenant.id, 'carol', 'member');
        // The removal first, the admin's call in the same tick; where a change can be held (SQL), once the
        // removal is made (its locks held, not yet committed), released once the admin's call waits on them.
        const held = holdFirst?.();
        const removal = owner.removeMember(tenant.id, 'bob', {
          ...OWNERS,
          actor: { userId: 'alice', role: 'owner' },
        });
        if (held !== undefined) await Promise.race([held.made, removal]);
        const change = adminCall(admin, tenant.id);
        await held?.waitingOn(change);
        held?.release();
        expect(await Promise.all([removal, change])).toEqual([
          { ok: true },
          { ok: false, reason: 'actor-not-member' },
        ]);
        const members = await admin.members(tenant.id);
        expect(members.map((member) => [member.userId, member.role])).toEqual([
          ['alice', 'owner'],
          ['carol', 'member'],
        ]);
      });
    }

    it('20 concurrent additions of one account: exactly one is added, the others are told it exists', async () => {
      const {
        stores: [a, b],
      } = await makeStores();
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
