// Tells "PostgreSQL did not answer" apart from every other failure. The first becomes STORE_UNAVAILABLE (503):
// the request is refused rather than served without the check or the write it needed, and works again once the
// server is back. Everything else (a constraint violation, a bug in a query) is rethrown unchanged.
import { storeUnavailable } from '../unavailable.js';
import { HttpError } from '../../http/errors.js';

/** Node's errors for a peer that is gone, refuses, or cannot be found. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/** Server states that end or refuse connections: shutdown, crash recovery, starting up, too many clients. */
const UNAVAILABLE_SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres and pg-pool report these without a code. */
const DRIVER_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /^Query read timeout/,
  /^Client has encountered a connection error/,
  /^Client was closed and is not queryable/,
];

/** The SQLSTATE of a database error (node-postgres and PGlite both set `code`), if any. */
export function sqlState(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  return typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined;
}

function networkCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && NETWORK_CODES.has(code)) return code;
  // Node's happy-eyeballs connect (localhost → ::1 and 127.0.0.1) fails with an AggregateError of both.
  const nested = (error as { errors?: unknown }).errors;
  if (Array.isArray(nested)) {
    for (const inner of nested) {
      const found = networkCode(inner);
      if (found !== undefined) return found;
    }
  }
  return undefined;
}

/** A short reason when `error` means PostgreSQL is unreachable, down or timed out; undefined otherwise. */
function unavailableReason(error: unknown): string | undefined {
  // Network codes first: EPIPE also has the shape of a SQLSTATE.
  const code = networkCode(error);
  if (code !== undefined) return code;
  const state = sqlState(error);
  if (state !== undefined) {
    // Class 08: connection exceptions.
    return state.startsWith('08') || UNAVAILABLE_SQLSTATES.has(state)
      ? `${state} ${messageOf(error)}`
      : undefined;
  }
  const message = messageOf(error);
  return DRIVER_MESSAGES.some((pattern) => pattern.test(message)) ? message : undefined;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether `error` is the STORE_UNAVAILABLE this module made. */
export function isStoreUnavailable(error: unknown): boolean {
  return error instanceof HttpError && error.code === 'STORE_UNAVAILABLE';
}

/** STORE_UNAVAILABLE for an unreachable server, else `error` itself. */
export function classifyPgError(error: unknown): unknown {
  const reason = unavailableReason(error);
  return reason === undefined ? error : storeUnavailable('database', reason, error);
}
