// The files module svc.config.yaml enables under `modules.files` (docs/spec.md): `true` for the defaults or
// `{ disk, validate, maxTotalBytes, requireScan, scan, routes }`. The bytes go on the disk it names (a local
// folder under the project by default), the records in the service's database when it has one. Temporary
// URLs are signed with a key derived from the service secret, so every process of the service accepts the
// URLs of the others; the routes act for signed-in callers, so the module needs the auth module.
import { resolve } from 'node:path';
import { FILES_ROUTE_SETTINGS } from '../../shared/files-upload.js';
import { parseSize, SIZE_FORMS } from '../../shared/size.js';
import { routeDefinitions } from '../../generated/modules/files/routes.js';
import { deriveKey, KEY_PURPOSES } from '../auth/tokens/secret.js';
import {
  fromSettings,
  invalidSetting,
  moduleSettings,
  rejectUnknownSettings,
} from '../config/module-settings.js';
import { OptionError } from '../config/option-errors.js';
import { localDisk } from './disks/local-disk.js';
import { memoryDisk } from './disks/memory-disk.js';
import type { Disk } from './disks/disk.js';
import type { FileRoutesOptions, FilesRouteId } from './http/route-options.js';
import { filesPlugin, type FilesPluginOptions } from './plugin.js';
import { parseClamdUrl } from './scan/clamd-url.js';
import { clamdScanner } from './scan/scanner.js';
import type { FileService, FileValidation } from './service/api.js';
import type { FileStore } from './store/store.js';

/** Where files go when `disk` is not set, relative to the project. */
export const DEFAULT_FILES_ROOT = '.svc/files';

export interface FilesModuleContext {
  /** Where a relative `disk.root` resolves. */
  projectDir: string;
  /** The service secret (the auth module's); without it the module cannot start. */
  secret: string | undefined;
  /** The shared metadata store (openStores().files); undefined keeps records in memory. */
  store?: FileStore;
  /** What the application adds in code: a policy, a presenter, routes it leaves out or answers itself. */
  routes?: Pick<FileRoutesOptions, 'authorize' | 'present' | 'omit' | 'replace'>;
  /** A custom quota check after the built-in one. */
  checkQuota?: FilesPluginOptions['checkQuota'];
}

const SETTINGS = ['disk', 'validate', 'maxTotalBytes', 'requireScan', 'scan', 'routes'];

/** The files plugin `modules.files` enables, or undefined when it is off. */
export function filesModule(
  setting: unknown,
  context: FilesModuleContext,
): { plugin: ReturnType<typeof filesPlugin>; files: FileService } | undefined {
  const settings = moduleSettings(setting, 'files');
  if (settings === undefined) return undefined;
  rejectUnknownSettings(settings, SETTINGS, 'files');
  if (context.secret === undefined) {
    throw invalidSetting('files', 'its routes act for the signed-in caller: enable modules.auth as well');
  }
  const scan = scanAddress(settings.scan);
  const requireScan = optionalBoolean(settings.requireScan, 'requireScan') ?? scan !== undefined;
  const routes = routeOptions(settings.routes);
  const options: FilesPluginOptions = {
    disk: diskOf(settings.disk, context.projectDir),
    urlSigningKey: deriveKey(context.secret, KEY_PURPOSES.fileUrl),
    requireScan,
    routes: {
      ...routes,
      ...context.routes,
      omit: [...(routes.omit ?? []), ...(context.routes?.omit ?? [])],
    },
    ...(scan === undefined ? {} : { scanner: fromSettings('files', () => clamdScanner({ url: scan })) }),
    ...(context.store === undefined ? {} : { store: context.store }),
    ...(context.checkQuota === undefined ? {} : { checkQuota: context.checkQuota }),
    ...(settings.validate === undefined ? {} : { validate: validation(settings.validate) }),
    ...(settings.maxTotalBytes === undefined
      ? {}
      : { maxTotalBytes: size(settings.maxTotalBytes, 'maxTotalBytes') }),
  };
  const plugin = fromSettings('files', () => filesPlugin(options));
  return { plugin, files: plugin.files };
}

