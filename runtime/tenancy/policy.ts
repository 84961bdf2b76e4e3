// The tenancy rules a request is judged by, in one place: the guards of `meta.teamRole` and `meta.can`,
// `requirePermission()` in handlers and the tool-listing visibility all ask this policy, so a permission
// means the same wherever it is checked. What the enricher found for a request (the tenant it named) is kept
// in the request's slots under this module's own symbol: out of reach of handlers and logs, and, unlike a
// WeakMap keyed by the context, next to free (a WeakMap cost more than the rest of the membership check).
import { errors } from '../../generated/modules/errors.js';
import type { HookSlots } from '../http/hook-slots.js';
import type { RequestContext } from '../http/types.js';
import type { RoleTable } from './roles.js';

/** `context.tenant` once the caller's membership was confirmed. */
export interface TenantContext {
  id: string;
  /** The caller's role in the tenant. */
  role: string;
}

export interface PermissionCheckInput {
  permission: string;
  /** `context.user`, as the auth enricher set it. */
  user: unknown;
  /** The caller's tenant and role, or undefined when the request names none (or the caller is no member). */
  tenant: TenantContext | undefined;
  context: RequestContext;
}

/**
 * The application's own grants, asked for a permission no role of the caller grants. It may grant by
 * anything it knows (a plan, a platform-admin flag); it should not have side effects: it runs per request.
 */
export type PermissionCheck = (input: PermissionCheckInput) => boolean | Promise<boolean>;

/** What the tenancy enricher found on one request. */
export interface RequestTenancy {
  policy: TenancyPolicy;
  /** The tenant the request named, member or not. */
  named: string | undefined;
}

const FOUND = Symbol('svc:tenancy');

/** What the tenancy enricher recorded on this request; undefined when none ran. */
export function foundOn(context: RequestContext): RequestTenancy | undefined {
  return (context.hookSlots as HookSlots | undefined)?.[FOUND] as RequestTenancy | undefined;
}

/** The tenant the request named, member or not (undefined when it named none or tenancy is off). */
export function namedTenantOf(context: RequestContext): string | undefined {
  return foundOn(context)?.named;
}

/** The user id the auth enricher put on the context, or undefined. */
export function userIdOf(user: unknown): string | undefined {
  if (user === null || typeof user !== 'object') return undefined;
  const id = (user as { id?: unknown }).id;
  return typeof id === 'string' && id !== '' ? id : undefined;
}

/** The tenant of the request with the caller's role, once its membership was confirmed; else undefined. */
export function tenantOf(context: { tenant?: unknown }): TenantContext | undefined {
  const tenant = context.tenant;
  if (tenant === null || typeof tenant !== 'object') return undefined;
  const { id, role } = tenant as { id?: unknown; role?: unknown };
  return typeof id === 'string' && typeof role === 'string' ? (tenant as TenantContext) : undefined;
}

/** `meta.can` as the guard reads it: a permission or a non-empty list of them; undefined when malformed. */
export function permissionsOf(can: unknown): readonly string[] | undefined {
  if (typeof can === 'string') return can === '' ? undefined : [can];
  if (!Array.isArray(can) || can.length === 0) return undefined;
  return can.every((item) => typeof item === 'string' && item !== '') ? (can as string[]) : undefined;
}

export class TenancyPolicy {
  constructor(
    readonly roles: RoleTable,
    private readonly authorize: PermissionCheck | undefined,
  ) {}

  /** Whether `meta.can` may name permissions the role table does not declare (an app function grants them). */
  get grantsUndeclared(): boolean {
    return this.authorize !== undefined;
  }

  /** Records what the enricher found; called once per request. */
  remember(context: RequestContext, named: string | undefined): void {
    let slots = context.hookSlots as HookSlots | undefined;
    if (slots === undefined) {
      slots = {};
      context.hookSlots = slots;
    }
    slots[FOUND] = { policy: this, named } satisfies RequestTenancy;
  }

  /** The caller's membership in the tenant the request named; throws when there is none to act in. */
  private memberTenant(context: RequestContext): TenantContext {
    if (context.user === undefined && context.apiKey === undefined) throw errors.AUTH_REQUIRED();
    const named = namedTenantOf(context);
    if (named === undefined) throw errors.TENANT_REQUIRED();
    const tenant = tenantOf(context);
    if (tenant === undefined || tenant.id !== named) throw errors.TENANT_ACCESS_DENIED();
    return tenant;
  }

  /** `meta.teamRole`: the caller holds `required` or a more powerful role in the named tenant. */
  requireRole(context: RequestContext, required: string): void {
    const tenant = this.memberTenant(context);
    if (!this.roles.satisfies(tenant.role, required)) throw errors.TENANT_ROLE_REQUIRED();
  }

  /** `meta.can`: every permission granted, by the caller's role or by the application's check. */
  async requirePermissions(context: RequestContext, can: unknown): Promise<void> {
    const permissions = permissionsOf(can);
    if (permissions === undefined) throw errors.PERMISSION_META_INVALID();
    if (this.authorize === undefined) {
      const tenant = this.memberTenant(context);
      for (const permission of permissions) {
        if (!this.roles.allows(tenant.role, permission)) throw errors.PERMISSION_DENIED();
      }
      return;
    }
    // With an application check, a request without a tenant may still be granted (a platform permission).
    if (context.user === undefined && context.apiKey === undefined) throw errors.AUTH_REQUIRED();
    const named = namedTenantOf(context);
    const tenant = tenantOf(context);
    if (named !== undefined && tenant?.id !== named) throw errors.TENANT_ACCESS_DENIED();
    for (const permission of permissions) {
      if (this.roles.allows(tenant?.role, permission)) continue;
      const granted = await this.authorize({ permission, user: context.user, tenant, context });
      if (granted !== true) throw errors.PERMISSION_DENIED();
    }
  }

  /**
   * Whether a tool listing shows the route to this caller: side-effect-free checks only, so a route whose
   * permission only the application's check could grant stays listed (the call still runs every guard).
   */
  canSee(meta: { teamRole?: unknown; can?: unknown }, context: RequestContext): boolean {
    const tenant = tenantOf(context);
    if (meta.teamRole !== undefined && meta.teamRole !== false) {
      if (typeof meta.teamRole !== 'string' || !this.roles.satisfies(tenant?.role, meta.teamRole))
        return false;
    }
    if (meta.can !== undefined && meta.can !== false) {
      const permissions = permissionsOf(meta.can);
      if (permissions === undefined) return false;
      if (this.authorize !== undefined) return true;
      return permissions.every((permission) => this.roles.allows(tenant?.role, permission));
    }
    return true;
  }
}

/** The policy of the request's tenancy plugin, or undefined when no tenancy enricher ran on it. */
export function policyOf(context: RequestContext): TenancyPolicy | undefined {
  return foundOn(context)?.policy;
}
