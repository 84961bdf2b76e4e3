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
}

/** Stores the files of `body`; the created records in request order. */
export async function uploadParts(
  files: FileService,
  body: UploadInput,
  { uploadedBy, maxBytes }: UploadPartsOptions,
): Promise<FileRecord[]> {
  const created: FileRecord[] = [];
  try {
    for await (const part of body.files) {
      const record = await files.upload(part.stream, {
        name: part.filename === '' ? UNNAMED_FILE : part.filename,
        contentType: part.declaredType,
        uploadedBy,
        ...(maxBytes === undefined ? {} : { maxBytes }),
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
 * A part over the route's per-file `maxBytes` is stopped by the multipart reader (413 PAYLOAD_TOO_LARGE,
 * limit maxFileBytes); for the file routes it is the file that is too large, as for the service's own cap.
 */
function asFileError(error: unknown): unknown {
  if (!(error instanceof HttpError) || error.code !== 'PAYLOAD_TOO_LARGE') return error;
  const limit = (error.details as { limit?: unknown } | undefined)?.limit;
  return limit === 'maxFileBytes'
    ? errors.FILE_TOO_LARGE({ details: { limit: 'maxBytes' }, cause: error })
    : error;
}
