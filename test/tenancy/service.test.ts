// The Tenancy service in-process: the team operations, their role rules (what a member manager may grant,
// change and remove), the last-owner rule under concurrency, the events and their payloads. The routes over
// HTTP are in test/tenancy/http.test.ts; the handlers' own refusals (no caller, another tenant's membership
// check) cannot be reached through the guards and are called directly here.
import { describe, expect, it, vi } from 'vitest';
import { Hooks } from '../../runtime/app/hooks.js';
import { MemoryUserSource } from '../../runtime/auth/stores/memory-users.js';
import type { HttpError } from '../../runtime/http/errors.js';
import type { RequestContext, Route } from '../../runtime/http/types.js';
import { TENANCY_EVENT_NAMES, type TenancyEventPayloads } from '../../runtime/tenancy/events.js';
import type { MembershipStore } from '../../runtime/tenancy/memberships.js';
import { MemoryMembershipStore } from '../../runtime/tenancy/memory-memberships.js';
import { RoleTable } from '../../runtime/tenancy/roles.js';
import { tenancyRoutes } from '../../runtime/tenancy/routes.js';
import { Tenancy, type TenancyUsers } from '../../runtime/tenancy/service.js';

type RecordedEvent = {
  [E in keyof TenancyEventPayloads]: { event: E; payload: TenancyEventPayloads[E] };
}[keyof TenancyEventPayloads];

const START = Date.UTC(2024, 0, 1);

async function caught(action: Promise<unknown>): Promise<HttpError> {
  try {
    await action;
  } catch (error) {
    return error as HttpError;
  }
  throw new Error('expected a refusal');
}

interface Setup {
  tenancy: Tenancy;
  store: MemoryMembershipStore;
  users: MemoryUserSource;
  events: RecordedEvent[];
  /** Account ids by name. */
  ids: Record<'alice' | 'bob' | 'carol' | 'dave' | 'erin', string>;
}

/**
 * A tenant owned by alice, with bob an admin and carol a member; dave and erin have accounts but no
 * membership. Each membership joins a second after the previous one.
 */
async function setup(
  options: {
    roles?: RoleTable;
    users?: (source: MemoryUserSource) => TenancyUsers;
    store?: (store: MemoryMembershipStore) => MembershipStore;
  } = {},
): Promise<Setup & { tenantId: string }> {
  let now = START;
  const store = new MemoryMembershipStore({ now: () => (now += 1000) });
  const users = new MemoryUserSource();
  const hooks = new Hooks();
  const events: RecordedEvent[] = [];
  for (const event of TENANCY_EVENT_NAMES) {
    hooks.on(event, (payload) => void events.push({ event, payload } as RecordedEvent));
  }
  const roles = options.roles ?? new RoleTable();
  const ids = {} as Setup['ids'];
  for (const name of ['alice', 'bob', 'carol', 'dave', 'erin'] as const) {
    ids[name] = (await users.create({ email: `${name}@example.com`, emailVerified: true })).id;
  }
  const tenancy = new Tenancy({
    memberships: options.store?.(store) ?? store,
    roles,
    users: options.users?.(users) ?? users,
    hooks,
  });
  const { id: tenantId } = await tenancy.createTenant(ids.alice, 'Acme');
  const owner = { userId: ids.alice, role: roles.owner };
  const [second, third] = roles.roles.slice(1);
  await tenancy.addMember(owner, tenantId, 'bob@example.com', second ?? roles.owner);
  await tenancy.addMember(owner, tenantId, 'carol@example.com', third ?? second ?? roles.owner);
  events.length = 0;
  return { tenancy, store, users, events, ids, tenantId };
}

/**
 * A store whose next `membership` read is followed by `next` (another request's change) before the reader gets
 * its answer: the window between a read and the write that follows it.
 */
function interleaving(): {
  store: (store: MembershipStore) => MembershipStore;
  next: (() => Promise<unknown>) | undefined;
} {
  // `next` lands after the request was authorised and before its role change reaches the store.
  const racing = {
    next: undefined as (() => Promise<unknown>) | undefined,
    store: (store: MembershipStore): MembershipStore =>
      Object.assign(Object.create(store) as MembershipStore, {
        async setRole(...args: Parameters<MembershipStore['setRole']>) {
          const concurrent = racing.next;
          racing.next = undefined;
          await concurrent?.();
          return store.setRole(...args);
        },
      }),
  };
  return racing;
}

