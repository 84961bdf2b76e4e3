// The one way a backend's outage reaches a caller: STORE_UNAVAILABLE (503) naming the store. The client sees
// a neutral message; the driver's reason (addresses, wording) goes to the error reporter only.
import { errors } from '../../generated/modules/errors.js';
import type { HttpError } from '../http/errors.js';

const MAX_REASON_LENGTH = 120;

const MESSAGES = {
  database: 'PostgreSQL is unavailable.',
  redis: 'Redis is unavailable.',
} as const;

export type SharedStore = keyof typeof MESSAGES;

export function storeUnavailable(store: SharedStore, reason: string, cause: unknown): HttpError {
  const short = reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH)}…` : reason;
  return errors.STORE_UNAVAILABLE({
    message: MESSAGES[store],
    internalDetails: { reason: short },
    details: { store },
    cause,
  });
}
