// The tenancy enricher: reads which tenant the request names and, for a signed-in caller, their role in it.
// `context.tenant = { id, role }` only once membership is confirmed; a tenant the caller is not a member of
// is remembered as named (the membership guard refuses it where membership matters) and never put on the
// context, so no handler can act in it by mistake. It runs after the auth enricher, which sets the user.
import type { Enricher, RequestContext } from '../http/types.js';
import type { MembershipStore } from './memberships.js';
import { userIdOf, type TenancyPolicy } from './policy.js';
import { namedTenant, type TenantSource } from './tenant-id.js';

export function tenancyEnricher(
  memberships: MembershipStore,
  policy: TenancyPolicy,
  source: TenantSource,
): Enricher {
  /** Records the named tenant and, for a signed-in caller, looks their role up in it. */
  const confirm = (context: RequestContext, named: string | undefined): void | Promise<void> => {
    policy.remember(context, named);
    if (named === undefined) return;
    const userId = userIdOf(context.user);
    if (userId === undefined) return;
    return memberships.roleOf(named, userId).then((role) => {
      if (role !== undefined) context.tenant = { id: named, role };
    });
  };

  return {
    name: 'svc:tenancy',
    enrich({ request, route, context }) {
      // Only this enricher decides the tenant: whatever an earlier one put there is not a confirmed membership.
      context.tenant = undefined;
      const named = namedTenant(request, route, source);
      // Synchronous up to the store read: a request naming no tenant (or an anonymous one) costs no promise.
      if (named instanceof Promise) return named.then((id) => confirm(context, id));
      return confirm(context, named);
    },
  };
}
