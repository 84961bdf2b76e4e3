// Migration 2: the edge stores. Times are BIGINT epoch milliseconds.
export const sql = `
-- One fixed window per key; expires_at is the window's end (the hit's resetAt).
CREATE TABLE svc_rate_limits (
  key text PRIMARY KEY,
  count bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_rate_limits_expires_at ON svc_rate_limits (expires_at);

-- status NULL: the first request still runs (pending); otherwise its stored response.
CREATE TABLE svc_idempotency (
  key text PRIMARY KEY,
  status integer,
  body text,
  content_type text,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_idempotency_expires_at ON svc_idempotency (expires_at);
`;