async function rolesIn(tenancy: Tenancy, tenantId: string): Promise<Record<string, string>> {
  const { items } = await tenancy.members(tenantId);
  return Object.fromEntries(items.map((member) => [member.email, member.role]));
}

const BEFORE = { 'alice@example.com': 'owner', 'bob@example.com': 'admin', 'carol@example.com': 'member' };

describe('Tenancy: tenants', () => {
  it('makes the creator the owner of a new tenant and lists each account its tenants with its role', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const other = await tenancy.createTenant(ids.bob, 'Bob & Co');
    expect(other).toEqual({ id: other.id, name: 'Bob & Co', role: 'owner' });
    expect(other.id).not.toBe(tenantId);
    expect(events).toEqual([
      {
        event: 'tenant:created',
        payload: { tenant: { id: other.id, name: 'Bob & Co' }, userId: ids.bob, role: 'owner' },
      },
    ]);
    expect(await tenancy.tenantsOf(ids.bob)).toEqual({
      items: [
        { id: tenantId, name: 'Acme', role: 'admin' },
        { id: other.id, name: 'Bob & Co', role: 'owner' },
      ],
    });
    expect(await tenancy.tenantsOf(ids.dave)).toEqual({ items: [] });
  });

  it('gives the creator the first role of a custom table', async () => {
    const { tenancy, ids } = await setup({ roles: new RoleTable({ roles: ['lead', 'crew'] }) });
    expect((await tenancy.createTenant(ids.dave, 'Ship')).role).toBe('lead');
  });

  it('lists members in the order they joined, with emails from one bulk lookup and ISO join times', async () => {
    const bulk = vi.fn<NonNullable<TenancyUsers['findByIds']>>();
    const { tenancy, ids, tenantId } = await setup({
      users: (source) => {
        bulk.mockImplementation((list) => source.findByIds(list));
        return { findByEmail: (email) => source.findByEmail(email), findById: vi.fn(), findByIds: bulk };
      },
    });
    bulk.mockClear();
    expect(await tenancy.members(tenantId)).toEqual({
      items: [
        { userId: ids.alice, email: 'alice@example.com', role: 'owner', addedAt: '2024-01-01T00:00:01.000Z' },
        { userId: ids.bob, email: 'bob@example.com', role: 'admin', addedAt: '2024-01-01T00:00:02.000Z' },
        {
          userId: ids.carol,
          email: 'carol@example.com',
          role: 'member',
          addedAt: '2024-01-01T00:00:03.000Z',
        },
      ],
    });
    expect(bulk).toHaveBeenCalledTimes(1);
    expect(await tenancy.members('no-such-tenant')).toEqual({ items: [] });
  });

  it('looks emails up one by one without a bulk lookup, and still lists a member whose account is gone', async () => {
    const { tenancy, ids, tenantId } = await setup({
      users: (source) => ({
        findByEmail: (email) => source.findByEmail(email),
        // carol's account was deleted after she joined.
        findById: async (id) => (id === ids.carol ? null : source.findById(id)),
      }),
    });
    const { items } = await tenancy.members(tenantId);
    expect(items.map((member) => [member.userId, member.email, member.role])).toEqual([
      [ids.alice, 'alice@example.com', 'owner'],
      [ids.bob, 'bob@example.com', 'admin'],
      [ids.carol, '', 'member'],
    ]);
  });
});

