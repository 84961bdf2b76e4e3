// The options of createFileService, checked once when the service is made: an unknown key or a bad value is a
// programming error (OPTION_UNKNOWN / OPTION_INVALID naming the option), never something a request finds out.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { isPositiveWholeNumber } from '../../config/whole-number.js';
import { isAllowedTypePattern } from '../../http/upload/media-type-match.js';
import { defaultLogger } from '../../log/json-logger.js';
import { isLogger, type Logger } from '../../log/logger.js';
import type { Disk } from '../disks/disk.js';
import type { SniffOption } from '../sniff/resolve.js';
import { MemoryFileStore } from '../store/memory-store.js';
import type { FileStore } from '../store/store.js';
import { DEFAULT_MAX_FILE_SIZE, type FileServiceOptions, type FileValidation } from './api.js';

export const FILE_SERVICE_OWNER = 'createFileService()';

/** The shortest signing key for temporary URLs: 256 bits, the size of the HMAC-SHA256 output. */
const MIN_URL_SIGNING_KEY_BYTES = 32;

const OPTION_KEYS = optionKeys<FileServiceOptions>({
  disk: true,
  validate: true,
  maxTotalBytes: true,
  checkQuota: true,
  requireScan: true,
  store: true,
  tenancy: true,
  urlSigningKey: true,
  urlBase: true,
  clock: true,
  logger: true,
});
const VALIDATE_KEYS = optionKeys<FileValidation>({ maxSize: true, allowedTypes: true, sniff: true });
const DISK_METHODS = ['put', 'get', 'delete', 'exists'] as const;
const STORE_METHODS = [
  'reserve',
  'commit',
  'release',
  'get',
  'list',
  'update',
  'remove',
  'usedBytes',
] as const;

/** The options with every default applied. */
export interface ResolvedFileServiceOptions {
  disk: Disk;
  maxSize: number;
  /** Undefined allows any type (also when the list holds `*\/*`). */
  allowedTypes: readonly string[] | undefined;
  sniff: SniffOption;
  maxTotalBytes: number | undefined;
  checkQuota: ((tenantId: string, size: number) => void | Promise<void>) | undefined;
  requireScan: boolean;
  store: FileStore;
  tenancy: boolean;
  urlSigningKey: Uint8Array | undefined;
  /** Without a trailing slash. */
  urlBase: string;
  clock: () => number;
  logger: Logger;
}

function hasMethods(value: unknown, methods: readonly string[]): boolean {
  if (value === null || typeof value !== 'object') return false;
  const candidate = value as Record<string, unknown>;
  return methods.every((method) => typeof candidate[method] === 'function');
}

function isDisk(value: unknown): value is Disk {
  if (!hasMethods(value, DISK_METHODS)) return false;
  const disk = value as Partial<Disk>;
  return typeof disk.driver === 'string' && typeof disk.canStream === 'boolean';
}

function optionalBoolean(value: unknown, option: string): boolean {
  if (value === undefined) return false;
  if (typeof value !== 'boolean') throw invalidOption(FILE_SERVICE_OWNER, option, 'true or false');
  return value;
}

function resolveValidation(
  validate: unknown,
): Pick<ResolvedFileServiceOptions, 'maxSize' | 'allowedTypes' | 'sniff'> {
  if (validate === undefined)
    return { maxSize: DEFAULT_MAX_FILE_SIZE, allowedTypes: undefined, sniff: false };
  if (validate === null || typeof validate !== 'object' || Array.isArray(validate)) {
    throw invalidOption(FILE_SERVICE_OWNER, 'validate', 'an object');
  }
  rejectUnknownOptions(validate, VALIDATE_KEYS, `${FILE_SERVICE_OWNER}: validate`);
  const { maxSize = DEFAULT_MAX_FILE_SIZE, allowedTypes, sniff = false } = validate as FileValidation;
  if (maxSize !== Infinity && !(Number.isSafeInteger(maxSize) && maxSize > 0)) {
    throw invalidOption(
      FILE_SERVICE_OWNER,
      'validate.maxSize',
      'a positive whole number of bytes or Infinity',
    );
  }
  const allowed = checkAllowedTypes(allowedTypes, FILE_SERVICE_OWNER, 'validate.allowedTypes');
  if (typeof sniff !== 'boolean' && typeof sniff !== 'function') {
    throw invalidOption(
      FILE_SERVICE_OWNER,
      'validate.sniff',
      'true, false or a function (bytes) => type | null',
    );
  }
  return { maxSize, allowedTypes: allowed, sniff };
}

