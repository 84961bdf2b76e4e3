// Migration 6: the tenancy module's tenants (teams) and their members. Times are BIGINT epoch milliseconds
// from svc's clock. Durable data: no row expires, nothing is swept. user_id has no foreign key to svc_users
// (an app may keep its users elsewhere); a tenant's members go with it.
export const sql = `
CREATE TABLE svc_tenants (
  id text PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL
);

-- One row per account and tenant: the primary key makes "a member once" atomic and serves roleOf.
CREATE TABLE svc_tenant_members (
  tenant_id text NOT NULL REFERENCES svc_tenants (id) ON DELETE CASCADE,
  user_id text NOT NULL,
  role text NOT NULL,
  created_at bigint NOT NULL,
  PRIMARY KEY (tenant_id, user_id)
);
-- An account's tenants, oldest membership first (tenantsOf).
CREATE INDEX svc_tenant_members_user_id ON svc_tenant_members (user_id, created_at, tenant_id);
`;
