// MembershipStore on svc_tenants and svc_tenant_members.
//
// The races this must win, on any number of processes:
// - Two owners demoting or removing each other at once. Under READ COMMITTED both would count "2 owners" and
//   both would write, leaving none. So a change to an existing membership is one transaction that first locks
//   the tenant's row, in a statement of its own (a statement reads the snapshot taken when it starts), then
//   reads the member's role and the count of protected-role holders, then writes: the second transaction
//   reads what the first committed. The lock is FOR NO KEY UPDATE: it excludes the other changes of the same
//   tenant but not the foreign-key check of a member being added (FOR KEY SHARE), so additions never wait for
//   it. An addition can only add holders, so one committing during a change never makes the change wrong.
// - The same account added twice at once: one INSERT … ON CONFLICT DO NOTHING; the primary key decides.
// - A member manager removed or demoted while its request waited. A change re-reads the actor's role after
//   the tenant's lock, in its transaction: a removal of the actor committed before is seen, a later one waits
//   for the lock. An addition share-locks the actor's membership row instead (ADD_MEMBER).
import { randomUUID } from 'node:crypto';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import type {
  Membership,
  MembershipAddition,
  MembershipAdditionRules,
  MembershipChange,
  MembershipChangeRefusal,
  MembershipChangeRules,
  MembershipRemoval,
  MembershipStore,
  Tenant,
  TenantOfMember,
} from '../../tenancy/memberships.js';
import { actorRefusal, changeRefusal } from '../../tenancy/memberships.js';
import type { SqlClient, SqlQueryable } from './client.js';

export interface SqlMembershipStoreOptions {
  /** Recorded as created_at of tenants and memberships (epoch ms). Default Date.now. */
  now?: () => number;
}

/** The keys of SqlMembershipStoreOptions; any other is refused. */
const STORE_OPTIONS = optionKeys<SqlMembershipStoreOptions>({ now: true });

// Columns named as the records' fields (rows.ts): a row is its record.
const MEMBERSHIP = `tenant_id AS "tenantId", user_id AS "userId", role, created_at AS "createdAt"`;
const TENANT = `id, name, created_at AS "createdAt"`;

const INSERT_TENANT = `INSERT INTO svc_tenants (id, name, created_at) VALUES ($1, $2, $3)`;
const INSERT_MEMBER = `INSERT INTO svc_tenant_members (tenant_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)`;

const GET_TENANT = `SELECT ${TENANT} FROM svc_tenants WHERE id = $1`;
const ROLE_OF = `SELECT role FROM svc_tenant_members WHERE tenant_id = $1 AND user_id = $2`;
const MEMBERSHIP_OF = `SELECT ${MEMBERSHIP} FROM svc_tenant_members WHERE tenant_id = $1 AND user_id = $2`;
const TENANTS_OF = `SELECT t.id, t.name, m.role FROM svc_tenant_members m JOIN svc_tenants t ON t.id = m.tenant_id
  WHERE m.user_id = $1 ORDER BY m.created_at, m.tenant_id`;
const MEMBERS = `SELECT ${MEMBERSHIP} FROM svc_tenant_members WHERE tenant_id = $1 ORDER BY created_at, user_id`;

// One statement, one row back: whether the tenant exists, the actor's role when an actor ($5, role $6) is
// given, and the membership when this call inserted it. A concurrent insert of the same account makes this
// one do nothing once that one commits: "exists".
// One statement suffices for the actor's check too: the actor's membership row is read FOR SHARE, which a
// removal (DELETE) or a role change (UPDATE) of the actor conflicts with. Either that change committed before
// this statement locked the row (READ COMMITTED then reads its latest version: gone or another role, refused)
// or it waits until this addition has committed, so the addition is ordered before it: no member appears
// after the actor lost the power to add one. Without an actor ($5 NULL) nothing is locked.
const ADD_MEMBER = `WITH tenant AS (SELECT id FROM svc_tenants WHERE id = $1::text),
  actor AS (SELECT role FROM svc_tenant_members WHERE tenant_id = $1::text AND user_id = $5::text FOR SHARE),
  added AS (
    INSERT INTO svc_tenant_members (tenant_id, user_id, role, created_at)
    SELECT id, $2::text, $3::text, $4::bigint FROM tenant
    WHERE $5::text IS NULL OR EXISTS (SELECT 1 FROM actor WHERE role = $6::text)
    ON CONFLICT (tenant_id, user_id) DO NOTHING
    RETURNING ${MEMBERSHIP}
  )
  SELECT EXISTS (SELECT 1 FROM tenant) AS "tenantExists", (SELECT role FROM actor) AS "actorRole", added.*
  FROM (SELECT 1) AS one LEFT JOIN added ON true`;

const LOCK_TENANT = `SELECT 1 FROM svc_tenants WHERE id = $1 FOR NO KEY UPDATE`;
// Read after LOCK_TENANT, in its own statement: it sees every change committed before the lock. One row: the
// member's role, the actor's ($4, NULL without one), each NULL for a non-member, and the holders' count.
const MEMBER_ACTOR_AND_HOLDERS = `SELECT
    (SELECT role FROM svc_tenant_members WHERE tenant_id = $1 AND user_id = $2) AS role,
    (SELECT role FROM svc_tenant_members WHERE tenant_id = $1 AND user_id = $4::text) AS "actorRole",
    (SELECT count(*) FROM svc_tenant_members WHERE tenant_id = $1 AND role = $3) AS holders`;
