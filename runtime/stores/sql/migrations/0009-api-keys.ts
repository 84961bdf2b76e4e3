// Migration 9: API keys. Times are BIGINT epoch milliseconds from svc's clock. svc_api_keys is durable data: a
// key never expires unless it was issued with expires_at, and an expired key is kept 30 days after it (so it
// is refused as expired, not as unknown) before the sweeper deletes it. user_id and tenant_id have no foreign
// keys (an app may keep its users elsewhere, and a key may belong to neither).
export const sql = `
CREATE TABLE svc_api_keys (
  -- A UUID.
  id text COLLATE "C" PRIMARY KEY,
  -- SHA-256 of the plain key, base64url, compared byte for byte whatever the database's locale. The plain key
  -- is never stored.
  hash text COLLATE "C" NOT NULL UNIQUE,
  name text NOT NULL,
  -- What a page shows of the key: the prefix and four characters, and the last four.
  start text NOT NULL,
  last4 text NOT NULL,
  scopes text[] NOT NULL,
  -- NULL: a key of no tenant, of no user.
  tenant_id text,
  user_id text,
  created_at bigint NOT NULL,
  -- NULL: a key that does not expire.
  expires_at bigint,
  -- NULL before the first use; written at most about once a minute per key.
  last_used_at bigint
);
-- An owner's keys, oldest first (list, and the count of live keys when one is added).
CREATE INDEX svc_api_keys_owner ON svc_api_keys (user_id, tenant_id, created_at, id);
CREATE INDEX svc_api_keys_expires_at ON svc_api_keys (expires_at);
`;
