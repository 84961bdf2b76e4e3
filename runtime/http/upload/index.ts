// The streamed multipart/form-data body of upload routes: `upload()` declares it on
// a route, `startUpload()` reads it for the pipeline. svc parses multipart itself (not busboy) because the
// upload rules need the part headers: folded and repeated headers refused, a per-route header limit.
export {
  upload,
  resolveUploadLimits,
  DEFAULT_UPLOAD_LIMITS,
  DEFAULT_MAX_FIELDS,
  DEFAULT_MAX_FIELD_BYTES,
  DEFAULT_MAX_HEADER_BYTES,
} from './options.js';
export type { UploadOptions } from './options.js';
export { startUpload } from './upload-session.js';
export type { StartUploadInput, UploadFinish, UploadSession } from './upload-session.js';
export { sanitizeFilename, MAX_FILENAME_BYTES } from './filename.js';
export { matchesAllowedType, isAllowedTypePattern } from './media-type-match.js';
export { boundaryOf, MAX_BOUNDARY_LENGTH } from './boundary.js';
export { DEFAULT_FILE_TYPE } from './file-entry.js';
