// `tenancyRoutes()`: the handlers of the team routes spec/modules/tenancy.yaml declares, bound to the generated
// definitions. Each route can be omitted or replaced one by one. The caller is the auth enricher's
// `context.user`; on /tenants/:tenantId routes its role is the tenancy enricher's `context.tenant`, set after
// the membership check. The guards make both present; the handlers still refuse rather than act without them.
import { errors } from '../../generated/modules/errors.js';
import {
  routes as bindTenancyRoutes,
  type Handlers as TenancyHandlers,
  type RouteId as TenancyRouteId,
} from '../../generated/modules/tenancy/routes.js';
import { rejectUnknownOptions } from '../config/known-options.js';
import type { RequestContext, Route } from '../http/types.js';
import { tenantOf, userIdOf } from './policy.js';
import type { Tenancy, TenancyActor } from './service.js';

export type { TenancyHandlers, TenancyRouteId };

export interface TenancyRoutesOptions {
  /** Route ids left out (not mounted). */
  omit?: readonly TenancyRouteId[];
  /** Handlers used instead of svc's, by route id. */
  replace?: Partial<TenancyHandlers>;
}

export function tenancyRoutes(tenancy: Tenancy, options: TenancyRoutesOptions = {}): Route[] {
  rejectUnknownOptions(options, ['omit', 'replace'], 'tenancyRoutes()');
  const handlers: TenancyHandlers = { ...tenancyHandlers(tenancy), ...options.replace };
  const omitted = new Set<string>(options.omit ?? []);
  return bindTenancyRoutes(handlers).filter((route) => route.id === undefined || !omitted.has(route.id));
}

function tenancyHandlers(tenancy: Tenancy): TenancyHandlers {
  return {
    async createTenant({ body, context }) {
      return tenancy.createTenant(callerId(context), body.name);
    },

    async listTenants({ context }) {
      return tenancy.tenantsOf(callerId(context));
    },

    async listMembers({ params, context }) {
      actorIn(context, params.tenantId);
      return tenancy.members(params.tenantId);
    },

    async addMember({ params, body, context }) {
      return tenancy.addMember(actorIn(context, params.tenantId), params.tenantId, body.email, body.role);
    },

    async updateMember({ params, body, context }) {
      const actor = actorIn(context, params.tenantId);
      return tenancy.updateMember(actor, params.tenantId, params.userId, body.role);
    },

    async removeMember({ params, context }) {
      await tenancy.removeMember(actorIn(context, params.tenantId), params.tenantId, params.userId);
      return undefined;
    },

    async leaveTenant({ params, context }) {
      const actor = actorIn(context, params.tenantId);
      await tenancy.leave(actor.userId, params.tenantId);
      return undefined;
    },
  };
}

/** The signed-in caller's id; AUTH_REQUIRED when no account is on the request. */
function callerId(context: RequestContext): string {
  const id = userIdOf(context.user);
  if (id === undefined) throw errors.AUTH_REQUIRED();
  return id;
}

/**
 * The caller and its role in the tenant the path names. A membership check for another tenant (or none)
 * never speaks for this one: TENANT_ACCESS_DENIED.
 */
function actorIn(context: RequestContext, tenantId: string): TenancyActor {
  const userId = callerId(context);
  const tenant = tenantOf(context);
  if (tenant?.id !== tenantId) throw errors.TENANT_ACCESS_DENIED();
  return { userId, role: tenant.role };
}
