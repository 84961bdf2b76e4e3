// Migration 4: an idempotency record remembers which request made it (a SHA-256 of method, URL and body), so
// the same key sent with a different request answers IDEMPOTENCY_KEY_REUSED instead of replaying. NULL for
// records written before this migration: those replay as before.
export const sql = `
ALTER TABLE svc_idempotency ADD COLUMN fingerprint text;
`;
