// The naming and default rules of the tenancy module's roles and permissions, shared by the runtime's role
// table (runtime/tenancy/roles.ts) and the build's checks of `modules.tenancy` and `meta.teamRole`/`meta.can`
// (spec/loader/tenancy-meta.ts), so a spec the build accepts is one the service starts with.

/** The roles when `modules.tenancy.roles` names none, most powerful first. */
export const DEFAULT_ROLES: readonly string[] = ['owner', 'admin', 'member'];

/** The permission the member-management routes ask for; declared by default (see `declaredPermissions`). */
export const MEMBERS_PERMISSION = 'tenant:members';

/** A role name: a lower-case letter, then up to 63 of a-z, 0-9, "_" and "-". svc.schema.json says the same. */
export const ROLE_NAME = /^[a-z][a-z0-9_-]{0,63}$/;

/** A permission name: 1-100 letters, digits and "_.:-". svc.schema.json says the same. */
export const PERMISSION_NAME = /^[A-Za-z0-9_.:-]{1,100}$/;

/**
 * The roles granted `tenant:members` unless the service says otherwise: every role but the least powerful,
 * so plain members cannot manage members; the only role when there is one, or nobody could.
 */
export function defaultMembersGrant(roles: readonly string[]): string[] {
  return roles.slice(0, Math.max(1, roles.length - 1));
}

/** Every declared permission and the roles granted it: `permissions` over the `tenant:members` default. */
export function declaredPermissions<Granted>(
  roles: readonly string[],
  permissions: Readonly<Record<string, Granted>> = {},
): Record<string, Granted | string[]> {
  return { [MEMBERS_PERMISSION]: defaultMembersGrant(roles), ...permissions };
}

/**
 * Whether a route lets callers through who are not members of the tenant the request names: routes about the
 * caller (`account: true`) and platform routes above tenants (`central: true`).
 */
export function letsNonMembersThrough(meta: { account?: unknown; central?: unknown }): boolean {
  return meta.account === true || meta.central === true;
}
