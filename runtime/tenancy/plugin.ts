// `tenancyPlugin({...})`: teams (tenants) with members and roles. The enricher reads which tenant a request
// names and the caller's role in it; the guards enforce membership, `meta.teamRole` and `meta.can`; tool
// listings hide what the caller cannot use; the team routes manage tenants and members; the events go on the
// app's hook bus. Register it after authPlugin: membership is the signed-in user's.
import type { App, Plugin } from '../app/app.js';
import { Hooks } from '../app/hooks.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import { lowerHeaderName } from '../http/header-name.js';
import { forwardingLogger } from '../log/forwarding-logger.js';
import { tenancyEnricher } from './enricher.js';
import { TENANCY_EVENT_NAMES } from './events.js';
import {
  membershipGuard,
  permissionGuard,
  teamRoleGuard,
  tenancyMetaValidator,
  tenancyVisibility,
} from './guards.js';
import type { MembershipStore } from './memberships.js';
import { MemoryMembershipStore } from './memory-memberships.js';
import { TenancyPolicy, type PermissionCheck } from './policy.js';
import { RoleTable } from './roles.js';
import { tenancyRoutes, type TenancyRoutesOptions } from './routes.js';
import { Tenancy, type TenancyUsers } from './service.js';
import { DEFAULT_TENANT_HEADER, namedTenant, type TenantResolver } from './tenant-id.js';

export interface TenancyPluginOptions {
  /** Where tenants and memberships live. Default in this process's memory. */
  memberships?: MembershipStore;
  /** Role names, most powerful first. Default owner, admin, member. */
  roles?: readonly string[];
  /**
   * Permission → the roles granted it, for `meta.can`. `tenant:members` (managing members) defaults to every
   * role but the least powerful.
   */
  permissions?: Readonly<Record<string, readonly string[]>>;
  /** The request header naming the tenant. Default x-tenant-id. */
  header?: string;
  /**
   * Names the tenant instead of the header (a host's subdomain, say): a tenant id, or undefined for none. On
   * a route with a `tenantId` path parameter both must agree (else 400 TENANT_CONFLICT).
   */
  resolveTenant?: TenantResolver;
  /** Grants permissions no role of the caller grants (asked per request; keep it free of side effects). */
  authorize?: PermissionCheck;
  /** The accounts members are (auth.users). */
  users: TenancyUsers;
  /** The team routes: false mounts none; otherwise routes to omit or replace. Default all. */
  routes?: false | TenancyRoutesOptions;
}

const OPTION_NAMES = optionKeys<TenancyPluginOptions>({
  memberships: true,
  roles: true,
  permissions: true,
  header: true,
  resolveTenant: true,
  authorize: true,
  users: true,
  routes: true,
});

const OWNER = 'tenancyPlugin()';

/** Headers that carry credentials or framing: naming the tenant in one would mix two meanings. */
const RESERVED_HEADERS: readonly string[] = [
  'authorization',
  'cookie',
  'host',
  'x-api-key',
  'x-session-id',
  'content-type',
  'content-length',
];

export function tenancyPlugin(options: TenancyPluginOptions): Plugin & { readonly tenancy: Tenancy } {
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const roles = new RoleTable(
    {
      ...(options.roles === undefined ? {} : { roles: options.roles }),
      ...(options.permissions === undefined ? {} : { permissions: options.permissions }),
    },
    OWNER,
  );
  for (const name of ['resolveTenant', 'authorize'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw invalidOption(OWNER, name, 'a function');
  }
  const header = options.header ?? DEFAULT_TENANT_HEADER;
  if (typeof header !== 'string' || !/^[A-Za-z0-9-]{1,64}$/.test(header)) {
    throw invalidOption(OWNER, 'header', 'a header name of letters, digits and "-"');
  }
  if (RESERVED_HEADERS.includes(header.toLowerCase())) {
    throw invalidOption(OWNER, 'header', 'a header of its own', `"${header}" already means something else`);
  }
  const source = { header: lowerHeaderName(header), resolver: options.resolveTenant };
  const memberships = options.memberships ?? new MemoryMembershipStore();
  const policy = new TenancyPolicy(roles, options.authorize);
  if (options.users === null || typeof options.users !== 'object') {
    throw invalidOption(OWNER, 'users', 'the accounts members are (auth.users)');
  }
  // Made now, so handlers built before the app boots can hold it; its events reach the app's bus once set up.
  const hooks = new Hooks();
  const logger = forwardingLogger();
  const tenancy = new Tenancy({ memberships, roles, users: options.users, hooks, logger });

  return {
    name: 'svc:tenancy',
    tenancy,
    setup(app: App) {
      logger.attach(app.logger);
      for (const event of TENANCY_EVENT_NAMES) hooks.on(event, (payload) => app.hooks.emit(event, payload));
      app.container.provide(Tenancy, tenancy);
      app.metadata.add('http:enrichers', tenancyEnricher(memberships, policy, source));
      // Agent tool calls act in the tenant their endpoint request names.
      app.metadata.add('http:identity-headers', source.header);
      app.metadata.add('http:guards', membershipGuard(), teamRoleGuard(policy), permissionGuard(policy));
      app.metadata.add('http:meta-validators', tenancyMetaValidator(policy));
      app.metadata.add('http:route-visibility', tenancyVisibility(policy));
      app.metadata.add(
        'http:guarded-meta',
        { key: 'teamRole', plugin: 'svc:tenancy' },
        { key: 'can', plugin: 'svc:tenancy' },
      );
      // Idempotency keys are scoped by the tenant the request names, however it names it.
      app.metadata.add('http:request-tenant', ({ request, route }) => namedTenant(request, route, source));
      // For documents: every route that is not about the caller may answer the membership refusals.
      app.metadata.add('http:route-error-modules', { tenancy: {} });
      if (options.routes !== false)
        app.metadata.add('http:routes', ...tenancyRoutes(tenancy, options.routes ?? {}));
    },
  };
}
