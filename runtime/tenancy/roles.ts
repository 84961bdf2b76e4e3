// The roles of a service's tenants and the permissions each grants: one table, read by the guards of
// `meta.teamRole` and `meta.can`, by the member-management rules and by tool-listing visibility. Roles are
// listed most powerful first; the first is the owner role, which every tenant keeps at least one holder of.
import {
  declaredPermissions,
  DEFAULT_ROLES,
  MEMBERS_PERMISSION,
  PERMISSION_NAME,
  ROLE_NAME,
} from '../../shared/tenancy-roles.js';
import { invalidOption } from '../config/option-errors.js';

// The naming and default rules live in shared/, where the build's checks of `modules.tenancy` read them too.
export { DEFAULT_ROLES, MEMBERS_PERMISSION };

export interface RoleTableOptions {
  /** Role names, most powerful first. Default owner, admin, member. */
  roles?: readonly string[];
  /**
   * Permission → the roles granted it. `tenant:members` defaults to every role but the least powerful (the
   * only role, when there is one).
   */
  permissions?: Readonly<Record<string, readonly string[]>>;
}

export class RoleTable {
  readonly roles: readonly string[];
  private readonly ranks: ReadonlyMap<string, number>;
  private readonly grants: ReadonlyMap<string, ReadonlySet<string>>;

  constructor(options: RoleTableOptions = {}, owner = 'tenancyPlugin()') {
    const roles = options.roles ?? DEFAULT_ROLES;
    if (!Array.isArray(roles) || roles.length === 0) {
      throw invalidOption(owner, 'roles', 'a non-empty list of role names, most powerful first');
    }
    const ranks = new Map<string, number>();
    for (const role of roles) {
      if (typeof role !== 'string' || !ROLE_NAME.test(role)) {
        throw invalidOption(
          owner,
          'roles',
          'role names of a-z, 0-9, "_" and "-" (up to 64, a letter first)',
          `got ${JSON.stringify(role)}`,
        );
      }
      if (ranks.has(role)) throw invalidOption(owner, 'roles', 'each role once', `"${role}" is listed twice`);
      ranks.set(role, ranks.size);
    }
    this.roles = Object.freeze([...roles]);
    this.ranks = ranks;

    const declared = declaredPermissions(roles, options.permissions);
    const grants = new Map<string, ReadonlySet<string>>();
    for (const [permission, granted] of Object.entries(declared)) {
      if (!PERMISSION_NAME.test(permission)) {
        throw invalidOption(
          owner,
          'permissions',
          'names of letters, digits and "_.:-" (up to 100)',
          `got "${permission}"`,
        );
      }
      if (!Array.isArray(granted)) {
        throw invalidOption(owner, `permissions.${permission}`, 'a list of role names');
      }
      for (const role of granted) {
        if (typeof role !== 'string' || !ranks.has(role)) {
          throw invalidOption(
            owner,
            `permissions.${permission}`,
            `roles of this service (${roles.join(', ')})`,
            `got ${JSON.stringify(role)}`,
          );
        }
      }
      grants.set(permission, new Set(granted));
    }
    this.grants = grants;
  }

  /** The most powerful role: the one a tenant's creator gets and a tenant never loses its last holder of. */
  get owner(): string {
    return this.roles[0]!;
  }

  has(role: unknown): role is string {
    return typeof role === 'string' && this.ranks.has(role);
  }

  /** True when `role` is `required` or more powerful. Unknown roles satisfy nothing. */
  satisfies(role: string | undefined, required: string): boolean {
    if (role === undefined) return false;
    const rank = this.ranks.get(role);
    const needed = this.ranks.get(required);
    return rank !== undefined && needed !== undefined && rank <= needed;
  }

  /** The roles `role` may manage: itself and every less powerful one. */
  managedBy(role: string): readonly string[] {
    const rank = this.ranks.get(role);
    return rank === undefined ? [] : this.roles.slice(rank);
  }

  /** Whether the table declares this permission (a `can` naming another grants nobody). */
  declares(permission: string): boolean {
    return this.grants.has(permission);
  }

  /** Whether `role` is granted `permission`. */
  allows(role: string | undefined, permission: string): boolean {
    return role !== undefined && (this.grants.get(permission)?.has(role) ?? false);
  }

  /** The roles granted `permission` (none for an undeclared one). */
  grantedTo(permission: string): string[] {
    return [...(this.grants.get(permission) ?? [])];
  }

  /** The permissions and the roles granted each, for documents and listings. */
  permissions(): Record<string, string[]> {
    return Object.fromEntries([...this.grants].map(([name, roles]) => [name, [...roles]]));
  }
}
