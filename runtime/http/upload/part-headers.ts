// One part's header block, read strictly: every line is `name: value`; folded lines,
// repeated names and control characters are refused instead of being merged or guessed at, since a proxy or
// scanner in front of svc may read the same bytes differently. Content-Disposition must be `form-data` with
// a name; a filename (plain or RFC 5987 `filename*`) makes the part a file.
import { decodeExtendedValue, sanitizeFilename } from './filename.js';
import { hasRepeatedParam, isMediaType, isToken, paramValues, parseParameterized } from './header-params.js';
import { malformed } from './upload-errors.js';
import { parseContentLength } from '../content-length.js';

export interface PartHeaders {
  /** The form field name (never empty). */
  name: string;
  /** Sanitised filename; undefined for a text field. */
  filename: string | undefined;
  /** Lower-cased media type without parameters; undefined when the part sent no Content-Type. */
  contentType: string | undefined;
  /** The part's own Content-Length (plain decimal digits; any other value is refused as malformed). */
  contentLength: number | undefined;
}

/** Transfer encodings that leave the bytes as they are (RFC 7578 §4.7 deprecates every other one). */
const IDENTITY_ENCODINGS = new Set(['7bit', '8bit', 'binary']);

const EDGE_SPACES = /^[ \t]+|[ \t]+$/g;

/** Control characters other than HTAB; a CR or LF here is a bare one inside a line. */
function hasControlChar(value: string): boolean {
  for (let at = 0; at < value.length; at++) {
    const code = value.charCodeAt(at);
    if ((code < 0x20 && code !== 0x09) || code === 0x7f) return true;
  }
  return false;
}

/** Header name (lower-cased) → value, one entry per name. */
function readLines(block: Buffer): Map<string, string> {
  const headers = new Map<string, string>();
  if (block.length === 0) return headers;
  for (const line of block.toString('utf8').split('\r\n')) {
    const first = line.charCodeAt(0);
    if (first === 0x20 || first === 0x09) throw malformed('header-folded');
    const colon = line.indexOf(':');
    if (colon <= 0) throw malformed('header-invalid');
    const name = line.slice(0, colon);
    if (!isToken(name)) throw malformed('header-invalid');
    const value = line.slice(colon + 1).replace(EDGE_SPACES, '');
    if (hasControlChar(value)) throw malformed('header-invalid');
    const key = name.toLowerCase();
    if (headers.has(key)) throw malformed('header-duplicated');
    headers.set(key, value);
  }
  return headers;
}

function readDisposition(value: string | undefined): { name: string; filename: string | undefined } {
  if (value === undefined) throw malformed('disposition-invalid');
  const disposition = parseParameterized(value);
  if (
    disposition === undefined ||
    disposition.essence.toLowerCase() !== 'form-data' ||
    hasRepeatedParam(disposition)
  ) {
    throw malformed('disposition-invalid');
  }
  const name = paramValues(disposition, 'name')[0];
  if (name === undefined || name === '') throw malformed('name-missing');
  const plain = paramValues(disposition, 'filename')[0];
  const extended = paramValues(disposition, 'filename*')[0];
  if (plain === undefined && extended === undefined) return { name, filename: undefined };
  const decoded = extended === undefined ? undefined : decodeExtendedValue(extended);
  return { name, filename: sanitizeFilename(decoded ?? plain ?? '') };
}

function readContentType(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const parsed = parseParameterized(value);
  if (parsed === undefined || !isMediaType(parsed.essence)) throw malformed('part-content-type-invalid');
  const type = parsed.essence.toLowerCase();
  if (type.startsWith('multipart/')) throw malformed('nested-multipart');
  return type;
}

/**
 * A part's own Content-Length: plain decimal digits, or absent. Anything else (a sign, a fraction, a list)
 * is malformed rather than ignored, so a length the sender got wrong is never taken for no length at all.
 */
function readContentLength(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  // readLines already stripped the spaces and tabs around it: any other space (a no-break space) is refused.
  const length = parseContentLength(value);
  if (length === undefined) throw malformed('part-content-length-invalid');
  return length;
}

/** Parses the bytes between a delimiter line and the blank line (the final CRLF excluded). */
export function parsePartHeaders(block: Buffer): PartHeaders {
  const headers = readLines(block);
  const { name, filename } = readDisposition(headers.get('content-disposition'));
  const contentType = readContentType(headers.get('content-type'));
  const encoding = headers.get('content-transfer-encoding');
  if (encoding !== undefined && !IDENTITY_ENCODINGS.has(encoding.toLowerCase())) {
    throw malformed('transfer-encoding-invalid');
  }
  return { name, filename, contentType, contentLength: readContentLength(headers.get('content-length')) };
}
