// Request and correlation ids: an inbound id is trusted only when it is short and made of safe
// characters, so it can be logged and echoed without escaping; anything else gets a fresh UUID.
import type { RequestHeaders } from './types.js';
import { uuidv7 } from './uuid.js';

export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
export const REQUEST_ID_HEADER = 'x-request-id';
export const CORRELATION_ID_HEADER = 'x-correlation-id';

/** The inbound header value when it matches REQUEST_ID_PATTERN, else undefined. A repeated header never matches. */
export function acceptedId(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' && REQUEST_ID_PATTERN.test(value) ? value : undefined;
}

/** `x-request-id` when acceptable, else a new (time-ordered, version 7) UUID. */
export function requestIdFrom(headers: RequestHeaders): string {
  return acceptedId(headers[REQUEST_ID_HEADER]) ?? uuidv7();
}

/** `x-correlation-id` when acceptable, else the request id. */
export function correlationIdFrom(headers: RequestHeaders, requestId: string): string {
  const inbound = headers[CORRELATION_ID_HEADER];
  if (inbound === undefined) return requestId;
  return acceptedId(inbound) ?? requestId;
}
