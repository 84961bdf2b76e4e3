// Limits every adapter applies the same way, defined once so they cannot drift.

/** Largest JSON, form or text body an adapter reads: 1 MiB (`DEFAULT_BODY_LIMIT`). */
export const DEFAULT_BODY_LIMIT = 1_048_576;

/** Time a node server allows for receiving a whole request. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