/**
 * An `allowedTypes` list (the service's, or one upload's): exact types or wildcards, else OPTION_INVALID.
 * Undefined allows any type, also for a list holding `*\/*` (the type rules only know exact types and `type/*`).
 */
export function checkAllowedTypes(
  allowedTypes: unknown,
  owner: string,
  option: string,
): readonly string[] | undefined {
  if (allowedTypes === undefined) return undefined;
  if (
    !Array.isArray(allowedTypes) ||
    !allowedTypes.every((t: unknown) => typeof t === 'string' && isAllowedTypePattern(t))
  ) {
    throw invalidOption(owner, option, 'a list of media types (`image/png`) or wildcards (`image/*`)');
  }
  const list = allowedTypes as readonly string[];
  return list.includes('*/*') ? undefined : list;
}

function resolveUrlBase(urlBase: unknown): string {
  if (urlBase === undefined) return '';
  if (typeof urlBase !== 'string' || /[?#\s]/.test(urlBase)) {
    throw invalidOption(
      FILE_SERVICE_OWNER,
      'urlBase',
      'an origin and/or path without query, fragment or spaces',
    );
  }
  return urlBase.replace(/\/+$/, '');
}

export function resolveFileServiceOptions(options: FileServiceOptions): ResolvedFileServiceOptions {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw invalidOptions(FILE_SERVICE_OWNER);
  }
  rejectUnknownOptions(options, OPTION_KEYS, FILE_SERVICE_OWNER);
  const { disk, maxTotalBytes, checkQuota, store, urlSigningKey, clock, logger } = options;
  if (!isDisk(disk)) {
    throw invalidOption(FILE_SERVICE_OWNER, 'disk', 'a Disk (driver, canStream, put, get, delete, exists)');
  }
  if (maxTotalBytes !== undefined && !isPositiveWholeNumber(maxTotalBytes)) {
    throw invalidOption(FILE_SERVICE_OWNER, 'maxTotalBytes', 'a positive whole number of bytes');
  }
  if (checkQuota !== undefined && typeof checkQuota !== 'function') {
    throw invalidOption(FILE_SERVICE_OWNER, 'checkQuota', 'a function (tenantId, size)');
  }
  if (store !== undefined && !hasMethods(store, STORE_METHODS)) {
    throw invalidOption(FILE_SERVICE_OWNER, 'store', 'a FileStore');
  }
  if (
    urlSigningKey !== undefined &&
    !(urlSigningKey instanceof Uint8Array && urlSigningKey.byteLength >= MIN_URL_SIGNING_KEY_BYTES)
  ) {
    throw invalidOption(FILE_SERVICE_OWNER, 'urlSigningKey', `at least ${MIN_URL_SIGNING_KEY_BYTES} bytes`);
  }
  if (clock !== undefined && typeof clock !== 'function') {
    throw invalidOption(FILE_SERVICE_OWNER, 'clock', 'a function answering Unix milliseconds');
  }
  if (logger !== undefined && !isLogger(logger)) {
    throw invalidOption(FILE_SERVICE_OWNER, 'logger', 'a Logger (debug, info, warn, error)');
  }
  return {
    disk,
    ...resolveValidation(options.validate),
    maxTotalBytes,
    checkQuota,
    requireScan: optionalBoolean(options.requireScan, 'requireScan'),
    store: store ?? new MemoryFileStore(),
    tenancy: optionalBoolean(options.tenancy, 'tenancy'),
    // A copy: a caller reusing its buffer cannot change the key afterwards.
    urlSigningKey: urlSigningKey === undefined ? undefined : Uint8Array.from(urlSigningKey),
    urlBase: resolveUrlBase(options.urlBase),
    clock: clock ?? Date.now,
    logger: logger ?? defaultLogger,
  };
}