describe('Tenancy: adding members', () => {
  it('adds an existing account (email in any case) in a role the actor manages, and says who added it', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const admin = { userId: ids.bob, role: 'admin' };
    const added = await tenancy.addMember(admin, tenantId, '  DAVE@Example.com ', 'admin');
    expect(added).toEqual({
      userId: ids.dave,
      email: 'dave@example.com',
      role: 'admin',
      addedAt: '2024-01-01T00:00:04.000Z',
    });
    expect(events).toEqual([
      { event: 'tenant:member_added', payload: { tenantId, userId: ids.dave, role: 'admin', by: ids.bob } },
    ]);
    expect((await tenancy.tenantsOf(ids.dave)).items).toEqual([
      { id: tenantId, name: 'Acme', role: 'admin' },
    ]);
  });

  it('refuses an undeclared role, a role above the actor, an unknown email and an existing member', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const owner = { userId: ids.alice, role: 'owner' };
    const admin = { userId: ids.bob, role: 'admin' };
    const refusals: [Promise<unknown>, string, number][] = [
      [tenancy.addMember(owner, tenantId, 'dave@example.com', 'superuser'), 'TENANT_ROLE_UNKNOWN', 400],
      [tenancy.addMember(owner, tenantId, 'dave@example.com', 'Owner'), 'TENANT_ROLE_UNKNOWN', 400],
      // An admin cannot make anyone an owner.
      [tenancy.addMember(admin, tenantId, 'dave@example.com', 'owner'), 'TENANT_ROLE_REQUIRED', 403],
      [tenancy.addMember(owner, tenantId, 'nobody@example.com', 'member'), 'TENANT_USER_NOT_FOUND', 404],
      [tenancy.addMember(owner, tenantId, 'Carol@example.com', 'admin'), 'TENANT_MEMBER_EXISTS', 409],
      [tenancy.addMember(admin, tenantId, 'alice@example.com', 'member'), 'TENANT_MEMBER_EXISTS', 409],
    ];
    for (const [action, code, status] of refusals) {
      const error = await caught(action);
      expect([error.code, error.status]).toEqual([code, status]);
    }
    expect(await rolesIn(tenancy, tenantId)).toEqual(BEFORE);
    expect(events).toEqual([]);
  });

  it('refuses a role above the actor before looking the email up, so it tells nothing about accounts', async () => {
    const findByEmail = vi.fn(async () => null);
    const { tenancy, ids, tenantId } = await setup();
    const probing = new Tenancy({
      memberships: tenancy.memberships,
      roles: tenancy.roles,
      users: { findByEmail, findById: async () => null },
      hooks: new Hooks(),
    });
    const member = { userId: ids.carol, role: 'member' };
    expect((await caught(probing.addMember(member, tenantId, 'nobody@example.com', 'admin'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    expect((await caught(probing.addMember(member, tenantId, 'x@example.com', 'nope'))).code).toBe(
      'TENANT_ROLE_UNKNOWN',
    );
    expect(findByEmail).not.toHaveBeenCalled();
  });
});

describe('Tenancy: changing roles', () => {
  it("changes a member's role and raises the change with the previous role", async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const owner = { userId: ids.alice, role: 'owner' };
    expect(await tenancy.updateMember(owner, tenantId, ids.carol, 'owner')).toEqual({
      userId: ids.carol,
      email: 'carol@example.com',
      role: 'owner',
      addedAt: '2024-01-01T00:00:03.000Z',
    });
    // With a second owner, the first may step down.
    await tenancy.updateMember(owner, tenantId, ids.alice, 'member');
    expect(events).toEqual([
      {
        event: 'tenant:member_role_changed',
        payload: { tenantId, userId: ids.carol, role: 'owner', previousRole: 'member', by: ids.alice },
      },
      {
        event: 'tenant:member_role_changed',
        payload: { tenantId, userId: ids.alice, role: 'member', previousRole: 'owner', by: ids.alice },
      },
    ]);
  });

  it('answers the member unchanged, without an event, when it already holds the role', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const admin = { userId: ids.bob, role: 'admin' };
    expect((await tenancy.updateMember(admin, tenantId, ids.carol, 'member')).role).toBe('member');
    expect(events).toEqual([]);
  });

  it('lets an admin neither promote anyone to owner nor demote an owner', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const admin = { userId: ids.bob, role: 'admin' };
    for (const [userId, role] of [
      [ids.carol, 'owner'],
      [ids.bob, 'owner'],
      [ids.alice, 'admin'],
      [ids.alice, 'member'],
    ] as const) {
      const error = await caught(tenancy.updateMember(admin, tenantId, userId, role));
      expect([error.code, error.status]).toEqual(['TENANT_ROLE_REQUIRED', 403]);
    }
    // Even a no-op on a more powerful member is refused, not answered.
    expect((await caught(tenancy.updateMember(admin, tenantId, ids.alice, 'owner'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    expect(await rolesIn(tenancy, tenantId)).toEqual(BEFORE);
    expect(events).toEqual([]);
  });

  it('lets a member manager act only on members whose role it manages (custom table)', async () => {
    const roles = new RoleTable({
      roles: ['owner', 'admin', 'editor', 'viewer'],
      permissions: { 'tenant:members': ['owner', 'admin', 'editor'] },
    });
    // alice owner, bob admin, carol editor.
    const { tenancy, ids, tenantId } = await setup({ roles });
    const owner = { userId: ids.alice, role: 'owner' };
    const editor = { userId: ids.carol, role: 'editor' };
    await tenancy.addMember(owner, tenantId, 'dave@example.com', 'viewer');
    expect((await caught(tenancy.updateMember(editor, tenantId, ids.bob, 'viewer'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    expect((await caught(tenancy.removeMember(editor, tenantId, ids.bob))).code).toBe('TENANT_ROLE_REQUIRED');
    expect((await caught(tenancy.updateMember(editor, tenantId, ids.dave, 'admin'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    expect((await caught(tenancy.addMember(editor, tenantId, 'erin@example.com', 'admin'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    // Within its reach it may act: its own role and the ones below.
    expect((await tenancy.updateMember(editor, tenantId, ids.dave, 'editor')).role).toBe('editor');
    await tenancy.removeMember(editor, tenantId, ids.dave);
    expect(await rolesIn(tenancy, tenantId)).toEqual({
      'alice@example.com': 'owner',
      'bob@example.com': 'admin',
      'carol@example.com': 'editor',
    });
  });

  it('refuses an undeclared role, a non-member and demoting the last owner', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const owner = { userId: ids.alice, role: 'owner' };
    const refusals: [Promise<unknown>, string, number][] = [
      [tenancy.updateMember(owner, tenantId, ids.carol, 'root'), 'TENANT_ROLE_UNKNOWN', 400],
      [tenancy.updateMember(owner, tenantId, ids.dave, 'admin'), 'TENANT_MEMBER_NOT_FOUND', 404],
      [tenancy.updateMember(owner, tenantId, 'no-such-user', 'admin'), 'TENANT_MEMBER_NOT_FOUND', 404],
      // The actor is checked first: in a tenant it is not a member of, it learns nothing about the member.
      [tenancy.updateMember(owner, 'no-such-tenant', ids.carol, 'admin'), 'TENANT_ACCESS_DENIED', 403],
      [tenancy.updateMember(owner, tenantId, ids.alice, 'admin'), 'TENANT_LAST_OWNER', 409],
    ];
    for (const [action, code, status] of refusals) {
      const error = await caught(action);
      expect([error.code, error.status]).toEqual([code, status]);
    }
    expect(await rolesIn(tenancy, tenantId)).toEqual(BEFORE);
    expect(events).toEqual([]);
  });

  it('reports the role the member really had when another change landed before its own', async () => {
    const racing = interleaving();
    const { tenancy, events, ids, tenantId } = await setup({ store: racing.store });
    const owner = { userId: ids.alice, role: 'owner' };
    racing.next = () => tenancy.memberships.setRole(tenantId, ids.carol, 'admin', { protectedRole: 'owner' });
    await tenancy.updateMember(owner, tenantId, ids.carol, 'owner');
    expect(events).toEqual([
      {
        event: 'tenant:member_role_changed',
        payload: { tenantId, userId: ids.carol, role: 'owner', previousRole: 'admin', by: ids.alice },
      },
    ]);
  });

  it('refuses an admin whose target became an owner after the request was authorised', async () => {
    const racing = interleaving();
    const { tenancy, events, ids, tenantId } = await setup({ store: racing.store });
    const admin = { userId: ids.bob, role: 'admin' };
    racing.next = () => tenancy.memberships.setRole(tenantId, ids.carol, 'owner', { protectedRole: 'owner' });
    expect((await caught(tenancy.updateMember(admin, tenantId, ids.carol, 'admin'))).code).toBe(
      'TENANT_ROLE_REQUIRED',
    );
    expect((await rolesIn(tenancy, tenantId))['carol@example.com']).toBe('owner');
    expect(events).toEqual([]);
  });

  it('leaves exactly one owner when two owners demote each other at once: the loser is no longer one', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    await tenancy.updateMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob, 'owner');
    events.length = 0;
    const results = await Promise.allSettled([
      tenancy.updateMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob, 'admin'),
      tenancy.updateMember({ userId: ids.bob, role: 'owner' }, tenantId, ids.alice, 'admin'),
    ]);
    expect(results.filter((result) => result.status === 'fulfilled')).toHaveLength(1);
    // The first demotion lands; the second was authorised for an owner who is an admin by then.
    const rejected = results.find((result) => result.status === 'rejected');
    expect((rejected?.reason as HttpError).code).toBe('TENANT_ROLE_REQUIRED');
    const roles = Object.values(await rolesIn(tenancy, tenantId));
    expect(roles.filter((role) => role === 'owner')).toHaveLength(1);
    expect(events).toHaveLength(1);
  });
});

describe('Tenancy: removing and leaving', () => {
  it('removes a member the actor manages and says who removed it', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    await tenancy.removeMember({ userId: ids.bob, role: 'admin' }, tenantId, ids.carol);
    expect(events).toEqual([
      { event: 'tenant:member_removed', payload: { tenantId, userId: ids.carol, by: ids.bob } },
    ]);
    expect(await tenancy.tenantsOf(ids.carol)).toEqual({ items: [] });
  });

  it('refuses removing an owner as an admin, the last owner, and a non-member', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    const owner = { userId: ids.alice, role: 'owner' };
    const admin = { userId: ids.bob, role: 'admin' };
    const refusals: [Promise<unknown>, string, number][] = [
      [tenancy.removeMember(admin, tenantId, ids.alice), 'TENANT_ROLE_REQUIRED', 403],
      [tenancy.removeMember(owner, tenantId, ids.alice), 'TENANT_LAST_OWNER', 409],
      [tenancy.removeMember(owner, tenantId, ids.dave), 'TENANT_MEMBER_NOT_FOUND', 404],
      // The actor is no member of a tenant that does not exist.
      [tenancy.removeMember(owner, 'no-such-tenant', ids.carol), 'TENANT_ACCESS_DENIED', 403],
    ];
    for (const [action, code, status] of refusals) {
      const error = await caught(action);
      expect([error.code, error.status]).toEqual([code, status]);
    }
    expect(await rolesIn(tenancy, tenantId)).toEqual(BEFORE);
    expect(events).toEqual([]);
  });

  it('lets any member leave, except the last owner; a non-member gets 404', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    await tenancy.leave(ids.carol, tenantId);
    expect(events).toEqual([
      { event: 'tenant:member_removed', payload: { tenantId, userId: ids.carol, by: ids.carol } },
    ]);
    const lastOwner = await caught(tenancy.leave(ids.alice, tenantId));
    expect([lastOwner.code, lastOwner.status]).toEqual(['TENANT_LAST_OWNER', 409]);
    const stranger = await caught(tenancy.leave(ids.dave, tenantId));
    expect([stranger.code, stranger.status]).toEqual(['TENANT_MEMBER_NOT_FOUND', 404]);
    expect(Object.keys(await rolesIn(tenancy, tenantId))).toEqual(['alice@example.com', 'bob@example.com']);
    // Once another member is an owner, the first may leave.
    await tenancy.updateMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob, 'owner');
    await tenancy.leave(ids.alice, tenantId);
    expect(await rolesIn(tenancy, tenantId)).toEqual({ 'bob@example.com': 'owner' });
  });
});

describe('Tenancy: an actor removed or demoted while its request waits', () => {
  /** A user source whose lookup of `email` waits until released, telling when it started waiting. */
  function pausedLookup(email: string): {
    users: (source: MemoryUserSource) => TenancyUsers;
    waiting: Promise<void>;
    release: () => void;
  } {
    let started!: () => void;
    let release!: () => void;
    const waiting = new Promise<void>((resolve) => (started = resolve));
    const released = new Promise<void>((resolve) => (release = resolve));
    return {
      waiting,
      release,
      users: (source) => ({
        findById: (id) => source.findById(id),
        async findByEmail(lookedUp) {
          if (lookedUp === email) {
            started();
            await released;
          }
          return source.findByEmail(lookedUp);
        },
      }),
    };
  }

  for (const [what, ownerAction, code] of [
    ['removed', 'remove', 'TENANT_ACCESS_DENIED'],
    ['demoted', 'demote', 'TENANT_ROLE_REQUIRED'],
  ] as const) {
    it(`refuses the addition of an admin ${what} while the email was looked up: ${code}`, async () => {
      const lookup = pausedLookup('dave@example.com');
      const { tenancy, events, ids, tenantId } = await setup({ users: lookup.users });
      const owner = { userId: ids.alice, role: 'owner' };
      const adding = caught(
        tenancy.addMember({ userId: ids.bob, role: 'admin' }, tenantId, 'dave@example.com', 'admin'),
      );
      await lookup.waiting;
      if (ownerAction === 'remove') await tenancy.removeMember(owner, tenantId, ids.bob);
      else await tenancy.updateMember(owner, tenantId, ids.bob, 'member');
      lookup.release();
      const error = await adding;
      expect([error.code, error.status]).toEqual([code, 403]);
      expect((await tenancy.tenantsOf(ids.dave)).items).toEqual([]);
      expect(events.map((event) => event.event)).toEqual([
        ownerAction === 'remove' ? 'tenant:member_removed' : 'tenant:member_role_changed',
      ]);
    });
  }

  it('refuses a role change by an admin removed after the request was authorised', async () => {
    const racing = interleaving();
    const { tenancy, events, ids, tenantId } = await setup({ store: racing.store });
    const admin = { userId: ids.bob, role: 'admin' };
    racing.next = () => tenancy.removeMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob);
    const error = await caught(tenancy.updateMember(admin, tenantId, ids.carol, 'admin'));
    expect([error.code, error.status]).toEqual(['TENANT_ACCESS_DENIED', 403]);
    expect(await rolesIn(tenancy, tenantId)).toEqual({
      'alice@example.com': 'owner',
      'carol@example.com': 'member',
    });
    expect(events.map((event) => event.event)).toEqual(['tenant:member_removed']);
  });

  it('refuses a change or a removal by an admin demoted or removed since its request was authorised', async () => {
    const { tenancy, events, ids, tenantId } = await setup();
    // bob's request was authorised as an admin; bob is a member by the time it reaches the store.
    await tenancy.updateMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob, 'member');
    events.length = 0;
    const stale = { userId: ids.bob, role: 'admin' };
    for (const action of [
      tenancy.updateMember(stale, tenantId, ids.carol, 'admin'),
      tenancy.removeMember(stale, tenantId, ids.carol),
    ]) {
      const error = await caught(action);
      expect([error.code, error.status]).toEqual(['TENANT_ROLE_REQUIRED', 403]);
    }
    await tenancy.removeMember({ userId: ids.alice, role: 'owner' }, tenantId, ids.bob);
    events.length = 0;
    const error = await caught(tenancy.removeMember(stale, tenantId, ids.carol));
    expect([error.code, error.status]).toEqual(['TENANT_ACCESS_DENIED', 403]);
    expect(await rolesIn(tenancy, tenantId)).toEqual({
      'alice@example.com': 'owner',
      'carol@example.com': 'member',
    });
    expect(events).toEqual([]);
  });
});

describe('Tenancy: events and options', () => {
  it('never fails the operation when a listener throws; the failure goes to onEventError', async () => {
    const hooks = new Hooks();
    hooks.on('tenant:created', () => {
      throw new Error('listener down');
    });
    const failures: [unknown, string][] = [];
    const users = new MemoryUserSource();
    const tenancy = new Tenancy({
      memberships: new MemoryMembershipStore(),
      roles: new RoleTable(),
      users,
      hooks,
      onEventError: (error, event) => void failures.push([error, event]),
    });
    const created = await tenancy.createTenant('u1', 'Acme');
    expect((await tenancy.tenantsOf('u1')).items).toEqual([created]);
    expect(failures).toHaveLength(1);
    expect(failures[0]![1]).toBe('tenant:created');
    expect((failures[0]![0] as Error).message).toBe('listener down');
  });

  it('refuses unknown and missing options', () => {
    const base = {
      memberships: new MemoryMembershipStore(),
      roles: new RoleTable(),
      users: new MemoryUserSource(),
      hooks: new Hooks(),
    };
    expect(() => new Tenancy({ ...base, hookz: new Hooks() } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
    for (const missing of ['memberships', 'roles', 'users', 'hooks'] as const) {
      const options: Record<string, unknown> = { ...base };
      delete options[missing];
      expect(() => new Tenancy(options as never)).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID', message: expect.stringContaining(missing) }),
      );
    }
  });
});

describe('tenancyRoutes: handler refusals the guards normally prevent', () => {
  const byId = (routes: Route[], id: string) => routes.find((route) => route.id === id)!;

  interface CallInput {
    context: Partial<RequestContext>;
    params?: Record<string, string>;
    body?: unknown;
  }

  /** Calls the handler as the pipeline would after the guards, with the context the enrichers set. */
  async function call(route: Route, input: CallInput): Promise<unknown> {
    const context = { requestId: 'r', correlationId: 'c', container: undefined, ...input.context };
    return (route.handler as (input: unknown) => unknown)({ query: {}, params: {}, ...input, context });
  }

  it('refuses without a caller, and with a membership check for another tenant or none', async () => {
    const { tenancy, ids, tenantId } = await setup();
    const routes = tenancyRoutes(tenancy);
    const user = { id: ids.alice, email: 'alice@example.com', emailVerified: true };
    const codes = async (
      route: string,
      context: Partial<RequestContext>,
      extra: Omit<CallInput, 'context'> = {},
    ) => (await caught(Promise.resolve().then(() => call(byId(routes, route), { context, ...extra })))).code;
    const params = { tenantId, userId: ids.carol };
    expect(await codes('listTenants', {})).toBe('AUTH_REQUIRED');
    expect(await codes('createTenant', {}, { body: { name: 'x' } })).toBe('AUTH_REQUIRED');
    expect(await codes('listMembers', { tenant: { id: tenantId, role: 'owner' } }, { params })).toBe(
      'AUTH_REQUIRED',
    );
    for (const tenant of [undefined, { id: 'another', role: 'owner' }]) {
      for (const [route, body] of [
        ['listMembers', undefined],
        ['addMember', { email: 'dave@example.com', role: 'member' }],
        ['updateMember', { role: 'admin' }],
        ['removeMember', undefined],
        ['leaveTenant', undefined],
      ] as const) {
        expect(await codes(route, { user, tenant }, { params, body })).toBe('TENANT_ACCESS_DENIED');
      }
    }
    expect(await rolesIn(tenancy, tenantId)).toEqual(BEFORE);
  });

  it('acts as the caller with the role its membership check found; omit and replace apply by id', async () => {
    const { tenancy, ids, tenantId } = await setup();
    const routes = tenancyRoutes(tenancy, {
      omit: ['leaveTenant'],
      replace: { listTenants: () => ({ items: [] }) },
    });
    expect(routes.map((route) => route.id)).not.toContain('leaveTenant');
    const user = { id: ids.bob, email: 'bob@example.com', emailVerified: true };
    const context = { user, tenant: { id: tenantId, role: 'admin' } };
    expect(await call(byId(routes, 'listTenants'), { context })).toEqual({ items: [] });
    const refused = await caught(
      Promise.resolve().then(() =>
        call(byId(routes, 'updateMember'), {
          context,
          params: { tenantId, userId: ids.alice },
          body: { role: 'member' },
        }),
      ),
    );
    expect(refused.code).toBe('TENANT_ROLE_REQUIRED');
    expect(
      await call(byId(routes, 'removeMember'), { context, params: { tenantId, userId: ids.carol } }),
    ).toBeUndefined();
    expect(await rolesIn(tenancy, tenantId)).toEqual({
      'alice@example.com': 'owner',
      'bob@example.com': 'admin',
    });
    expect(() => tenancyRoutes(tenancy, { omitt: [] } as never)).toThrow(
      expect.objectContaining({ code: 'OPTION_UNKNOWN' }),
    );
  });
});
