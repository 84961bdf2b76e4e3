// Migration 10: account links (social sign-in). Times are BIGINT epoch milliseconds from svc's clock.
// svc_account_links is durable data: no row expires, nothing is swept (losing one would leave its owner to the
// email rules on the next sign-in). user_id has no foreign key to svc_users (an app may keep its users
// elsewhere); a link whose account is gone is removed when it is next followed.
export const sql = `
CREATE TABLE svc_account_links (
  -- The provider's configured name and its stable id of the person, compared byte for byte whatever the
  -- database's locale. The primary key makes "one account per provider identity" atomic.
  provider text COLLATE "C" NOT NULL,
  subject text COLLATE "C" NOT NULL,
  user_id text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (provider, subject)
);
-- A user's links, oldest first (listByUser, and the count under the user's lock when one is removed).
CREATE INDEX svc_account_links_user_id ON svc_account_links (user_id, created_at, provider, subject);
`;
