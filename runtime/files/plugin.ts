// `filesPlugin({ disk, ... })`: the file service of an app and its routes. The service is made when the app
// boots, once it is known whether the app registers tenancy: then every operation needs a tenant
// (FILE_TENANT_REQUIRED without one) instead of using the single-tenant key. Until then `plugin.files` stands
// in for it, so handlers can hold it from the start. The service is in the app's container (FILE_SERVICE;
// `filesOf(context)` in a handler), its events go on the app's hook bus, a `scanner` scans every upload, and
// the file routes are published unless `routes: false`. Register it after authPlugin (the routes are the signed-in caller's) and, with
// teams, after tenancyPlugin.
import { randomBytes } from 'node:crypto';
import type { App, Plugin } from '../app/app.js';
import { optionKeys, rejectUnknownOptions } from '../config/known-options.js';
import { invalidOption } from '../config/option-errors.js';
import type { RequestContext } from '../http/types.js';
import { deferredFileService } from './deferred-service.js';
import type { Disk } from './disks/disk.js';
import { fileRoutes, type FileRoutesOptions } from './http/routes.js';
import { FILE_EVENT_NAMES, type FileService, type FileServiceOptions } from './service/api.js';
import { attachScanner } from './scan/attach-scanner.js';
import type { FileScanner } from './scan/scanner.js';
import { resolveFileServiceOptions } from './service/options.js';
import { createFileService } from './service/service.js';
import { MemoryFileStore } from './store/memory-store.js';
import { FILE_SERVICE, registeredFileService } from './registered-service.js';

export { FILE_SERVICE };

export interface FilesPluginOptions extends Omit<FileServiceOptions, 'disk' | 'tenancy' | 'logger'> {
  /** A disk, or the name of one of `disks`. */
  disk: Disk | string;
  /** Disks by name, for `disk: '<name>'`. */
  disks?: Readonly<Record<string, Disk>>;
  /**
   * Whether operations need a tenant. Default: true exactly when the app registers tenancy (tenancyPlugin or
   * another plugin naming request tenants).
   */
  tenancy?: boolean;
  /** The file routes: false mounts none; otherwise their options (fileRoutes()). Default: the routes, no upload. */
  routes?: false | FileRoutesOptions;
  /** Scans every upload (clamdScanner()); pair it with `requireScan: true` so nothing is served unscanned. */
  scanner?: FileScanner;
}

const OPTION_NAMES = optionKeys<FilesPluginOptions>({
  disk: true,
  disks: true,
  validate: true,
  maxTotalBytes: true,
  checkQuota: true,
  requireScan: true,
  store: true,
  tenancy: true,
  urlSigningKey: true,
  urlBase: true,
  clock: true,
  routes: true,
  scanner: true,
});

const OWNER = 'filesPlugin()';

export function filesPlugin(options: FilesPluginOptions): Plugin & { readonly files: FileService } {
  if (options === null || typeof options !== 'object') throw invalidOption(OWNER, 'options', 'an object');
  rejectUnknownOptions(options, OPTION_NAMES, OWNER);
  const { disks, tenancy, routes, scanner, ...rest } = options;
  if (scanner !== undefined && (scanner === null || typeof scanner.scan !== 'function'))
    throw invalidOption(OWNER, 'scanner', 'a FileScanner such as clamdScanner({ url })');
  if (tenancy !== undefined && typeof tenancy !== 'boolean')
    throw invalidOption(OWNER, 'tenancy', 'true or false');
  const disk = diskOf(options.disk, disks);
  const serviceOptions: FileServiceOptions = {
    ...rest,
    disk,
    store: rest.store ?? new MemoryFileStore(),
    // Without a configured key, URLs work on this process until it stops (compose derives one from the secret).
    urlSigningKey: rest.urlSigningKey ?? randomBytes(32),
  };
  // Checked now, so a wrong option fails where the plugin is made rather than at boot.
  resolveFileServiceOptions(serviceOptions);
  const deferred = deferredFileService(disk, serviceOptions.requireScan === true, OWNER);
  const files = deferred.service;
  // Made now too: a wrong route option fails here, and the routes hold the stand-in.
  const published = routes === false ? [] : fileRoutes(files, routes ?? {});

  return {
    name: 'svc:files',
    files,
    setup(app: App) {
      app.container.provide(FILE_SERVICE, files);
      if (published.length > 0) app.metadata.add('http:routes', ...published);
    },
    boot(app: App) {
      // Every plugin is set up: a plugin naming request tenants (tenancy) has said so by now.
      const withTenancy = tenancy ?? app.metadata.list('http:request-tenant').length > 0;
      const made = createFileService({ ...serviceOptions, tenancy: withTenancy, logger: app.logger });
      for (const event of FILE_EVENT_NAMES)
        made.on(event, (payload) => app.hooks.emit(event, payload as never));
      deferred.resolve(made);
      if (scanner !== undefined) {
        const attached = attachScanner(made, scanner, { logger: app.logger });
        // Scans already running finish (each has its own timeout) while the stores are still open.
        app.hooks.on('app:closing', () => {
          attached.detach();
          return attached.idle();
        });
      }
    },
  };
}

function diskOf(disk: unknown, disks: FilesPluginOptions['disks']): Disk {
  if (disks !== undefined && (disks === null || typeof disks !== 'object'))
    throw invalidOption(OWNER, 'disks', 'an object of disks by name');
  if (typeof disk !== 'string') return disk as Disk;
  const named = disks !== undefined && Object.hasOwn(disks, disk) ? disks[disk] : undefined;
  if (named === undefined) {
    const known = Object.keys(disks ?? {});
    throw invalidOption(
      OWNER,
      'disk',
      known.length === 0 ? 'a Disk, or the name of one of `disks`' : `a Disk or one of ${known.join(', ')}`,
      `got "${disk}"`,
    );
  }
  return named;
}

/**
 * The app's file service acting in the request's tenant, for handlers: `await filesOf(context).upload(...)`.
 * Throws when no filesPlugin is registered.
 */
export function filesOf(context: RequestContext): FileService {
  return registeredFileService(context, 'filesOf()').forContext(context);
}
