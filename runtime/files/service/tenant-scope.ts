// Which tenant an operation works in. An explicit tenant must agree with the request's tenant (a handler cannot
// reach into another tenant by passing its id); without either, an app with tenancy refuses, and an app
// without it uses the reserved single-tenant key, which no caller may name itself.
import { errors } from '../../../generated/modules/errors.js';
import { SINGLE_TENANT } from '../record.js';

/** Longest tenant id the service takes, in characters (the tenancy module's own limit). */
const MAX_TENANT_ID_LENGTH = 128;

// eslint-disable-next-line no-control-regex
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The tenant id the tenancy enricher put on a request context (`context.tenant = { id, role }`), read by
 * shape so the file service does not depend on the tenancy module. Undefined when there is none.
 */
export function contextTenantOf(context: { tenant?: unknown } | undefined): string | undefined {
  const tenant = context?.tenant;
  if (tenant === null || typeof tenant !== 'object') return undefined;
  const id = (tenant as { id?: unknown }).id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * A tenant id named by a caller or a context: 1-128 characters, no control characters, not `@single`.
 * A malformed one is FILE_TENANT_REQUIRED (`details.reason: 'tenant-id-malformed'`): it names no tenant.
 */
function checkedTenant(tenantId: unknown): string {
  if (
    typeof tenantId !== 'string' ||
    tenantId.length === 0 ||
    tenantId.length > MAX_TENANT_ID_LENGTH ||
    CONTROL_CHARS.test(tenantId)
  ) {
    throw errors.FILE_TENANT_REQUIRED({
      message: 'A valid tenant id is required.',
      details: { reason: 'tenant-id-malformed' },
    });
  }
  if (tenantId === SINGLE_TENANT) throw errors.FILE_TENANT_RESERVED();
  return tenantId;
}

/** The tenant an operation runs in, from its explicit argument, the context's tenant and the tenancy setting. */
export function resolveTenant(
  explicit: string | undefined,
  contextTenant: string | undefined,
  tenancy: boolean,
): string {
  const fromContext = contextTenant === undefined ? undefined : checkedTenant(contextTenant);
  if (explicit !== undefined) {
    const tenantId = checkedTenant(explicit);
    if (fromContext !== undefined && tenantId !== fromContext) throw errors.FILE_TENANT_MISMATCH();
    return tenantId;
  }
  if (fromContext !== undefined) return fromContext;
  if (tenancy) throw errors.FILE_TENANT_REQUIRED();
  return SINGLE_TENANT;
}
