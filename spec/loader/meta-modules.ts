// Route meta keys that only a built-in module enforces. Without the module nothing reads the key: `auth: true`
// would leave the route open, `rateLimit` unlimited, `mcp: true` no tool, so the build refuses it at the key.
// `false` (opt-off) asks for nothing and is allowed without the module. This table is the one place that
// says which module each key needs; a module added later adds (or updates) its entry.
import type { ConfigValue } from '../../shared/ir.js';
import { asMap, entry, type LoadContext } from './context.js';
import { moduleIsOn, moduleOptionIsOn } from './module-settings.js';
import { publishedSchemas, SVC_SCHEMA } from './package-files.js';
import type { SchemaObject } from './structure.js';
import { getOwn, type MapNode } from './yaml-tree.js';

export interface MetaKeyModule {
  /** The key under `modules:` that enables it. */
  module: string;
  /** A plugin of that module that must be on as well (`modules.edge.security`); `edge: true` turns it on. */
  plugin?: string;
  /**
   * An option of that module that must be on as well (`modules.auth.apiKeys`): `true` or a mapping of its
   * settings, written out; unlike a plugin, `auth: true` does not turn it on.
   */
  option?: string;
}

/**
 * Built-in meta keys that need a module. Keys not listed need none: `etag`, `summary`, `description`,
 * `tags`, `deprecated` are core; `subscribed` and `feature` belong to an application plugin, and a route
 * using one refuses to boot unless a plugin claims it (HTTP_UNGUARDED_ROUTE_META).
 */
export const META_KEY_MODULES: Readonly<Record<string, MetaKeyModule>> = {
  auth: { module: 'auth' },
  mfa: { module: 'auth' },
  account: { module: 'auth' },
  rateLimit: { module: 'edge', plugin: 'security' },
  documentHeaders: { module: 'edge', plugin: 'security' },
  idempotency: { module: 'idempotency' },
  mcp: { module: 'mcp' },
  scopes: { module: 'auth', option: 'apiKeys' },
  apiKey: { module: 'auth', option: 'apiKeys' },
  can: { module: 'tenancy' },
  teamRole: { module: 'tenancy' },
  central: { module: 'tenancy' },
};

/** The modules this svckit has: the keys svc.schema.json allows under `modules:`. */
export function availableModules(): string[] {
  const root = publishedSchemas().get(SVC_SCHEMA)!;
  const modules = (root.properties as Record<string, SchemaObject>).modules!;
  return Object.keys(modules.properties as Record<string, unknown>);
}

/** Reports every route meta key (other than an opt-off `false`) whose module `modules` leaves off. */
export function checkMetaModules(
  ctx: LoadContext,
  routesNode: MapNode | undefined,
  modules: ConfigValue | undefined,
): void {
  const available = new Set(availableModules());
  for (const route of routesNode?.entries ?? []) {
    const meta = asMap(entry(asMap(route.value), 'meta'));
    for (const item of meta?.entries ?? []) {
      const need = getOwn(META_KEY_MODULES, item.key);
      if (need === undefined) continue;
      if (item.value.kind === 'scalar' && item.value.value === false) continue;
      const path = ['routes', route.key, 'meta', item.key];
      const where = path.join('.');
      if (!available.has(need.module)) {
        ctx.problems.add(
          item.keyLoc,
          path,
          `${where} needs the ${need.module} module, which this version of svckit does not have yet: nothing would enforce it`,
          `remove ${item.key} (or write ${item.key}: false); a rule of your own needs a custom key of another name under metaKeys:`,
        );
        continue;
      }
      if (isEnabled(modules, need)) continue;
      const part = need.plugin ?? need.option;
      const what =
        need.plugin !== undefined
          ? `the ${need.plugin} plugin of the ${need.module} module`
          : need.option !== undefined
            ? `modules.${need.module}.${need.option}`
            : `the ${need.module} module`;
      // A plugin is added to a module that is on; an option needs the module written as a mapping.
      const under =
        need.plugin !== undefined ? moduleIsOn(modules, need.module) : isMapping(modules, need.module);
      const enable =
        part === undefined
          ? `modules: { ${need.module}: true }`
          : under
            ? `${part}: true under modules.${need.module}`
            : `modules: { ${need.module}: { ${part}: true } }`;
      ctx.problems.add(
        item.keyLoc,
        path,
        `${where} needs ${what}, which this spec does not enable: nothing would enforce it`,
        `enable it with ${enable}, or remove ${item.key} (${item.key}: false opts the route out)`,
      );
    }
  }
}

/** The module (and the plugin or option the key needs) is on. */
function isEnabled(modules: ConfigValue | undefined, need: MetaKeyModule): boolean {
  if (!moduleIsOn(modules, need.module, need.plugin)) return false;
  return need.option === undefined || moduleOptionIsOn(modules, need.module, need.option);
}

/** `modules.<module>` is a mapping of options (not `true` or a `${VAR}`). */
function isMapping(modules: ConfigValue | undefined, module: string): boolean {
  if (typeof modules !== 'object' || modules === null || Array.isArray(modules)) return false;
  const value = (modules as { [key: string]: ConfigValue | undefined })[module];
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !('$template' in value);
}
