// The errors an upload raises, built from the catalog. Details carry only a fixed reason or the name of the
// limit that was hit: never a byte of what the client sent.
import { errors } from '../../../generated/modules/errors.js';
import type { HttpError } from '../errors.js';

/** Why a multipart body was refused as malformed; sent as `details.reason`. */
export type MalformedReason =
  | 'boundary-missing'
  | 'boundary-repeated'
  | 'boundary-invalid'
  | 'content-type-invalid'
  | 'truncated'
  | 'aborted'
  | 'delimiter-invalid'
  | 'header-folded'
  | 'header-duplicated'
  | 'header-too-large'
  | 'header-invalid'
  | 'disposition-invalid'
  | 'name-missing'
  | 'nested-multipart'
  | 'part-content-type-invalid'
  | 'part-content-length-invalid'
  | 'transfer-encoding-invalid';

export function malformed(reason: MalformedReason, cause?: unknown): HttpError {
  return errors.MALFORMED_MULTIPART(
    cause === undefined ? { details: { reason } } : { details: { reason }, cause },
  );
}

/** 413 naming the limit passed (`details.limit`). */
export function tooLarge(limit: 'maxBytes' | 'maxFileBytes' | 'maxFieldBytes'): HttpError {
  return errors.PAYLOAD_TOO_LARGE({ details: { limit } });
}

export function tooManyFiles(): HttpError {
  return errors.TOO_MANY_FILES({ details: { limit: 'maxFiles' } });
}

export function tooManyFields(): HttpError {
  return errors.TOO_MANY_FIELDS({ details: { limit: 'maxFields' } });
}

/** A file whose declared type is outside `allowedTypes`. */
export function typeNotAllowed(): HttpError {
  return errors.UNSUPPORTED_MEDIA_TYPE({ details: { limit: 'allowedTypes' } });
}

/** The request itself is not multipart/form-data. */
export function notMultipart(): HttpError {
  return errors.UNSUPPORTED_MEDIA_TYPE();
}
