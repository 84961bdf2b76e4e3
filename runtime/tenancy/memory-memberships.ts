// The in-memory membership store: tenants and memberships in this process's maps, for `stores.database:
// memory`. Every rule is decided and written inside one synchronous method body (no await between the check
// and the write), so concurrent calls cannot interleave; several processes need the SQL store. Callers get
// copies: a returned record never aliases the stored one.
import { randomUUID } from 'node:crypto';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import type {
  Membership,
  MembershipAddition,
  MembershipAdditionRules,
  MembershipChange,
  MembershipChangeRefusal,
  MembershipChangeRules,
  MembershipRemoval,
  MembershipStore,
  Tenant,
  TenantOfMember,
} from './memberships.js';
import { actorRefusal, changeRefusal } from './memberships.js';

export interface MemoryMembershipStoreOptions {
  /** Clock in epoch milliseconds (tenant and membership creation times); tests pass a fake one. Default Date.now. */
  now?: () => number;
}

/** The keys of MemoryMembershipStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<MemoryMembershipStoreOptions>({ now: true });

/** Oldest first, ties by `key`: the order of `members` (user id) and `tenantsOf` (tenant id). */
function byAge<T extends { createdAt: number }>(key: (item: T) => string): (a: T, b: T) => number {
  return (a, b) => a.createdAt - b.createdAt || (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);
}

export class MemoryMembershipStore implements MembershipStore {
  private readonly now: () => number;
  private readonly tenants = new Map<string, Tenant>();
  /** Tenant id → user id → membership. */
  private readonly byTenant = new Map<string, Map<string, Membership>>();
  /** User id → the ids of the tenants they belong to: `tenantsOf` without scanning every tenant. */
  private readonly byUser = new Map<string, Set<string>>();

  constructor(options: MemoryMembershipStoreOptions = {}) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'MemoryMembershipStore');
    this.now = options.now ?? Date.now;
  }

  async createTenant(input: { name: string; ownerId: string; role: string }): Promise<Tenant> {
    const tenant: Tenant = { id: randomUUID(), name: input.name, createdAt: this.now() };
    this.tenants.set(tenant.id, tenant);
    this.byTenant.set(tenant.id, new Map());
    this.join({ tenantId: tenant.id, userId: input.ownerId, role: input.role, createdAt: tenant.createdAt });
    return { ...tenant };
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    const tenant = this.tenants.get(id);
    return tenant === undefined ? undefined : { ...tenant };
  }

  async roleOf(tenantId: string, userId: string): Promise<string | undefined> {
    return this.byTenant.get(tenantId)?.get(userId)?.role;
  }

  async tenantsOf(userId: string): Promise<TenantOfMember[]> {
    const joined: { tenant: Tenant; membership: Membership; createdAt: number }[] = [];
    for (const tenantId of this.byUser.get(userId) ?? []) {
      const tenant = this.tenants.get(tenantId)!;
      const membership = this.byTenant.get(tenantId)!.get(userId)!;
      joined.push({ tenant, membership, createdAt: membership.createdAt });
    }
    return joined
      .sort(byAge((entry) => entry.tenant.id))
      .map(({ tenant, membership }) => ({ id: tenant.id, name: tenant.name, role: membership.role }));
  }

  async members(tenantId: string): Promise<Membership[]> {
    const members = [...(this.byTenant.get(tenantId)?.values() ?? [])];
    return members.sort(byAge((member) => member.userId)).map((member) => ({ ...member }));
  }

  async membership(tenantId: string, userId: string): Promise<Membership | undefined> {
    const membership = this.byTenant.get(tenantId)?.get(userId);
    return membership === undefined ? undefined : { ...membership };
  }

  async addMember(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipAdditionRules = {},
  ): Promise<MembershipAddition> {
    const members = this.byTenant.get(tenantId);
    const actorRole = rules.actor === undefined ? undefined : members?.get(rules.actor.userId)?.role;
    const refusedActor = actorRefusal(rules.actor, actorRole);
    if (refusedActor !== undefined) return { ok: false, reason: refusedActor };
    if (members === undefined) return { ok: false, reason: 'no-tenant' };
    if (members.has(userId)) return { ok: false, reason: 'exists' };
    const membership = this.join({ tenantId, userId, role, createdAt: this.now() });
    return { ok: true, membership: { ...membership } };
  }

  async setRole(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipChange> {
    const refusal = this.refusal(tenantId, userId, rules, role);
    if (refusal !== undefined) return { ok: false, reason: refusal };
    const membership = this.byTenant.get(tenantId)!.get(userId)!;
    const previousRole = membership.role;
    membership.role = role;
    return { ok: true, membership: { ...membership }, previousRole };
  }

  async removeMember(
    tenantId: string,
    userId: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipRemoval> {
    const refusal = this.refusal(tenantId, userId, rules, undefined);
    if (refusal !== undefined) return { ok: false, reason: refusal };
    this.byTenant.get(tenantId)!.delete(userId);
    const tenantIds = this.byUser.get(userId)!;
    tenantIds.delete(tenantId);
    if (tenantIds.size === 0) this.byUser.delete(userId);
    return { ok: true };
  }

  private join(membership: Membership): Membership {
    this.byTenant.get(membership.tenantId)!.set(membership.userId, membership);
    let tenantIds = this.byUser.get(membership.userId);
    if (tenantIds === undefined) {
      tenantIds = new Set();
      this.byUser.set(membership.userId, tenantIds);
    }
    tenantIds.add(membership.tenantId);
    return membership;
  }

  /**
   * Why the member may not move to `newRole` (undefined: leave the tenant), if anything stops it. The rules of
   * MembershipChangeRules, in the order the SQL store applies them.
   */
  private refusal(
    tenantId: string,
    userId: string,
    rules: MembershipChangeRules,
    newRole: string | undefined,
  ): MembershipChangeRefusal | undefined {
    const members = this.byTenant.get(tenantId);
    let holders = 0;
    for (const member of members?.values() ?? []) if (member.role === rules.protectedRole) holders += 1;
    const facts = {
      role: members?.get(userId)?.role,
      actorRole: rules.actor === undefined ? undefined : members?.get(rules.actor.userId)?.role,
      holders,
    };
    return changeRefusal(facts, rules, newRole);
  }
}
