// The request's Content-Type: it must be multipart/form-data (415 otherwise) with exactly one valid boundary
// parameter (RFC 2046 §5.1.1: 1 to 70 bchars, not ending in a space). Checked before any body byte is read.
import { mediaTypeOf } from '../body.js';
import { paramValues, parseParameterized } from './header-params.js';
import { malformed, notMultipart } from './upload-errors.js';

export const MAX_BOUNDARY_LENGTH = 70;

/** RFC 2046 bchars: digits, letters and `'()+_,-./:=?` plus space (never last). */
const BOUNDARY_CHARS = /^[0-9A-Za-z'()+_,\-./:=? ]+$/;

/** Whether a boundary value (already unquoted) is one RFC 2046 allows. */
export function isValidBoundary(boundary: string): boolean {
  return (
    boundary.length >= 1 &&
    boundary.length <= MAX_BOUNDARY_LENGTH &&
    BOUNDARY_CHARS.test(boundary) &&
    !boundary.endsWith(' ')
  );
}

/** The boundary of a multipart/form-data Content-Type; throws the error the request is answered with. */
export function boundaryOf(contentType: string | undefined): string {
  if (mediaTypeOf(contentType) !== 'multipart/form-data' || contentType === undefined) throw notMultipart();
  const parsed = parseParameterized(contentType);
  if (parsed === undefined) throw malformed('content-type-invalid');
  const boundaries = paramValues(parsed, 'boundary');
  if (boundaries.length === 0) throw malformed('boundary-missing');
  if (boundaries.length > 1) throw malformed('boundary-repeated');
  const boundary = boundaries[0] as string;
  if (!isValidBoundary(boundary)) throw malformed('boundary-invalid');
  return boundary;
}
