// POST /files: every file part of a streamed multipart body goes through the service's upload (validation,
// sniffing, quota, storage), one after the other as the parts arrive, uploaded by the caller into the
// request's tenant. The request succeeds whole or stores nothing: the service keeps nothing of a part that
// fails, and the files this request stored before it are deleted again before the error is answered, so a
// client that sees an error can simply retry the whole request.
import { errors } from '../../../generated/modules/errors.js';
import { HttpError } from '../../http/errors.js';
import { RequestValidationError } from '../../http/http-errors.js';
import type { UploadInput } from '../../http/types.js';
import type { FileRecord } from '../record.js';
import type { FileService } from '../service/api.js';

/** The name a part without one is stored under. */
const UNNAMED_FILE = 'file';

export interface UploadPartsOptions {
  /** The caller, recorded as each file's uploader. */
  uploadedBy: string;
  /** The route's per-file cap: a part declaring more is refused before any quota is reserved for it. */
  maxBytes: number | undefined;
  /** The route's own types, applied by the service to the stored (detected) type. */
  allowedTypes?: readonly string[] | undefined;
}

/** Stores the files of `body`; the created records in request order. */
export async function uploadParts(
  files: FileService,
  body: UploadInput,
  { uploadedBy, maxBytes, allowedTypes }: UploadPartsOptions,
): Promise<FileRecord[]> {
  const created: FileRecord[] = [];
  try {
    for await (const part of body.files) {
      const record = await files.upload(part.stream, {
        name: part.filename === '' ? UNNAMED_FILE : part.filename,
        contentType: part.declaredType,
        uploadedBy,
        ...(maxBytes === undefined ? {} : { maxBytes }),
        ...(allowedTypes === undefined ? {} : { allowedTypes }),
        // What is left of a request that declared its length bounds the part: its room is reserved at once.
        ...(part.sizeAtMost === undefined ? {} : { sizeAtMost: part.sizeAtMost }),
        ...(part.declaredLength === undefined ? {} : { contentLength: part.declaredLength }),
      });
      created.push(record);
    }
  } catch (error) {
    await removeAll(files, created);
    throw asFileError(error);
  }
  if (created.length === 0) {
    throw new RequestValidationError('body', [
      { path: 'files', message: 'must contain at least one file part' },
    ]);
  }
  return created;
}

/** Deletes what this request stored; a file already gone (deleted meanwhile) is no failure. */
async function removeAll(files: FileService, records: readonly FileRecord[]): Promise<void> {
  for (const record of records) {
    try {
      await files.delete(record.id);
    } catch {
      // The request fails with the upload's own error; a leftover here is the same as a concurrent delete.
    }
  }
}

/**
 * The multipart reader's refusals that concern the file, answered with the file service's codes: a part over
 * the route's per-file `maxBytes` (413 PAYLOAD_TOO_LARGE, limit maxFileBytes) is a file too large, as for the
 * service's own cap; a part Content-Length that is not a byte count (400 MALFORMED_MULTIPART) is an invalid
 * declared length, whatever way it is wrong. Nothing of the part was read either way.
 */
function asFileError(error: unknown): unknown {
  if (!(error instanceof HttpError)) return error;
  const details = error.details as { limit?: unknown; reason?: unknown } | undefined;
  if (error.code === 'PAYLOAD_TOO_LARGE' && details?.limit === 'maxFileBytes') {
    return errors.FILE_TOO_LARGE({ details: { limit: 'maxBytes' }, cause: error });
  }
  if (error.code === 'MALFORMED_MULTIPART' && details?.reason === 'part-content-length-invalid') {
    return errors.STORAGE_CONTENT_LENGTH_INVALID({ cause: error });
  }
  return error;
}
