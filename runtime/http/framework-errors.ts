// Errors the framework itself raises (not a handler) answer fixed catalog codes and never echo the
// framework's own message. Shared by every adapter.
import { STATUS_CODES } from 'node:http';
import { catalog, errors, type ErrorCode } from '../../generated/modules/errors.js';
import type { HttpError } from './errors.js';

const FIXED_CODES: Readonly<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'REQUEST_TIMEOUT',
  413: 'PAYLOAD_TOO_LARGE',
  414: 'URI_TOO_LONG',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  431: 'HEADERS_TOO_LARGE',
};

/** The fixed code for a status: the table above, any other 4xx BAD_REQUEST, anything else INTERNAL_ERROR. */
export function fixedCodeForStatus(status: number): ErrorCode {
  const code = FIXED_CODES[status];
  if (code !== undefined) return code;
  return status >= 400 && status < 500 ? 'BAD_REQUEST' : 'INTERNAL_ERROR';
}

/** The error answered for a client error the framework raised with `status` (body parser 400/413, ...). */
export function frameworkClientError(status: number): HttpError {
  const code = fixedCodeForStatus(status);
  // BAD_REQUEST is also used for other 4xx; the status stays 400 because that is the code's own status.
  return errors[code]() as HttpError;
}

/** A message that says nothing about the error beyond its status: 'Internal server error.', 'Not found.'. */
export function neutralMessage(status: number): string {
  if (status === 500) return catalog.INTERNAL_ERROR.message;
  const text = STATUS_CODES[status];
  if (text === undefined) return status >= 500 ? catalog.INTERNAL_ERROR.message : 'Request failed.';
  return `${text.charAt(0)}${text.slice(1).toLowerCase()}.`;
}