const SET_ROLE = `UPDATE svc_tenant_members SET role = $3 WHERE tenant_id = $1 AND user_id = $2 RETURNING ${MEMBERSHIP}`;
const REMOVE = `DELETE FROM svc_tenant_members WHERE tenant_id = $1 AND user_id = $2`;

/** ADD_MEMBER's row: the membership's columns are NULL when nothing was inserted. */
type AddedRow = { tenantExists: boolean; actorRole: string | null } & {
  [K in keyof Membership]: Membership[K] | null;
};

export class SqlMembershipStore implements MembershipStore {
  private readonly now: () => number;

  constructor(
    private readonly db: SqlClient,
    options: SqlMembershipStoreOptions = {},
  ) {
    rejectUnknownOptions(options, STORE_OPTIONS, 'SqlMembershipStore');
    this.now = options.now ?? Date.now;
  }

  async createTenant(input: { name: string; ownerId: string; role: string }): Promise<Tenant> {
    const tenant: Tenant = { id: randomUUID(), name: input.name, createdAt: this.now() };
    await this.db.transaction(async (tx) => {
      await tx.query(INSERT_TENANT, [tenant.id, tenant.name, tenant.createdAt]);
      await tx.query(INSERT_MEMBER, [tenant.id, input.ownerId, input.role, tenant.createdAt]);
    });
    return tenant;
  }

  async getTenant(id: string): Promise<Tenant | undefined> {
    const { rows } = await this.db.query<Tenant>(GET_TENANT, [id]);
    return rows[0];
  }

  async roleOf(tenantId: string, userId: string): Promise<string | undefined> {
    const { rows } = await this.db.query<{ role: string }>(ROLE_OF, [tenantId, userId]);
    return rows[0]?.role;
  }

  async tenantsOf(userId: string): Promise<TenantOfMember[]> {
    const { rows } = await this.db.query<TenantOfMember>(TENANTS_OF, [userId]);
    return rows;
  }

  async members(tenantId: string): Promise<Membership[]> {
    const { rows } = await this.db.query<Membership>(MEMBERS, [tenantId]);
    return rows;
  }

  async membership(tenantId: string, userId: string): Promise<Membership | undefined> {
    const { rows } = await this.db.query<Membership>(MEMBERSHIP_OF, [tenantId, userId]);
    return rows[0];
  }

  async addMember(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipAdditionRules = {},
  ): Promise<MembershipAddition> {
    const { actor } = rules;
    const { rows } = await this.db.query<AddedRow>(ADD_MEMBER, [
      tenantId,
      userId,
      role,
      this.now(),
      actor?.userId ?? null,
      actor?.role ?? null,
    ]);
    const row = rows[0];
    const refusedActor = actorRefusal(actor, row?.actorRole ?? undefined);
    if (refusedActor !== undefined) return { ok: false, reason: refusedActor };
    if (row === undefined || !row.tenantExists) return { ok: false, reason: 'no-tenant' };
    if (row.tenantId === null || row.userId === null || row.role === null || row.createdAt === null) {
      return { ok: false, reason: 'exists' };
    }
    return {
      ok: true,
      membership: { tenantId: row.tenantId, userId: row.userId, role: row.role, createdAt: row.createdAt },
    };
  }

  async setRole(
    tenantId: string,
    userId: string,
    role: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipChange> {
    return this.db.transaction(async (tx): Promise<MembershipChange> => {
      const checked = await lockAndCheck(tx, tenantId, userId, rules, role);
      if ('refusal' in checked) return { ok: false, reason: checked.refusal };
      const { rows } = await tx.query<Membership>(SET_ROLE, [tenantId, userId, role]);
      return { ok: true, membership: rows[0]!, previousRole: checked.role };
    });
  }

  async removeMember(
    tenantId: string,
    userId: string,
    rules: MembershipChangeRules,
  ): Promise<MembershipRemoval> {
    return this.db.transaction(async (tx): Promise<MembershipRemoval> => {
      const checked = await lockAndCheck(tx, tenantId, userId, rules, undefined);
      if ('refusal' in checked) return { ok: false, reason: checked.refusal };
      await tx.query(REMOVE, [tenantId, userId]);
      return { ok: true };
    });
  }
}

/**
 * Inside the change's transaction: locks the tenant, then answers why the member may not move to `newRole`
 * (undefined: leave the tenant), if anything stops it, else the member's current role. An unknown tenant
 * locks nothing and is `not-member` (`actor-not-member` when an actor is given).
 */
async function lockAndCheck(
  tx: SqlQueryable,
  tenantId: string,
  userId: string,
  rules: MembershipChangeRules,
  newRole: string | undefined,
): Promise<{ refusal: MembershipChangeRefusal } | { role: string }> {
  const locked = await tx.query(LOCK_TENANT, [tenantId]);
  if (locked.rows.length === 0) {
    return { refusal: rules.actor === undefined ? 'not-member' : 'actor-not-member' };
  }
  const { rows } = await tx.query<{ role: string | null; actorRole: string | null; holders: number }>(
    MEMBER_ACTOR_AND_HOLDERS,
    [tenantId, userId, rules.protectedRole, rules.actor?.userId ?? null],
  );
  const { role, actorRole, holders } = rows[0]!;
  const refusal = changeRefusal(
    { role: role ?? undefined, actorRole: actorRole ?? undefined, holders },
    rules,
    newRole,
  );
  // No refusal means the member was found: `role` is its current one.
  return refusal === undefined ? { role: role! } : { refusal };
}
