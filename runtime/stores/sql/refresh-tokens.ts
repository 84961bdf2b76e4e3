// RefreshTokenStore on svc_refresh_tokens, with revocation marks for families (svc_refresh_families) and users
// (svc_refresh_users) so a token stored after a revocation that covers it is born revoked.
//
// The race this must win: `create` inserting a token while `revokeFamily` (or `revokeUser`) revokes its family
// (or user). Under READ COMMITTED, the insert may read no mark while the revocation's UPDATE cannot see the
// uncommitted token: both commit and the token lives. So both sides serialise on an advisory lock per family
// and per user: `create` takes the two shared (creates never wait for one another), a revocation takes its one
// exclusive, each until its transaction ends. A create that locks first commits its token before the
// revocation's UPDATE starts, which then revokes it; a create that locks second reads the committed mark. The
// lock is taken in a statement of its own, because a statement reads the snapshot taken when it starts.
// Creates take the family lock, then the user lock; revocations hold one lock each, so no cycle can deadlock.
import type { RefreshTokenRecord, RefreshTokenStore } from '../../auth/stores/refresh-tokens.js';
import type { SqlClient } from './client.js';
import { recordOf, type RowOf } from './rows.js';

/** The advisory-lock keys (bigint) of a family and of a user, from the query parameter `param`. */
const familyKey = (param: string) => `hashtextextended('svc:refresh-family:' || ${param}::text, 0)`;
const userKey = (param: string) => `hashtextextended('svc:refresh-user:' || ${param}::text, 0)`;

/** create's locks: $1 family, $2 user. */
const LOCK_SHARED = `SELECT pg_advisory_xact_lock_shared(${familyKey('$1')}), pg_advisory_xact_lock_shared(${userKey('$2')})`;
const LOCK_FAMILY = `SELECT pg_advisory_xact_lock(${familyKey('$1')})`;
const LOCK_USER = `SELECT pg_advisory_xact_lock(${userKey('$1')})`;

export class SqlRefreshTokenStore implements RefreshTokenStore {
  constructor(private readonly db: SqlClient) {}

  async create(tokenHash: string, record: RefreshTokenRecord): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(LOCK_SHARED, [record.familyId, record.userId]);
      // One statement: a live family mark is stretched to cover the new token and dates its revocation; a
      // user mark at or after the token's date revokes it too.
      await tx.query(
        `WITH family AS (
           UPDATE svc_refresh_families SET expires_at = GREATEST(expires_at, $6)
           WHERE family_id = $3 AND expires_at > $5
           RETURNING revoked_at
         )
         INSERT INTO svc_refresh_tokens
           (token_hash, user_id, family_id, amr, created_at, expires_at, used_at, revoked_at)
         VALUES ($1, $2, $3, $4::text[], $5, $6, $7, COALESCE(
           $8::bigint,
           (SELECT revoked_at FROM family),
           (SELECT revoked_at FROM svc_refresh_users WHERE user_id = $2 AND revoked_at >= $5)
         ))`,
        [
          tokenHash,
          record.userId,
          record.familyId,
          record.amr,
          record.createdAt,
          record.expiresAt,
          record.usedAt ?? null,
          record.revokedAt ?? null,
        ],
      );
    });
  }

  async get(tokenHash: string, now: number): Promise<RefreshTokenRecord | undefined> {
    const { rows } = await this.db.query<RowOf<RefreshTokenRecord>>(
      `SELECT user_id AS "userId", family_id AS "familyId", amr, created_at AS "createdAt",
         expires_at AS "expiresAt", used_at AS "usedAt", revoked_at AS "revokedAt"
       FROM svc_refresh_tokens WHERE token_hash = $1 AND expires_at > $2`,
      [tokenHash, now],
    );
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  // Compare-and-swap in one conditional UPDATE: concurrent callers queue on the row lock, and each re-checks
  // the condition against the row the previous one left, so exactly one finds it unused.
  async markUsed(tokenHash: string, now: number): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE svc_refresh_tokens SET used_at = $2
       WHERE token_hash = $1 AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2`,
      [tokenHash, now],
    );
    return rowCount === 1;
  }

  async revokeFamily(familyId: string, now: number, until: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(LOCK_FAMILY, [familyId]);
      // The mark lasts until `until` or the family's last expiry, whichever is later. A mark that already
      // ended is replaced; a live one keeps its revocation time and is only stretched.
      await tx.query(
        `WITH revoked AS (
           UPDATE svc_refresh_tokens SET revoked_at = COALESCE(revoked_at, $2)
           WHERE family_id = $1
           RETURNING expires_at
         )
         INSERT INTO svc_refresh_families AS mark (family_id, revoked_at, expires_at)
         SELECT $1, $2, GREATEST($3::bigint, (SELECT max(expires_at) FROM revoked))
         ON CONFLICT (family_id) DO UPDATE SET
           revoked_at = CASE WHEN mark.expires_at <= $2 THEN excluded.revoked_at ELSE mark.revoked_at END,
           expires_at = GREATEST(mark.expires_at, excluded.expires_at)`,
        [familyId, now, until],
      );
    });
  }

  async revokeUser(userId: string, now: number): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.query(LOCK_USER, [userId]);
      await tx.query(
        `WITH marked AS (
           INSERT INTO svc_refresh_users AS mark (user_id, revoked_at) VALUES ($1, $2)
           ON CONFLICT (user_id) DO UPDATE SET revoked_at = GREATEST(mark.revoked_at, excluded.revoked_at)
         )
         UPDATE svc_refresh_tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE user_id = $1`,
        [userId, now],
      );
    });
  }
}
