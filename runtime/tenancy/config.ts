// The tenancy module svc.config.yaml enables under `modules.tenancy` (docs/spec.md): `true` for the defaults
// or `{ roles, permissions, header, routes }`. Members are accounts, so it needs the auth module's users;
// memberships live in the service's database when it has one, else in this process's memory.
import { routeDefinitions } from '../../generated/modules/tenancy/routes.js';
import type { Plugin } from '../app/app.js';
import {
  fromSettings,
  invalidSetting,
  moduleSettings,
  rejectUnknownSettings,
} from '../config/module-settings.js';
import type { MembershipStore } from './memberships.js';
import { tenancyPlugin, type TenancyPluginOptions } from './plugin.js';
import type { PermissionCheck } from './policy.js';
import type { TenancyRoutesOptions } from './routes.js';
import type { Tenancy, TenancyUsers } from './service.js';
import type { TenantResolver } from './tenant-id.js';

export interface TenancyModuleContext {
  /** The accounts members are (auth.users); without them the module cannot start. */
  users: TenancyUsers | undefined;
  /** The shared store (openStores().memberships); undefined keeps memberships in memory. */
  memberships?: MembershipStore;
  /** Names the tenant instead of the header (host → tenant). */
  resolveTenant?: TenantResolver;
  /** Grants permissions no role grants. */
  authorize?: PermissionCheck;
  /** Team routes the app leaves out or answers itself, on top of those `modules.tenancy.routes` leaves out. */
  routes?: TenancyRoutesOptions;
}

const SETTINGS = ['roles', 'permissions', 'header', 'routes'];

/** The tenancy plugin `modules.tenancy` enables, or undefined when it is off. */
export function tenancyModule(
  setting: unknown,
  context: TenancyModuleContext,
): { plugin: Plugin; tenancy: Tenancy } | undefined {
  const settings = moduleSettings(setting, 'tenancy');
  if (settings === undefined) return undefined;
  rejectUnknownSettings(settings, SETTINGS, 'tenancy');
  if (context.users === undefined) {
    throw invalidSetting('tenancy', 'members are accounts: enable modules.auth as well');
  }
  const omit = [...omittedRoutes(settings.routes), ...(context.routes?.omit ?? [])];
  const options: TenancyPluginOptions = {
    users: context.users,
    routes: { ...context.routes, omit },
    ...(context.memberships === undefined ? {} : { memberships: context.memberships }),
    ...(context.resolveTenant === undefined ? {} : { resolveTenant: context.resolveTenant }),
    ...(context.authorize === undefined ? {} : { authorize: context.authorize }),
    ...(settings.roles === undefined ? {} : { roles: settings.roles as string[] }),
    ...(settings.permissions === undefined
      ? {}
      : { permissions: settings.permissions as Record<string, string[]> }),
    ...(settings.header === undefined ? {} : { header: settings.header as string }),
  };
  const plugin = fromSettings('tenancy', () => tenancyPlugin(options));
  return { plugin, tenancy: plugin.tenancy };
}

function omittedRoutes(setting: unknown): NonNullable<TenancyRoutesOptions['omit']>[number][] {
  if (setting === undefined) return [];
  if (typeof setting !== 'object' || setting === null || Array.isArray(setting)) {
    throw invalidSetting('tenancy', 'routes must map route ids to false');
  }
  const known = new Set(routeDefinitions.map((definition) => definition.id));
  return Object.entries(setting).flatMap(([id, value]) => {
    if (!known.has(id))
      throw invalidSetting('tenancy', `routes: no team route "${id}" (${[...known].join(', ')})`);
    if (value !== false && value !== true) {
      throw invalidSetting('tenancy', `routes.${id} must be false (to leave the route out) or true`);
    }
    return value === false ? [id as NonNullable<TenancyRoutesOptions['omit']>[number]] : [];
  });
}
