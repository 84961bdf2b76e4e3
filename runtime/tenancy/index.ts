// The tenancy module: teams (tenants), their members and the members' roles.
export type {
  Membership,
  MembershipActor,
  MembershipActorRefusal,
  MembershipAdditionRules,
  MembershipAddition,
  MembershipChange,
  MembershipChangeRefusal,
  MembershipChangeRules,
  MembershipRemoval,
  MembershipStore,
  Tenant,
  TenantOfMember,
} from './memberships.js';
export { MemoryMembershipStore, type MemoryMembershipStoreOptions } from './memory-memberships.js';
export { tenancyPlugin, type TenancyPluginOptions } from './plugin.js';
export { tenancyModule, type TenancyModuleContext } from './config.js';
export { Tenancy, type TenancyActor, type TenancyOptions, type TenancyUsers } from './service.js';
export { tenancyRoutes, type TenancyRoutesOptions, type TenancyRouteId } from './routes.js';
export { TENANCY_EVENT_NAMES, type TenancyEventName, type TenancyEventPayloads } from './events.js';
export { RoleTable, DEFAULT_ROLES, MEMBERS_PERMISSION, type RoleTableOptions } from './roles.js';
export {
  DEFAULT_TENANT_HEADER,
  TENANT_PARAM,
  isTenantId,
  type TenantResolver,
  type TenantResolverInput,
} from './tenant-id.js';
export { tenantOf, type TenantContext, type PermissionCheck, type PermissionCheckInput } from './policy.js';
export { requireTenantId, requirePermission } from './require.js';
