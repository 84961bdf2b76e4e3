// SessionStore on svc_sessions, keyed by the SHA-256 of the session id.
import type { SessionRecord, SessionStore } from '../../auth/stores/sessions.js';
import type { SqlQueryable } from './client.js';

// Columns named as the record's fields (rows.ts): a row is a SessionRecord.
const GET = `SELECT user_id AS "userId", amr, created_at AS "createdAt", expires_at AS "expiresAt"
  FROM svc_sessions WHERE id_hash = $1 AND expires_at > $2`;

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: SqlQueryable) {}

  async create(idHash: string, record: SessionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO svc_sessions (id_hash, user_id, amr, created_at, expires_at) VALUES ($1, $2, $3::text[], $4, $5)`,
      [idHash, record.userId, record.amr, record.createdAt, record.expiresAt],
    );
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const { rows } = await this.db.query<SessionRecord>(GET, [idHash, now]);
    return rows[0];
  }

  async delete(idHash: string): Promise<void> {
    await this.db.query('DELETE FROM svc_sessions WHERE id_hash = $1', [idHash]);
  }

  /** Counts every session of the user still stored, expired ones not yet swept included (there is no `now`). */
  async deleteByUser(userId: string): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM svc_sessions WHERE user_id = $1', [userId]);
    return rowCount;
  }
}
