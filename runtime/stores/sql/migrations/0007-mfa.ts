// Migration 7: two-factor sign-in, one row per enrolled user. Times are BIGINT epoch milliseconds from svc's
// clock. Durable data: no row expires, nothing is swept. user_id has no foreign key to svc_users (an app may
// keep its users elsewhere).
export const sql = `
CREATE TABLE svc_mfa (
  -- "C" (byte) order whatever the database's locale: recordsAfter scans in code-point order on every backend,
  -- served by the primary key's index.
  user_id text COLLATE "C" PRIMARY KEY,
  -- Sealed: svc_mfa never holds a TOTP secret in the clear.
  secret text NOT NULL,
  state text NOT NULL CHECK (state IN ('pending', 'enabled')),
  -- The unused recovery codes' hashes; a spent one is removed.
  recovery_hashes text[] NOT NULL DEFAULT '{}',
  -- The last TOTP time step accepted (NULL while pending).
  last_step bigint,
  created_at bigint NOT NULL,
  enabled_at bigint,
  -- The pending/enabled invariants, so a store bug can never leave a half-activated row.
  CHECK (state = 'enabled' OR (enabled_at IS NULL AND last_step IS NULL AND recovery_hashes = '{}')),
  CHECK (state = 'pending' OR (enabled_at IS NOT NULL AND last_step IS NOT NULL))
);
`;
