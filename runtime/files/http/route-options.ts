// The options of fileRoutes(), checked when the routes are made so that a wrong one fails at boot naming
// it: unknown keys, an upload limit that is not a size, a URL lifetime that is not a duration.
import {
  routeDefinitions,
  type Handlers as FilesHandlers,
  type RouteId as FilesRouteId,
} from '../../../generated/modules/files/routes.js';
import { DURATION_FORMS, parseDuration } from '../../../shared/duration.js';
import {
  DEFAULT_FILES_PER_UPLOAD,
  DEFAULT_MAX_URL_TTL_MS,
  MAX_URL_TTL_MS,
  filesUploadLimits,
  type FilesUploadLimits,
} from '../../../shared/files-upload.js';
import { parseSize, SIZE_FORMS } from '../../../shared/size.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { isAllowedTypePattern } from '../../http/upload/index.js';
import type { FileRecord } from '../record.js';
import type { FileAuthorize, FileCaller } from './policy.js';

export type { FilesHandlers, FilesRouteId };

/** POST /files, opt-in. */
export interface FileUploadRouteOptions {
  /** Per file, in bytes or a size (`25MiB`); a file of exactly this size is accepted. */
  maxBytes: number | string;
  /** Files per request; default 1. */
  maxFiles?: number;
  /**
   * Types the route accepts (`image/png`, `image/*`), on top of the service's `validate.allowedTypes`: the file
   * service judges the stored type (the detected one when sniffing); outside it is 415 FILE_TYPE_NOT_ALLOWED.
   */
  allowedTypes?: readonly string[];
}

/** Shapes what the routes answer about a file, after authorisation. Default: the public projection. */
export type FilePresenter = (file: FileRecord, user: FileCaller) => object | Promise<object>;

export interface FileRoutesOptions {
  /** POST /files: false or absent leaves it out; otherwise its limits. */
  upload?: false | FileUploadRouteOptions;
  /** GET /files/:id/content; default true. */
  download?: boolean;
  /** Every member of the tenant reaches every file of it; default false (only the uploader). */
  shared?: boolean;
  /** Replaces the owner-only / shared policy: true lets the caller act, anything else answers 404. */
  authorize?: FileAuthorize;
  present?: FilePresenter;
  /** Longest temporary URL lifetime: milliseconds or a duration (`1h`, the default), at least 1s. */
  maxUrlTtl?: number | string;
  /** Route ids left out (not mounted). */
  omit?: readonly FilesRouteId[];
  /** Handlers used instead of svc's, by route id. */
  replace?: Partial<FilesHandlers>;
}

const FILE_ROUTES_OPTIONS = optionKeys<FileRoutesOptions>({
  upload: true,
  download: true,
  shared: true,
  authorize: true,
  present: true,
  maxUrlTtl: true,
  omit: true,
  replace: true,
});

const UPLOAD_OPTIONS = optionKeys<FileUploadRouteOptions>({
  maxBytes: true,
  maxFiles: true,
  allowedTypes: true,
});

const OWNER = 'fileRoutes()';
const ROUTE_IDS: readonly string[] = routeDefinitions.map((definition) => definition.id);

export interface CheckedFileRoutesOptions {
  upload: FilesUploadLimits | undefined;
  download: boolean;
  shared: boolean;
  authorize: FileAuthorize | undefined;
  present: FilePresenter | undefined;
  maxUrlSeconds: number;
  omit: ReadonlySet<string>;
  replace: Partial<FilesHandlers>;
}

export function checkFileRoutesOptions(options: FileRoutesOptions): CheckedFileRoutesOptions {
  if (options === null || typeof options !== 'object') throw invalidOption(OWNER, 'options', 'an object');
  rejectUnknownOptions(options, FILE_ROUTES_OPTIONS, OWNER);
  for (const name of ['download', 'shared'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'boolean')
      throw invalidOption(OWNER, name, 'true or false');
  }
  for (const name of ['authorize', 'present'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'function')
      throw invalidOption(OWNER, name, 'a function');
  }
  const maxUrlTtl =
    options.maxUrlTtl === undefined ? DEFAULT_MAX_URL_TTL_MS : parseDuration(options.maxUrlTtl);
  if (maxUrlTtl === undefined || maxUrlTtl < 1000 || maxUrlTtl > MAX_URL_TTL_MS) {
    throw invalidOption(
      OWNER,
      'maxUrlTtl',
      `${DURATION_FORMS}, from 1s to 7d`,
      `got ${show(options.maxUrlTtl)}`,
    );
  }
  return {
    upload: uploadLimits(options.upload),
    download: options.download ?? true,
    shared: options.shared ?? false,
    authorize: options.authorize,
    present: options.present,
    maxUrlSeconds: Math.floor(maxUrlTtl / 1000),
    omit: new Set(routeIds(options.omit)),
    replace: replacements(options.replace),
  };
}

function uploadLimits(upload: FileRoutesOptions['upload']): FilesUploadLimits | undefined {
  if (upload === undefined || upload === false) return undefined;
  if (upload === null || typeof upload !== 'object' || Array.isArray(upload))
    throw invalidOption(OWNER, 'upload', 'false or { maxBytes, maxFiles?, allowedTypes? }');
  rejectUnknownOptions(upload, UPLOAD_OPTIONS, `${OWNER}: upload`);
  const maxBytes = parseSize(upload.maxBytes);
  if (maxBytes === undefined || maxBytes < 1)
    throw invalidOption(
      OWNER,
      'upload.maxBytes',
      `${SIZE_FORMS}, at least 1 byte`,
      `got ${show(upload.maxBytes)}`,
    );
  const maxFiles = positiveWholeNumber(upload.maxFiles, DEFAULT_FILES_PER_UPLOAD, OWNER, 'upload.maxFiles');
  const allowedTypes = upload.allowedTypes;
  if (
    allowedTypes !== undefined &&
    (!Array.isArray(allowedTypes) ||
      allowedTypes.length === 0 ||
      !allowedTypes.every((type: unknown) => typeof type === 'string' && isAllowedTypePattern(type)))
  ) {
    throw invalidOption(
      OWNER,
      'upload.allowedTypes',
      'a non-empty list of media types such as image/png or image/*',
    );
  }
  const limits = filesUploadLimits({
    maxBytes,
    maxFiles,
    ...(allowedTypes === undefined ? {} : { allowedTypes }),
  });
  if (limits === undefined)
    throw invalidOption(OWNER, 'upload', 'limits whose request size (maxBytes × maxFiles) is a safe integer');
  return limits;
}

function routeIds(omit: unknown): string[] {
  if (omit === undefined) return [];
  if (!Array.isArray(omit)) throw invalidOption(OWNER, 'omit', 'a list of route ids');
  for (const id of omit) {
    if (typeof id !== 'string' || !ROUTE_IDS.includes(id))
      throw invalidOption(OWNER, 'omit', `route ids of ${ROUTE_IDS.join(', ')}`, `got ${show(id)}`);
  }
  return omit as string[];
}

function replacements(replace: unknown): Partial<FilesHandlers> {
  if (replace === undefined) return {};
  if (replace === null || typeof replace !== 'object')
    throw invalidOption(OWNER, 'replace', 'an object of handlers');
  for (const [id, handler] of Object.entries(replace)) {
    if (!ROUTE_IDS.includes(id))
      throw invalidOption(OWNER, `replace.${id}`, `a route id of ${ROUTE_IDS.join(', ')}`);
    if (typeof handler !== 'function') throw invalidOption(OWNER, `replace.${id}`, 'a function');
  }
  return replace as Partial<FilesHandlers>;
}

function show(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value) : String(value);
}
