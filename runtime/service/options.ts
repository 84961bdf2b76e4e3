// What an application passes to createService(): its handlers and, where it wants them, overrides of what
// svc.config.yaml composes. Everything else comes from the spec.
import type { App, Plugin } from '../app/app.js';
import type { Auth } from '../auth/auth.js';
import type { AuthRoutesOptions } from '../auth/http/routes.js';
import type { UserSource } from '../auth/stores/users.js';
import { optionKeys } from '../config/known-options.js';
import type { SvcConfig } from '../config/svc-config.js';
import type { HealthCheck } from '../edge/health/index.js';
import type { FileRoutesOptions } from '../files/http/route-options.js';
import type { FilesPluginOptions } from '../files/plugin.js';
import type { FileService } from '../files/service/api.js';
import type { RouteDefinition } from '../http/route.js';
import type { Logger } from '../log/logger.js';
import type { MailTransport } from '../mail/index.js';
import type { McpToolsDocument } from '../mcp/server/tool-set.js';
import type { Stores } from '../stores/open.js';
import type { PermissionCheck } from '../tenancy/policy.js';
import type { TenancyRoutesOptions } from '../tenancy/routes.js';
import type { Tenancy } from '../tenancy/service.js';
import type { TenantResolver } from '../tenancy/tenant-id.js';

/** What the handler and plugin factories receive: the pieces the service built from the spec. */
export interface ServiceContext {
  readonly app: App;
  readonly config: SvcConfig;
  /** The stores `stores:` selects; `stores.sql` is the SQL client for the app's own tables, when there is one. */
  readonly stores: Stores;
  /** The accounts module, when `modules.auth` is on. */
  readonly auth: Auth | undefined;
  /** Teams, members and roles, when `modules.tenancy` is on. */
  readonly tenancy: Tenancy | undefined;
  /** The file service, when `modules.files` is on (usable once the app booted: from handlers and hooks). */
  readonly files: FileService | undefined;
}

/** A value, or a function building it from the service's pieces. */
export type FromService<T> = T | ((service: ServiceContext) => T | Promise<T>);

/** Code-level overrides of the modules svc.config.yaml enables (settings stay in the spec). */
export interface ModuleOverrides {
  auth?: {
    /** Account routes left out or answered by the app's own handler, one by one. */
    routes?: AuthRoutesOptions;
    /** Where accounts live instead of `stores.users`. */
    users?: UserSource;
  };
  tenancy?: {
    /**
     * Names the tenant instead of the header (a host's subdomain, say). On a route with a `tenantId` path
     * parameter both must agree (else 400 TENANT_CONFLICT).
     */
    resolveTenant?: TenantResolver;
    /** Grants permissions no role of the caller grants (`meta.can`, requirePermission()). */
    authorize?: PermissionCheck;
    /** Team routes left out or answered by the app's own handler, one by one. */
    routes?: TenancyRoutesOptions;
  };
  files?: {
    /**
     * Who may reach a file, replacing owner-only (or `routes.shared`); what the routes answer about one; file
     * routes left out or answered by the app's own handler, one by one.
     */
    routes?: Pick<FileRoutesOptions, 'authorize' | 'present' | 'omit' | 'replace'>;
    /** A custom quota check after `maxTotalBytes`; throw to refuse the upload. */
    checkQuota?: FilesPluginOptions['checkQuota'];
  };
  mail?: {
    /** Sends the mails instead of the transport `modules.mail` selects. */
    transport?: MailTransport;
  };
  edge?: {
    /** Readiness checks for /readyz besides the stores' own. */
    healthChecks?: Readonly<Record<string, HealthCheck>>;
  };
}

export interface ServiceOptions<H extends object> {
  /**
   * One handler per route of the spec (the generated `Handlers` type), or a function building them from the
   * service's stores. Outside production a missing one answers 501 NOT_IMPLEMENTED; in production the
   * service refuses to boot (HANDLERS_MISSING).
   */
  handlers: FromService<H>;
  /** The resolved configuration. Default: svc.config.yaml's, resolved against `env`. */
  config?: SvcConfig;
  /** Read for `${VAR}` references, NODE_ENV and the modules' secrets. Default process.env. */
  env?: Record<string, string | undefined>;
  /** Where relative paths of the spec resolve (`pglite:.svc/data`, `migrations/`, `.svc/`). Default cwd. */
  projectDir?: string;
  /** Where svckit's own lines go. Default JSON lines on stderr. */
  logger?: Logger;
  /** Apply pending migrations (svckit's and the app's) at start. Default true. */
  migrate?: boolean;
  /** Overrides of the modules the spec enables. */
  modules?: ModuleOverrides;
  /** The app's own plugins, registered after the modules and before the routes are served. */
  plugins?: FromService<readonly Plugin[]>;
}

export const SERVICE_OPTIONS = optionKeys<ServiceOptions<object>>({
  handlers: true,
  config: true,
  env: true,
  projectDir: true,
  logger: true,
  migrate: true,
  modules: true,
  plugins: true,
});
export const MODULE_OVERRIDES = optionKeys<ModuleOverrides>({
  auth: true,
  tenancy: true,
  files: true,
  mail: true,
  edge: true,
});

export const TENANCY_OVERRIDES = optionKeys<NonNullable<ModuleOverrides['tenancy']>>({
  resolveTenant: true,
  authorize: true,
  routes: true,
});

export const FILES_OVERRIDES = optionKeys<NonNullable<ModuleOverrides['files']>>({
  routes: true,
  checkQuota: true,
});

/** What `svc build` hands over in generated/service.ts. */
export interface ServiceArtifacts {
  /** generated/config.ts loadConfig(). */
  loadConfig(env?: Record<string, string | undefined>): SvcConfig;
  /** generated/routes.ts routeDefinitions. */
  routeDefinitions: readonly RouteDefinition[];
  /** generated/openapi.json, when `modules.edge` serves it. */
  openapi?: Readonly<Record<string, unknown>>;
  /** generated/mcp-tools.json, when `modules.mcp` is on. */
  mcpTools?: McpToolsDocument;
}
