// The team operations and their role rules. A member manager grants only roles it may manage (its own and the
// less powerful ones) and changes or removes only members holding such a role; a tenant always keeps one
// holder of the owner role (the most powerful). The store decides the rules that race (the actor's role, the
// target's current role, the last owner) in the same atomic step as the change, so a refusal leaves nothing
// half-done, and an actor removed or demoted while its request waited changes nothing. Events follow a change
// that was made and never fail the call that raised them.
import { errors } from '../../generated/modules/errors.js';
import type { HookEvents, Hooks } from '../app/hooks.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption, invalidOptions } from '../config/option-errors.js';
import { errorFields } from '../log/error-fields.js';
import { defaultLogger } from '../log/json-logger.js';
import { isLogger, type Logger } from '../log/logger.js';
import { normalizeEmail, type UserSource } from '../auth/stores/users.js';
import type { TenancyEventName, TenancyEventPayloads } from './events.js';
import type { Membership, MembershipChangeRefusal, MembershipStore } from './memberships.js';
import type { RoleTable } from './roles.js';

/** The account lookups the team operations need (an Auth's `auth.users` serves). */
export type TenancyUsers = Pick<UserSource, 'findByEmail' | 'findById'> & {
  findByIds?: UserSource['findByIds'];
};

export interface TenancyOptions {
  memberships: MembershipStore;
  roles: RoleTable;
  /** The accounts members are (auth.users). */
  users: TenancyUsers;
  /** The bus the tenancy events go to (the app's). */
  hooks: Hooks;
  /** Where failures of event listeners are logged. Default: JSON lines on stderr. */
  logger?: Logger;
  /** Receives failures of event listeners instead of the logger. */
  onEventError?: (error: unknown, event: string) => void;
}

const TENANCY_OPTIONS = optionKeys<TenancyOptions>({
  memberships: true,
  roles: true,
  users: true,
  hooks: true,
  logger: true,
  onEventError: true,
});

/** Who acts on a tenant: the account, and its role there as the request's membership check found it. */
export interface TenancyActor {
  userId: string;
  role: string;
}

/** A tenant as one of its members sees it: with that member's role. */
export interface MemberTenant {
  id: string;
  name: string;
  role: string;
}

/** A member as the team routes show it. */
export interface TenantMember {
  userId: string;
  /** '' when the account no longer exists (the membership still counts, e.g. as an owner, until removed). */
  email: string;
  role: string;
  /** When the account joined, ISO 8601. */
  addedAt: string;
}

const OWNER = 'Tenancy';

/** The store methods the operations call. */
const MEMBERSHIP_METHODS = [
  'createTenant',
  'tenantsOf',
  'members',
  'membership',
  'addMember',
  'setRole',
  'removeMember',
] as const;

export class Tenancy {
  readonly roles: RoleTable;
  readonly memberships: MembershipStore;
  private readonly users: TenancyUsers;
  private readonly hooks: Hooks;
  private readonly onEventError: (error: unknown, event: string) => void;

  constructor(options: TenancyOptions) {
    if (options === null || typeof options !== 'object') throw invalidOptions(OWNER);
    rejectUnknownOptions(options, TENANCY_OPTIONS, OWNER);
    const { memberships, roles, users, hooks, logger, onEventError } = options;
    if (!hasMethods(memberships, MEMBERSHIP_METHODS)) {
      throw invalidOption(OWNER, 'memberships', 'a MembershipStore');
    }
    if (!hasMethods(roles, ['managedBy', 'has'])) throw invalidOption(OWNER, 'roles', 'a RoleTable');
    if (!hasMethods(users, ['findByEmail', 'findById'])) {
      throw invalidOption(OWNER, 'users', 'a user source with findByEmail and findById');
    }
    if (!hasMethods(hooks, ['on', 'emit'])) throw invalidOption(OWNER, 'hooks', 'the app hook bus (a Hooks)');
    if (logger !== undefined && !isLogger(logger)) throw invalidOption(OWNER, 'logger', 'a Logger');
    if (onEventError !== undefined && typeof onEventError !== 'function') {
      throw invalidOption(OWNER, 'onEventError', 'a function');
    }
    this.memberships = memberships;
    this.roles = roles;
    this.users = users;
    this.hooks = hooks;
    const log = logger ?? defaultLogger;
    this.onEventError =
      onEventError ??
      ((error, event) => log.error('tenancy event listener failed', { event, error: errorFields(error) }));
  }

  /** A new tenant with its creator as its first member, in the owner role. */
  async createTenant(userId: string, name: string): Promise<MemberTenant> {
    const role = this.roles.owner;
    const tenant = await this.memberships.createTenant({ name, ownerId: userId, role });
    await this.emit('tenant:created', { tenant: { id: tenant.id, name: tenant.name }, userId, role });
    return { id: tenant.id, name: tenant.name, role };
  }

  /** The tenants the account belongs to, oldest membership first, each with its role there. */
  async tenantsOf(userId: string): Promise<{ items: MemberTenant[] }> {
    const tenants = await this.memberships.tenantsOf(userId);
    return { items: tenants.map(({ id, name, role }) => ({ id, name, role })) };
  }

  /** The tenant's members in the order they joined, with their emails. */
  async members(tenantId: string): Promise<{ items: TenantMember[] }> {
    const memberships = await this.memberships.members(tenantId);
    const emails = await this.emailsOf(memberships.map((membership) => membership.userId));
    return { items: memberships.map((membership) => shown(membership, emails.get(membership.userId))) };
  }

