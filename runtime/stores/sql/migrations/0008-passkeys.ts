// Migration 8: passkeys (WebAuthn). Times are BIGINT epoch milliseconds from svc's clock. svc_passkeys is
// durable data: no row expires, nothing is swept (losing one locks its owner out of that sign-in method).
// svc_webauthn_challenges holds ceremonies in progress for minutes; the sweeper deletes the expired rows.
// user_id has no foreign key to svc_users (an app may keep its users elsewhere).
export const sql = `
CREATE TABLE svc_passkeys (
  -- The credential id the authenticator chose (base64url), compared byte for byte whatever the database's
  -- locale. The primary key makes "registered once, across every user" atomic.
  id text COLLATE "C" PRIMARY KEY,
  user_id text NOT NULL,
  -- The COSE public key, base64url.
  public_key text NOT NULL,
  -- The signature counter last accepted; a sign-in moves it only from the value it was verified against.
  counter bigint NOT NULL CHECK (counter >= 0),
  transports text[] NOT NULL DEFAULT '{}',
  label text NOT NULL,
  created_at bigint NOT NULL,
  -- NULL before the first sign-in with it.
  last_used_at bigint
);
-- A user's passkeys, oldest first (listByUser).
CREATE INDEX svc_passkeys_user_id ON svc_passkeys (user_id, created_at, id);

-- One row per ceremony in progress, taken (deleted) once when it finishes.
CREATE TABLE svc_webauthn_challenges (
  key text PRIMARY KEY,
  challenge text NOT NULL,
  -- The user the ceremony is bound to: always for a registration, for an authentication only when named.
  user_id text,
  expires_at bigint NOT NULL
);
CREATE INDEX svc_webauthn_challenges_expires_at ON svc_webauthn_challenges (expires_at);
`;
