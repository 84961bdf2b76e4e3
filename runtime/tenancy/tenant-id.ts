// Which tenant a request names. A route with a `tenantId` path parameter names it in its path (the team
// routes, `/tenants/:tenantId/...`); otherwise the tenant header does (`x-tenant-id` by default), or the
// application's resolver (a host's subdomain, say) in its place. Naming two different tenants is refused, and
// so is a malformed id: a repeated header arrives joined with ', ' and never names one tenant by chance.
import { errors } from '../../generated/modules/errors.js';
import type { Route, SvcRequest } from '../http/types.js';
import { DEFAULT_TENANT_HEADER } from '../../shared/module-defaults.js';

export { DEFAULT_TENANT_HEADER };

/** The path parameter that names the tenant on a route that has one. */
export const TENANT_PARAM = 'tenantId';

// `.` and `..` are refused: an id may end up as a path segment (a disk folder, a URL).
const TENANT_ID = /^(?!\.{1,2}$)[A-Za-z0-9._:-]{1,128}$/;

/** What the application's resolver sees; it answers a tenant id, or undefined when the request names none. */
export interface TenantResolverInput {
  request: SvcRequest;
  route: Route;
}

export type TenantResolver = (input: TenantResolverInput) => string | undefined | Promise<string | undefined>;

/** True for 1-128 characters of letters, digits, '.', '_', ':' and '-', other than `.` and `..`. */
export function isTenantId(value: unknown): value is string {
  return typeof value === 'string' && TENANT_ID.test(value);
}

/** `value` when it is a well-formed tenant id; TENANT_INVALID otherwise. */
export function checkedTenantId(value: unknown): string {
  if (!isTenantId(value)) throw errors.TENANT_INVALID();
  return value;
}

function headerTenant(request: SvcRequest, header: string): string | undefined {
  const raw = request.headers[header];
  if (raw === undefined) return undefined;
  if (Array.isArray(raw)) {
    const distinct = new Set(raw);
    if (distinct.size !== 1) throw errors.TENANT_INVALID();
    return checkedTenantId(raw[0]);
  }
  return checkedTenantId(raw);
}

export interface TenantSource {
  /** Lower-cased header name. */
  header: string;
  resolver: TenantResolver | undefined;
}

/**
 * The tenant id the request names, or undefined; TENANT_INVALID / TENANT_CONFLICT as described above. Read
 * from the header it answers at once (no promise per request); an application resolver may be async.
 */
export function namedTenant(
  request: SvcRequest,
  route: Route,
  source: TenantSource,
): string | undefined | Promise<string | undefined> {
  const fromPath = Object.hasOwn(request.params, TENANT_PARAM)
    ? checkedTenantId(request.params[TENANT_PARAM])
    : undefined;
  if (source.resolver === undefined) return agreed(fromPath, headerTenant(request, source.header));
  return Promise.resolve(source.resolver({ request, route })).then((id) =>
    agreed(fromPath, id === undefined ? undefined : checkedTenantId(id)),
  );
}

/** One tenant from the path and the header (or resolver); TENANT_CONFLICT when they name two. */
function agreed(fromPath: string | undefined, other: string | undefined): string | undefined {
  if (fromPath !== undefined && other !== undefined && other !== fromPath) throw errors.TENANT_CONFLICT();
  return fromPath ?? other;
}
