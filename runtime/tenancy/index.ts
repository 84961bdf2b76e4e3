// The tenancy module: teams (tenants), their members and the members' roles.
export type {
  Membership,
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
export { RoleTable, DEFAULT_ROLES, MEMBERS_PERMISSION, type RoleTableOptions } from './roles.js';
export {
  DEFAULT_TENANT_HEADER,
  TENANT_PARAM,
  isTenantId,
  type TenantResolver,
  type TenantResolverInput,
} from './tenant-id.js';
export type { TenantContext, PermissionCheck, PermissionCheckInput } from './policy.js';
export { requireTenantId, requirePermission } from './require.js';
