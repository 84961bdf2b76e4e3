// The membership-store contract: tenants (teams), who belongs to each and with which role. The store is the
// one owner of the rules that must hold under concurrency: a tenant is created together with its first
// member, an account is a member once, and a tenant never loses its last holder of the protected role (the
// most powerful one). Each of those is one atomic step in every implementation (a synchronous map update in
// memory; one transaction holding the tenant's row lock in SQL), never a read followed by a write. So is the
// check of who acts: a request is authorised with the actor's role as read when it starts, so a change given
// `actor` applies only if the actor still holds that role at the change itself; a member manager removed or
// demoted while its request waited (an email lookup, a read of the target) cannot change the tenant after.

export interface Tenant {
  id: string;
  name: string;
  /** Unix ms. */
  createdAt: number;
}

export interface Membership {
  tenantId: string;
  userId: string;
  role: string;
  /** When the account joined, Unix ms. */
  createdAt: number;
}

/** A tenant as one of its members sees it in their list: with that member's role. */
export interface TenantOfMember {
  id: string;
  name: string;
  role: string;
}

/** The member on whose authority a change is made, and the role the request was authorised with. */
export interface MembershipActor {
  userId: string;
  role: string;
}

/** Guards of an addition. */
export interface MembershipAdditionRules {
  /**
   * The change applies only if this account is still a member holding exactly this role, checked in the same
   * atomic step, before anything else (a refusal tells nothing about the tenant or the account added).
   * Undefined: no check (the store's own callers, a tenant's creation).
   */
  actor?: MembershipActor;
}

/** Guards of a change to an existing membership. */
export interface MembershipChangeRules extends MembershipAdditionRules {
  /** The role a tenant must keep at least one holder of (the most powerful). */
  protectedRole: string;
  /**
   * Roles the member may currently hold for the change to apply (the roles the acting member may manage);
   * undefined: any. Checked in the same atomic step as the change.
   */
  onlyFrom?: readonly string[];
}

/**
 * Why `rules.actor` stopped a change, checked before every other rule: `actor-not-member`, the actor is no
 * longer a member (or the tenant does not exist); `actor-role-changed`, it holds another role than the one
 * the request was authorised with. Distinct from `forbidden` (about the target's role, which a caller may
 * read again and retry): retrying cannot help an actor.
 */
export type MembershipActorRefusal = 'actor-not-member' | 'actor-role-changed';

/** Why a change to an existing membership was not made. */
export type MembershipChangeRefusal =
  | MembershipActorRefusal
  /** The account is not a member of the tenant (or the tenant does not exist). */
  | 'not-member'
  /** The change would leave the tenant without a holder of `protectedRole`. */
  | 'last-owner'
  /** The member's current role is not in `onlyFrom`. */
  | 'forbidden';

export type MembershipChange =
  /** `previousRole`: the member's role the change replaced, read in the same atomic step. */
  { ok: true; membership: Membership; previousRole: string } | { ok: false; reason: MembershipChangeRefusal };

export type MembershipRemoval = { ok: true } | { ok: false; reason: MembershipChangeRefusal };

export type MembershipAddition =
  | { ok: true; membership: Membership }
  /**
   * `exists`: already a member; `no-tenant`: no tenant has this id (`actor-not-member` when an actor is
   * given: the actor's check comes first).
   */
  | { ok: false; reason: MembershipActorRefusal | 'exists' | 'no-tenant' };

export interface MembershipStore {
  /** Creates a tenant (a new random id) with `ownerId` as its first member in `role`, in one atomic step. */
  createTenant(input: { name: string; ownerId: string; role: string }): Promise<Tenant>;
  getTenant(id: string): Promise<Tenant | undefined>;
  /** The account's role in the tenant, undefined when it is not a member. The hot path: one lookup. */
  roleOf(tenantId: string, userId: string): Promise<string | undefined>;
  /** The tenants the account belongs to, oldest membership first (ties by tenant id). */
  tenantsOf(userId: string): Promise<TenantOfMember[]>;
  /** The tenant's members, oldest first (ties by user id); empty for an unknown tenant. */
  members(tenantId: string): Promise<Membership[]>;
  /** One membership, or undefined. */
  membership(tenantId: string, userId: string): Promise<Membership | undefined>;
  /** Adds the account in `role`; an account already a member is refused, never changed. */
  addMember(
    tenantId: string,
    userId: string,
    role: string,
    rules?: MembershipAdditionRules,
  ): Promise<MembershipAddition>;
  /** Gives the member `role`, unless that leaves the tenant without a holder of `rules.protectedRole`. */
  setRole(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipChange>;
  /** Removes the member, unless that leaves the tenant without a holder of `rules.protectedRole`. */
  removeMember(tenantId: string, userId: string, rules: MembershipChangeRules): Promise<MembershipRemoval>;
}

/** What a store read, inside the atomic step of a change, about the member, the actor and the tenant. */
export interface MembershipChangeFacts {
  /** The member's current role; undefined when not a member (or no such tenant). */
  role: string | undefined;
  /** The actor's current role (undefined: not a member); read only when the rules name an actor. */
  actorRole: string | undefined;
  /** How many members hold `rules.protectedRole`. */
  holders: number;
}

/**
 * Why the member may not move to `newRole` (undefined: leave the tenant), if anything stops it: the one order
 * every store applies. The actor first, so a former member learns nothing about the tenant; then the member,
 * the roles the actor may touch, and the last holder of the protected role.
 */
export function changeRefusal(
  facts: MembershipChangeFacts,
  rules: MembershipChangeRules,
  newRole: string | undefined,
): MembershipChangeRefusal | undefined {
  const refusedActor = actorRefusal(rules.actor, facts.actorRole);
  if (refusedActor !== undefined) return refusedActor;
  if (facts.role === undefined) return 'not-member';
  if (rules.onlyFrom !== undefined && !rules.onlyFrom.includes(facts.role)) return 'forbidden';
  if (facts.role === rules.protectedRole && newRole !== rules.protectedRole && facts.holders <= 1) {
    return 'last-owner';
  }
  return undefined;
}

/** Why `actor` may no longer act, given the role it holds now (undefined: not a member); none without one. */
export function actorRefusal(
  actor: MembershipActor | undefined,
  currentRole: string | undefined,
): MembershipActorRefusal | undefined {
  if (actor === undefined) return undefined;
  if (currentRole === undefined) return 'actor-not-member';
  return currentRole === actor.role ? undefined : 'actor-role-changed';
}
