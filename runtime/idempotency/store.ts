// The idempotency store contract. Keys are SHA-256 hex digests of the request
// scope, never the raw key or any credential; a shared store (Redis, SQL) implements the same four calls.

/** A completed response, replayed as-is for a repeated key. */
export interface IdempotencyRecord {
  status: number;
  body: string;
  contentType?: string;
  /**
   * The hex SHA-256 of the request that made the record (fingerprint.ts): the same key with another request
   * answers IDEMPOTENCY_KEY_REUSED. Records without one (written before svc kept it) replay to any request.
   */
  fingerprint?: string;
}

export interface IdempotencyStore {
  /** The stored response, `'pending'` while the first request runs, or undefined when the key is free. */
  get(key: string): Promise<IdempotencyRecord | 'pending' | undefined>;
  /** Reserves a free key; must be an atomic check-and-set. False when the key is pending or completed. */
  setPending(key: string): Promise<boolean>;
  /** Stores the response of the request that reserved the key. */
  complete(key: string, record: IdempotencyRecord): Promise<void>;
  /** Frees the key (the response failed or could not be stored), so a retry runs the handler again. */
  release(key: string): Promise<void>;
}
