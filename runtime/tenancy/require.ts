// What handlers and repositories call to act inside the request's tenant. Both read what the tenancy
// enricher confirmed: a tenant the caller merely named, without being a member, is never returned.
import { errors } from '../../generated/modules/errors.js';
import type { RequestContext } from '../http/types.js';
import { policyOf, tenantOf } from './policy.js';

/** The id of the request's tenant (the caller is a member); TENANT_REQUIRED (400) when there is none. */
export function requireTenantId(context: { tenant?: unknown }): string {
  const tenant = tenantOf(context);
  if (tenant === undefined) throw errors.TENANT_REQUIRED();
  return tenant.id;
}

/**
 * Asserts the caller holds every permission named, by the same rules as `meta.can` (for checks that depend on
 * the data, such as deleting a team's note but not one's own). Throws PERMISSION_DENIED, TENANT_REQUIRED,
 * TENANT_ACCESS_DENIED or AUTH_REQUIRED; PERMISSION_META_INVALID when called on a request no tenancy plugin
 * saw (the permission could not be enforced).
 */
export async function requirePermission(
  context: RequestContext,
  permission: string | readonly string[],
): Promise<void> {
  const policy = policyOf(context);
  if (policy === undefined) throw errors.PERMISSION_META_INVALID();
  await policy.requirePermissions(context, permission);
}