  /**
   * Adds the account with this email in `role`. The role must be declared and one the actor manages; only
   * then is the email looked up, so a caller who may not add members learns nothing about accounts.
   */
  async addMember(actor: TenancyActor, tenantId: string, email: string, role: string): Promise<TenantMember> {
    this.checkGrant(actor, role);
    const user = await this.users.findByEmail(normalizeEmail(email));
    if (user === null) throw errors.TENANT_USER_NOT_FOUND();
    const added = await this.memberships.addMember(tenantId, user.id, role, { actor });
    if (!added.ok) {
      // A tenant that vanished after the actor's membership check: the actor is no longer a member of it.
      if (added.reason === 'no-tenant') throw errors.TENANT_ACCESS_DENIED();
      throw added.reason === 'exists' ? errors.TENANT_MEMBER_EXISTS() : refused(added.reason);
    }
    await this.emit('tenant:member_added', { tenantId, userId: user.id, role, by: actor.userId });
    return shown(added.membership, user.email);
  }

  /**
   * Gives the member `role`. Both the role granted and the member's current role must be ones the actor
   * manages (an admin neither makes an owner nor demotes one); the last owner keeps the role. Setting the
   * role the member already holds changes nothing and raises no event.
   */
  async updateMember(
    actor: TenancyActor,
    tenantId: string,
    userId: string,
    role: string,
  ): Promise<TenantMember> {
    this.checkGrant(actor, role);
    // The member's current role is checked (one the actor manages) and reported in the same atomic step.
    const change = await this.memberships.setRole(tenantId, userId, role, {
      protectedRole: this.roles.owner,
      onlyFrom: this.roles.managedBy(actor.role),
      actor,
    });
    if (!change.ok) throw refused(change.reason);
    if (change.previousRole !== role) {
      await this.emit('tenant:member_role_changed', {
        tenantId,
        userId,
        role,
        previousRole: change.previousRole,
        by: actor.userId,
      });
    }
    return this.shownWithEmail(change.membership);
  }

  /** Removes a member holding a role the actor manages; the last owner stays. */
  async removeMember(actor: TenancyActor, tenantId: string, userId: string): Promise<void> {
    const removal = await this.memberships.removeMember(tenantId, userId, {
      protectedRole: this.roles.owner,
      onlyFrom: this.roles.managedBy(actor.role),
      actor,
    });
    if (!removal.ok) throw refused(removal.reason);
    await this.emit('tenant:member_removed', { tenantId, userId, by: actor.userId });
  }

  /**
   * The member leaves the tenant, whatever its role, unless it is the last owner. No actor to re-check: the
   * member acts on itself, and the store refuses a non-member.
   */
  async leave(userId: string, tenantId: string): Promise<void> {
    const removal = await this.memberships.removeMember(tenantId, userId, {
      protectedRole: this.roles.owner,
    });
    if (!removal.ok) throw refused(removal.reason);
    await this.emit('tenant:member_removed', { tenantId, userId, by: userId });
  }

  /** A declared role the actor may grant, or TENANT_ROLE_UNKNOWN (400) / TENANT_ROLE_REQUIRED (403). */
  private checkGrant(actor: TenancyActor, role: string): void {
    if (!this.roles.has(role)) throw errors.TENANT_ROLE_UNKNOWN();
    if (!this.roles.managedBy(actor.role).includes(role)) throw errors.TENANT_ROLE_REQUIRED();
  }

  private async shownWithEmail(membership: Membership): Promise<TenantMember> {
    const user = await this.users.findById(membership.userId);
    return shown(membership, user?.email);
  }

  /** Id → email of the accounts that exist: one bulk lookup when the source has one. */
  private async emailsOf(ids: readonly string[]): Promise<Map<string, string>> {
    if (ids.length === 0) return new Map();
    if (this.users.findByIds !== undefined) {
      const found = await this.users.findByIds(ids);
      return new Map(found.map((user) => [user.id, user.email]));
    }
    const found = await Promise.all(ids.map((id) => this.users.findById(id)));
    return new Map(found.flatMap((user) => (user === null ? [] : [[user.id, user.email] as const])));
  }

  private async emit<E extends TenancyEventName>(event: E, payload: TenancyEventPayloads[E]): Promise<void> {
    try {
      await this.hooks.emit(event, payload as HookEvents[E]);
    } catch (error) {
      this.onEventError(error, event);
    }
  }
}

function shown(membership: Membership, email: string | undefined): TenantMember {
  return {
    userId: membership.userId,
    email: email ?? '',
    role: membership.role,
    addedAt: new Date(membership.createdAt).toISOString(),
  };
}

/** The catalog error for a store's refusal of a change to a membership. */
function refused(reason: MembershipChangeRefusal): Error {
  switch (reason) {
    // Removed while its request waited: as for any non-member, the tenant's existence does not leak.
    case 'actor-not-member':
      return errors.TENANT_ACCESS_DENIED();
    // Demoted (or promoted) while its request waited: the request was authorised with a role it lost.
    case 'actor-role-changed':
      return errors.TENANT_ROLE_REQUIRED();
    case 'not-member':
      return errors.TENANT_MEMBER_NOT_FOUND();
    case 'last-owner':
      return errors.TENANT_LAST_OWNER();
    case 'forbidden':
      return errors.TENANT_ROLE_REQUIRED();
  }
}

function hasMethods(value: unknown, names: readonly string[]): boolean {
  if (value === null || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return names.every((name) => typeof record[name] === 'function');
}