function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function size(value: unknown, option: string): number {
  const bytes = parseSize(value);
  if (bytes === undefined || bytes < 1)
    throw invalidSetting(
      'files',
      `${option} must be ${SIZE_FORMS}, at least 1 byte; got ${JSON.stringify(value)}`,
    );
  return bytes;
}

function optionalBoolean(value: unknown, option: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw invalidSetting('files', `${option} must be true or false`);
}

function diskOf(value: unknown, projectDir: string): Disk {
  if (value === undefined) return localDisk({ root: resolve(projectDir, DEFAULT_FILES_ROOT) });
  if (!isMapping(value))
    throw invalidSetting('files', 'disk must be { driver: local, root } or { driver: memory }');
  if (value.driver === 'local') {
    rejectUnknownSettings(value, ['driver', 'root'], 'files.disk');
    const root = value.root ?? DEFAULT_FILES_ROOT;
    if (typeof root !== 'string' || root === '') throw invalidSetting('files', 'disk.root must be a folder');
    return localDisk({ root: resolve(projectDir, root) });
  }
  if (value.driver === 'memory') {
    rejectUnknownSettings(value, ['driver', 'maxBytes'], 'files.disk');
    return memoryDisk(
      value.maxBytes === undefined ? {} : { maxBytes: size(value.maxBytes, 'disk.maxBytes') },
    );
  }
  throw invalidSetting('files', `disk.driver must be local or memory; got ${JSON.stringify(value.driver)}`);
}

function validation(value: unknown): FileValidation {
  if (!isMapping(value)) throw invalidSetting('files', 'validate must be { maxSize, allowedTypes, sniff }');
  rejectUnknownSettings(value, ['maxSize', 'allowedTypes', 'sniff'], 'files.validate');
  const sniff = optionalBoolean(value.sniff, 'validate.sniff');
  return {
    ...(value.maxSize === undefined ? {} : { maxSize: size(value.maxSize, 'validate.maxSize') }),
    ...(value.allowedTypes === undefined ? {} : { allowedTypes: value.allowedTypes as string[] }),
    ...(sniff === undefined ? {} : { sniff }),
  };
}

/** The clamd address, or undefined for none (absent or empty: an unset `${CLAMD_URL:-}`). */
function scanAddress(value: unknown): string | undefined {
  if (value === undefined || value === '') return undefined;
  try {
    parseClamdUrl(value, 'modules.files', 'scan');
  } catch (error) {
    // The setting is named once, by invalidSetting.
    if (error instanceof OptionError)
      throw invalidSetting('files', error.message.replace(`${error.owner}: `, ''));
    throw error;
  }
  return value as string;
}

function routeOptions(value: unknown): FileRoutesOptions {
  if (value === undefined) return {};
  if (!isMapping(value)) throw invalidSetting('files', 'routes must be a mapping');
  const ids = routeDefinitions.map((definition) => definition.id);
  const omit: FilesRouteId[] = [];
  // The values of the settings (upload limits, booleans, the URL lifetime) are fileRoutes()'s to check: one
  // owner per rule, its OptionError becoming CONFIG_INVALID through fromSettings.
  const settings: Record<string, unknown> = {};
  for (const [key, setting] of Object.entries(value)) {
    if (FILES_ROUTE_SETTINGS.includes(key)) {
      settings[key] = setting;
      continue;
    }
    if (!ids.includes(key))
      throw invalidSetting(
        'files',
        `routes: no file route or setting "${key}" (${[...FILES_ROUTE_SETTINGS, ...ids].join(', ')})`,
      );
    if (setting !== false && setting !== true)
      throw invalidSetting('files', `routes.${key} must be false (to leave the route out) or true`);
    if (setting === false) omit.push(key as FilesRouteId);
  }
  return { ...(settings as Omit<FileRoutesOptions, 'omit'>), omit };
}
