// The header names and key limit of idempotency keys, shared by the plugin and the generator (OpenAPI, client).

/** Request header carrying the key, unless `header` names another. */
export const DEFAULT_IDEMPOTENCY_HEADER = 'idempotency-key';
/** The longest key accepted; a longer one is IDEMPOTENCY_KEY_INVALID. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** Set to `true` on an answer replayed from the store. */
export const IDEMPOTENT_REPLAYED_HEADER = 'idempotent-replayed';
