// ApiKeyStore on svc_api_keys. Adding is one transaction behind a transaction-scoped advisory lock of the key's
// owner (its user and tenant): adds for one owner queue on it, so each counts the live keys the previous one
// committed, and concurrent adds on any number of processes never leave more than maxPerOwner live keys. Every
// other operation is one statement: removal is a DELETE whose WHERE holds the owner (a foreign owner deletes
// nothing), and a use is dated by an UPDATE whose WHERE is the compare, so lastUsedAt only moves forward.
import type { ApiKeyAddResult, ApiKeyFilter, ApiKeyRecord, ApiKeyStore } from '../../auth/apikeys/store.js';
import type { SqlClient } from './client.js';
import type { RowOf } from './rows.js';

/** Columns named as the record's fields; NULL for a missing tenant, user, expiry or first use. */
const RECORD = `id, hash, name, start, last4, scopes, tenant_id AS "tenantId", user_id AS "userId",
  created_at AS "createdAt", expires_at AS "expiresAt", last_used_at AS "lastUsedAt"`;

type ApiKeyRow = RowOf<ApiKeyRecord>;

/**
 * `column` is `$value`, NULL matching NULL, unless `$any` is true. Written as `=` or `IS NULL` rather than
 * IS NOT DISTINCT FROM: with the values bound, the planner folds this to a condition the owner index serves.
 */
function matching(column: string, any: string, value: string): string {
  return `(${any}::boolean OR ${column} = ${value}::text OR (${column} IS NULL AND ${value}::text IS NULL))`;
}

const OWNER_IS = `${matching('user_id', 'false', '$1')} AND ${matching('tenant_id', 'false', '$2')}`;

// Adds for one owner queue on a lock of that owner. The owner is passed as JSON, so no user or tenant id can
// make another owner's lock key.
const LOCK_OWNER = `SELECT pg_advisory_xact_lock(hashtextextended('svc:api-keys-owner:' || $1::text, 0))`;

const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED';

const COUNT_LIVE = `SELECT count(*)::int AS count FROM svc_api_keys
  WHERE ${OWNER_IS} AND (expires_at IS NULL OR expires_at > $3)`;

const ADD = `INSERT INTO svc_api_keys
  (id, hash, name, start, last4, scopes, tenant_id, user_id, created_at, expires_at, last_used_at)
  VALUES ($1, $2, $3, $4, $5, $6::text[], $7, $8, $9, $10, $11)`;

const FIND_BY_HASH = `SELECT ${RECORD} FROM svc_api_keys WHERE hash = $1`;

const GET = `SELECT ${RECORD} FROM svc_api_keys WHERE id = $1`;

// $1/$3 say "any user" / "any tenant"; served by svc_api_keys_owner in this order when the user is named.
const LIST = `SELECT ${RECORD} FROM svc_api_keys
  WHERE ${matching('user_id', '$1', '$2')} AND ${matching('tenant_id', '$3', '$4')}
  ORDER BY created_at, id`;

const REMOVE = `DELETE FROM svc_api_keys
  WHERE id = $1 AND ${matching('user_id', '$2', '$3')} AND ${matching('tenant_id', '$4', '$5')}`;

// Every tenant and none, expired keys included; served by svc_api_keys_owner (user_id leads it).
const REMOVE_BY_USER = `DELETE FROM svc_api_keys WHERE user_id = $1`;

// A write that lost a race to a later use changes nothing.
const TOUCH = `UPDATE svc_api_keys SET last_used_at = $2
  WHERE id = $1 AND (last_used_at IS NULL OR last_used_at < $2)`;

function recordOf(row: ApiKeyRow): ApiKeyRecord {
  return {
    ...row,
    tenantId: row.tenantId ?? undefined,
    userId: row.userId ?? undefined,
    expiresAt: row.expiresAt ?? undefined,
    lastUsedAt: row.lastUsedAt ?? undefined,
  };
}

/** The parameters of a filter: for each of user and tenant, "any" and the value (NULL for none). */
function filterParams(filter: ApiKeyFilter): [boolean, string | null, boolean, string | null] {
  return [
    filter.userId === undefined,
    filter.userId ?? null,
    filter.tenantId === undefined,
    filter.tenantId ?? null,
  ];
}

export class SqlApiKeyStore implements ApiKeyStore {
  constructor(private readonly db: SqlClient) {}

  async add(record: ApiKeyRecord, maxPerOwner: number, now: number): Promise<ApiKeyAddResult> {
    const userId = record.userId ?? null;
    const tenantId = record.tenantId ?? null;
    const values = [
      record.id,
      record.hash,
      record.name,
      record.start,
      record.last4,
      [...record.scopes],
      tenantId,
      userId,
      record.createdAt,
      record.expiresAt ?? null,
      record.lastUsedAt ?? null,
    ];
    return this.db.transaction(async (tx) => {
      // Under a REPEATABLE READ default the count would read a snapshot older than the lock wait.
      await tx.query(READ_COMMITTED);
      await tx.query(LOCK_OWNER, [JSON.stringify([userId, tenantId])]);
      const { rows } = await tx.query<{ count: number }>(COUNT_LIVE, [userId, tenantId, now]);
      if (rows[0]!.count >= maxPerOwner) return 'full';
      await tx.query(ADD, values);
      return 'added';
    });
  }

  async findByHash(hash: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.db.query<ApiKeyRow>(FIND_BY_HASH, [hash]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async get(id: string): Promise<ApiKeyRecord | undefined> {
    const { rows } = await this.db.query<ApiKeyRow>(GET, [id]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async list(filter: ApiKeyFilter): Promise<ApiKeyRecord[]> {
    const { rows } = await this.db.query<ApiKeyRow>(LIST, filterParams(filter));
    return rows.map(recordOf);
  }

  async remove(id: string, owner: ApiKeyFilter = {}): Promise<boolean> {
    const { rowCount } = await this.db.query(REMOVE, [id, ...filterParams(owner)]);
    return rowCount === 1;
  }

  async removeByUser(userId: string): Promise<number> {
    const { rowCount } = await this.db.query(REMOVE_BY_USER, [userId]);
    return rowCount;
  }

  async touch(id: string, at: number): Promise<void> {
    await this.db.query(TOUCH, [id, at]);
  }
}
