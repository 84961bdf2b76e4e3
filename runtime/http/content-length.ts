// The request's declared body size, read one way everywhere: the JSON/form/text readers of every adapter,
// raw bodies, uploads and multipart parts. Only plain decimal digits count, however many: a length past what
// a double holds exactly is still past every limit, and must be refused as such rather than read as absent
// (node has already refused a Content-Length that is malformed, overflows 64 bits or repeats differently).
import { errors } from '../../generated/modules/errors.js';

const DECIMAL = /^\d+$/;

/** A Content-Length value as a number; undefined when absent or anything but plain decimal digits. */
export function parseContentLength(value: string | null | undefined): number | undefined {
  if (value === null || value === undefined || !DECIMAL.test(value)) return undefined;
  return Number(value);
}

/** The headers of a request, as node and the neutral request carry them. */
interface BodyHeaders {
  'content-length'?: string | undefined;
  'transfer-encoding'?: string | undefined;
}

/** The request announced a body: a Content-Length above zero, or a transfer coding (chunked). */
export function announcesBody(headers: BodyHeaders): boolean {
  const length = headers['content-length'];
  if (length !== undefined) return parseContentLength(length) !== 0;
  return headers['transfer-encoding'] !== undefined;
}

/** Throws 413 PAYLOAD_TOO_LARGE when the declared length is over `limit`, before a byte is read. */
export function refuseDeclaredOverLimit(length: number | undefined, limit: number): void {
  if (length !== undefined && length > limit) throw errors.PAYLOAD_TOO_LARGE();
}
