// `modules:` normalised into the IR's module model (ModuleSettingsIR): which built-in modules are on and the
// settings that decide what the build writes. The structure was checked against the published schema
// before; here only the meaning is read. A `${VAR}` the build cannot resolve counts as the default, except
// where it may switch something on (a module, an edge plugin, a global rate limit), which then counts as on:
// documenting a code the service may answer is safe, leaving one out makes the typed client call it
// unexpected, and a route meta key that needs the module is not refused for a module the start may enable.
import { DEFAULT_IDEMPOTENCY_HEADER } from '../../shared/idempotency-headers.js';
import type {
  ApiKeysModuleIR,
  ConfigValue,
  EdgeModuleIR,
  HttpMethod,
  ModuleSettingsIR,
  TenancyModuleIR,
} from '../../shared/ir.js';
import {
  DEFAULT_API_KEY_HEADER,
  DEFAULT_API_KEY_SCOPES,
  DEFAULT_MCP_PATH,
  DEFAULT_SESSION_COOKIE,
  DEFAULT_TENANT_HEADER,
} from '../../shared/module-defaults.js';
import { declaredPermissions, DEFAULT_ROLES } from '../../shared/tenancy-roles.js';

/** Methods whose routes honour idempotency keys unless `modules.idempotency.methods` says otherwise. */
const DEFAULT_IDEMPOTENCY_METHODS: HttpMethod[] = ['POST'];

type ConfigMap = { [key: string]: ConfigValue | undefined };

function isTemplate(value: ConfigValue | undefined): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && '$template' in value;
}

function mapOf(value: ConfigValue | undefined): ConfigMap | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value) || isTemplate(value))
    return undefined;
  return value as ConfigMap;
}

/** `true`, a mapping or a `${VAR}` turns a module (or an edge plugin) on; anything else leaves it off. */
function isOn(value: ConfigValue | undefined): boolean {
  return value === true || mapOf(value) !== undefined || isTemplate(value);
}

/** Whether `modules.<module>` is on, and for `plugin` that plugin of it too (`modules.edge.security`). */
export function moduleIsOn(modules: ConfigValue | undefined, module: string, plugin?: string): boolean {
  const value = mapOf(modules)?.[module];
  if (!isOn(value)) return false;
  // `edge: true` (or a `${VAR}` for the whole module) turns every plugin on; a mapping only those it names.
  const options = mapOf(value);
  return plugin === undefined || options === undefined || isOn(options[plugin]);
}

function text(value: ConfigValue | undefined, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

/**
 * Whether a module option that adds routes (`modules.auth.apiKeys`) is on: `true` or a mapping of its settings.
 * Unlike a module, a `${VAR}` does not count: it decides which routes the build documents, so the build refuses
 * it (modules.ts), and `auth: true` turns none of these options on.
 */
export function optionIsOn(value: ConfigValue | undefined): boolean {
  return value === true || mapOf(value) !== undefined;
}

/** `modules.<module>.<option>` is on (optionIsOn), the module itself being a mapping. */
export function moduleOptionIsOn(modules: ConfigValue | undefined, module: string, option: string): boolean {
  return optionIsOn(mapOf(mapOf(modules)?.[module])?.[option]);
}

/** `apiKeys: true` offers keys of every scope (`*`) in the x-api-key header; a mapping may say otherwise. */
function apiKeysSettings(value: ConfigValue | undefined): ApiKeysModuleIR {
  const options = mapOf(value);
  const scopes = strings(options?.scopes);
  return {
    header: text(options?.header, DEFAULT_API_KEY_HEADER),
    scopes: scopes !== undefined && scopes.length > 0 ? scopes : [...DEFAULT_API_KEY_SCOPES],
  };
}

/** The module model of `modules:` as the loader keeps it (config.modules, `${VAR}`s unresolved). */
export function moduleSettingsOf(modules: ConfigValue | undefined): ModuleSettingsIR {
  const section = mapOf(modules) ?? {};
  const settings: ModuleSettingsIR = {};
  if (isOn(section.auth)) {
    const cookie = mapOf(mapOf(section.auth)?.sessionCookie);
    settings.auth = {
      sessionCookie: text(cookie?.name, DEFAULT_SESSION_COOKIE),
      requireMfa: mapOf(section.auth)?.requireMfa === true,
    };
    const apiKeys = mapOf(section.auth)?.apiKeys;
    if (optionIsOn(apiKeys)) settings.auth.apiKeys = apiKeysSettings(apiKeys);
  }
  if (isOn(section.edge)) settings.edge = edgeSettings(section.edge);
  if (isOn(section.idempotency)) {
    const options = mapOf(section.idempotency);
    const methods = options?.methods;
    settings.idempotency = {
      header: text(options?.header, DEFAULT_IDEMPOTENCY_HEADER),
      methods: Array.isArray(methods)
        ? methods.filter((method): method is HttpMethod => typeof method === 'string')
        : DEFAULT_IDEMPOTENCY_METHODS,
    };
  }
  if (isOn(section.mcp)) settings.mcp = { path: text(mapOf(section.mcp)?.path, DEFAULT_MCP_PATH) };
  if (isOn(section.tenancy)) settings.tenancy = tenancySettings(section.tenancy);
  return settings;
}

/**
 * `tenancy: true` takes the default roles; `permissions` adds to the `tenant:members` default (or replaces it).
 * A `${VAR}` in roles or permissions is refused by the build (spec/loader/tenancy-meta.ts), never read here.
 */
function tenancySettings(value: ConfigValue | undefined): TenancyModuleIR {
  const options = mapOf(value);
  const roles = strings(options?.roles);
  const resolvedRoles = roles !== undefined && roles.length > 0 ? roles : [...DEFAULT_ROLES];
  const permissions = Object.fromEntries(
    Object.entries(mapOf(options?.permissions) ?? {}).map(([name, granted]) => [
      name,
      strings(granted) ?? [],
    ]),
  );
  return {
    header: text(options?.header, DEFAULT_TENANT_HEADER),
    roles: resolvedRoles,
    permissions: declaredPermissions(resolvedRoles, permissions),
  };
}

/** The strings of a list (a `${VAR}` item is left out), or undefined when `value` is not a list. */
function strings(value: ConfigValue | undefined): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  return value.filter((item): item is string => typeof item === 'string');
}

/** `edge: true` turns on all five plugins with their defaults (no global rate limit); a mapping names them. */
function edgeSettings(value: ConfigValue | undefined): EdgeModuleIR {
  const edge = mapOf(value);
  const plugin = (name: string) => edge === undefined || isOn(edge[name]);
  const security = mapOf(edge?.security);
  // A global bucket needs `limit` and `windowMs`; a `${VAR}` for the whole setting may give them.
  const rateLimit = security?.rateLimit;
  const globalRateLimit = isTemplate(rateLimit ?? null) || mapOf(rateLimit) !== undefined;
  const openapi = edge === undefined ? {} : mapOf(edge.openapi);
  const result: EdgeModuleIR = {
    security: plugin('security'),
    globalRateLimit,
    health: plugin('health'),
    metrics: plugin('metrics'),
    tracing: plugin('tracing'),
  };
  if (plugin('openapi')) {
    result.openapi = {};
    if (openapi?.title !== undefined) result.openapi.title = openapi.title;
    if (openapi?.tags !== undefined) result.openapi.tags = openapi.tags;
  }
  return result;
}
