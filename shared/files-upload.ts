// The multipart limits of the files module's upload route (POST /files), from what an application says about
// it: `maxBytes` per file (a file of exactly that size is accepted), `maxFiles` per request. The request as a
// whole must carry that many such files plus the framing multipart adds around each part and a few small
// text fields (ignored by the route), so its limit is derived here, once, for the build (which documents it)
// and the runtime (which enforces it). Dependency-free.

/** Keys of `modules.files.routes` that are settings, not route ids to leave out. */
export const FILES_ROUTE_SETTINGS: readonly string[] = ['upload', 'download', 'shared', 'maxUrlTtl'];

/** Files per request when `maxFiles` is not given. */
export const DEFAULT_FILES_PER_UPLOAD = 1;

/** Text fields the route tolerates (a form's submit button, say) and their size: they are never read. */
const FILES_UPLOAD_FIELDS = Object.freeze({ maxFields: 10, maxFieldBytes: 1024 });

/** Header block of one part: Content-Disposition with a long UTF-8 file name, Content-Type, Content-Length. */
const FILES_UPLOAD_HEADER_BYTES = 8 * 1024;

/** A part's framing besides its header block: the boundary line (at most 70 characters) and its CRLFs. */
const PART_FRAMING_BYTES = 128;

export interface FilesUploadSettings {
  /** Per file, in bytes. */
  maxBytes: number;
  /** Files per request; default DEFAULT_FILES_PER_UPLOAD. */
  maxFiles?: number;
  /** Types accepted (`image/png`, `image/*`), judged by the file service on the stored (detected) type; default any. */
  allowedTypes?: readonly string[];
}

export interface FilesUploadLimits {
  /** The whole request body. */
  maxBytes: number;
  maxFiles: number;
  maxFileBytes: number;
  maxFields: number;
  maxFieldBytes: number;
  maxHeaderBytes: number;
  allowedTypes?: string[];
}

/**
 * The route's multipart limits; undefined when they do not fit in a safe integer (a setting that large is
 * refused by both callers, naming it).
 */
export function filesUploadLimits(settings: FilesUploadSettings): FilesUploadLimits | undefined {
  const maxFiles = settings.maxFiles ?? DEFAULT_FILES_PER_UPLOAD;
  const { maxFields, maxFieldBytes } = FILES_UPLOAD_FIELDS;
  const perPart = FILES_UPLOAD_HEADER_BYTES + PART_FRAMING_BYTES;
  const request =
    maxFiles * (settings.maxBytes + perPart) + maxFields * (maxFieldBytes + perPart) + PART_FRAMING_BYTES;
  if (!Number.isSafeInteger(request)) return undefined;
  return {
    maxBytes: request,
    maxFiles,
    maxFileBytes: settings.maxBytes,
    maxFields,
    maxFieldBytes,
    maxHeaderBytes: FILES_UPLOAD_HEADER_BYTES,
    ...(settings.allowedTypes === undefined
      ? {}
      : { allowedTypes: settings.allowedTypes.map((type) => type.toLowerCase()) }),
  };
}

/** The longest temporary URL lifetime when `maxUrlTtl` is not given: one hour, in ms. */
export const DEFAULT_MAX_URL_TTL_MS = 3_600_000;

/**
 * The longest lifetime a temporary URL may have at all, whatever `maxUrlTtl` says: 7 days, in ms. A link is a
 * bearer credential; past a week it is a share, which wants a record of its own that can be revoked.
 */
export const MAX_URL_TTL_MS = 7 * 24 * 3_600_000;
