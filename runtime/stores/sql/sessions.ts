// SessionStore on svc_sessions, keyed by the SHA-256 of the session id (seed 000 "Stores").
import type { SessionRecord, SessionStore } from '../../auth/stores/sessions.js';
import type { SqlQueryable } from './client.js';
import { num, textArray } from './rows.js';

interface SessionRow {
  user_id: string;
  amr: unknown;
  created_at: unknown;
  expires_at: unknown;
}

export class SqlSessionStore implements SessionStore {
  constructor(private readonly db: SqlQueryable) {}

  async create(idHash: string, record: SessionRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO svc_sessions (id_hash, user_id, amr, created_at, expires_at) VALUES ($1, $2, $3::text[], $4, $5)`,
      [idHash, record.userId, record.amr, record.createdAt, record.expiresAt],
    );
  }

  async get(idHash: string, now: number): Promise<SessionRecord | undefined> {
    const { rows } = await this.db.query<SessionRow>(
      `SELECT user_id, amr, created_at, expires_at FROM svc_sessions WHERE id_hash = $1 AND expires_at > $2`,
      [idHash, now],
    );
    const row = rows[0];
    if (row === undefined) return undefined;
    return {
      userId: row.user_id,
      amr: textArray(row.amr),
      createdAt: num(row.created_at),
      expiresAt: num(row.expires_at),
    };
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
