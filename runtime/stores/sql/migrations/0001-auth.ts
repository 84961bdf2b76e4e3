// Migration 1: the auth stores. Times are BIGINT epoch milliseconds written from the caller's
// clock, never the database's. No foreign key to svc_users: an app may keep its users in a table of its own.
export const sql = `
CREATE TABLE svc_users (
  id text PRIMARY KEY,
  email text NOT NULL,
  password_hash text,
  email_verified boolean NOT NULL DEFAULT false,
  created_at bigint NOT NULL
);
-- Email identity is case-insensitive: one account per lower-cased address, and the index every lookup uses.
CREATE UNIQUE INDEX svc_users_email_key ON svc_users (lower(email));

CREATE TABLE svc_sessions (
  id_hash text PRIMARY KEY,
  user_id text NOT NULL,
  amr text[] NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_sessions_user_id ON svc_sessions (user_id);
CREATE INDEX svc_sessions_expires_at ON svc_sessions (expires_at);

CREATE TABLE svc_refresh_tokens (
  token_hash text PRIMARY KEY,
  user_id text NOT NULL,
  family_id text NOT NULL,
  amr text[] NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  used_at bigint,
  revoked_at bigint
);
CREATE INDEX svc_refresh_tokens_user_id ON svc_refresh_tokens (user_id);
CREATE INDEX svc_refresh_tokens_family_id ON svc_refresh_tokens (family_id);
CREATE INDEX svc_refresh_tokens_expires_at ON svc_refresh_tokens (expires_at);

-- A revoked family: tokens created in it before expires_at are born revoked (a rotation racing the reuse).
CREATE TABLE svc_refresh_families (
  family_id text PRIMARY KEY,
  revoked_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_refresh_families_expires_at ON svc_refresh_families (expires_at);

-- A user's last revocation (password reset): tokens dated at or before it are born revoked. One row per user,
-- kept: the mark must outlive any sign-in or rotation that began before it, however slow.
CREATE TABLE svc_refresh_users (
  user_id text PRIMARY KEY,
  revoked_at bigint NOT NULL
);

-- Consumed tokens are deleted, so every row is an unused one.
CREATE TABLE svc_one_time_tokens (
  token_hash text PRIMARY KEY,
  purpose text NOT NULL,
  user_id text NOT NULL,
  email text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_one_time_tokens_user_id ON svc_one_time_tokens (user_id, purpose);
CREATE INDEX svc_one_time_tokens_expires_at ON svc_one_time_tokens (expires_at);

CREATE TABLE svc_login_throttle (
  key text PRIMARY KEY,
  count integer NOT NULL,
  window_ends_at bigint NOT NULL,
  locked_until bigint,
  -- The entry matters until its window and its lock are both over.
  expires_at bigint GENERATED ALWAYS AS (GREATEST(window_ends_at, COALESCE(locked_until, 0))) STORED
);
CREATE INDEX svc_login_throttle_expires_at ON svc_login_throttle (expires_at);
`;
