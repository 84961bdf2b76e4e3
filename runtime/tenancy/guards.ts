// The guards of the tenancy plugin. The membership guard refuses a request naming a tenant the caller is not
// a member of, with the same answer whether the tenant exists or not; routes about the caller
// (`account: true`) and platform routes (`central: true`) let non-members through. `meta.teamRole` and
// `meta.can` each run only on routes that declare them. The meta validator refuses to boot a route whose
// `teamRole` names no role of the service, or whose `can` names a permission nothing could grant.
import { errors } from '../../generated/modules/errors.js';
import type { Guard, MetaValidator, Route, RouteVisibilityCheck } from '../http/types.js';
import { letsNonMembersThrough } from '../../shared/tenancy-roles.js';
import { foundOn, namedTenantOf, permissionsOf, tenantOf, type TenancyPolicy } from './policy.js';
import type { RoleTable } from './roles.js';

/** Whether a route skips the membership check: about the caller, or above tenants. */
export function passesNonMembers(route: Route): boolean {
  return letsNonMembersThrough(route.meta);
}

function grantedPermissions(roles: RoleTable): string[] {
  return Object.entries(roles.permissions())
    .filter(([, granted]) => granted.length > 0)
    .map(([name]) => name);
}

function declares(route: Route, key: 'teamRole' | 'can'): boolean {
  const value = route.meta[key];
  return value !== undefined && value !== false;
}

export function membershipGuard(): Guard {
  return {
    name: 'svc:tenancy-membership',
    appliesTo: (route) => !passesNonMembers(route),
    check({ context }) {
      const found = foundOn(context);
      // The enricher runs before every guard; no record means something removed it: refuse, never pass.
      if (found === undefined) throw new Error('The tenancy enricher left no record on this request.');
      if (found.named === undefined) return;
      if (tenantOf(context)?.id !== found.named) throw errors.TENANT_ACCESS_DENIED();
    },
  };
}

export function teamRoleGuard(policy: TenancyPolicy): Guard {
  return {
    name: 'svc:tenancy-role',
    appliesTo: (route) => declares(route, 'teamRole'),
    check({ route, context }) {
      policy.requireRole(context, route.meta.teamRole as string);
    },
  };
}

export function permissionGuard(policy: TenancyPolicy): Guard {
  return {
    name: 'svc:tenancy-permission',
    appliesTo: (route) => declares(route, 'can'),
    check({ route, context }) {
      return policy.requirePermissions(context, route.meta.can);
    },
  };
}

/** Tool listings hide routes of a tenant the caller is not a member of, and roles or permissions they lack. */
export function tenancyVisibility(policy: TenancyPolicy): RouteVisibilityCheck {
  return {
    name: 'svc:tenancy',
    isVisible(route, context) {
      if (!passesNonMembers(route)) {
        const named = namedTenantOf(context);
        if (named !== undefined && tenantOf(context)?.id !== named) return false;
      }
      return policy.canSee(route.meta, context);
    },
  };
}

/**
 * Boot checks: `teamRole` a role of the service; `can` naming only declared permissions unless the
 * application's own check may grant others. A malformed `can` is not refused here: its guard answers 500
 * PERMISSION_META_INVALID on each request, so the route fails loudly and closed.
 */
export function tenancyMetaValidator(policy: TenancyPolicy): MetaValidator {
  const { roles } = policy;
  return {
    name: 'svc:tenancy-meta',
    validate(route) {
      const problems: string[] = [];
      const teamRole = route.meta.teamRole;
      if (teamRole !== undefined && teamRole !== false && !roles.has(teamRole)) {
        problems.push(
          `meta.teamRole ${JSON.stringify(teamRole)} is not a role of this service (${roles.roles.join(', ')})`,
        );
      }
      const permissions = permissionsOf(route.meta.can);
      if (permissions !== undefined && !policy.grantsUndeclared) {
        for (const permission of permissions) {
          if (roles.grantedTo(permission).length === 0) {
            problems.push(
              `meta.can names "${permission}", which no role is granted and no authorize function could grant (granted: ${grantedPermissions(roles).join(', ')})`,
            );
          }
        }
      }
      return problems;
    },
  };
}
