// OneTimeTokenStore on svc_one_time_tokens: verification and password-reset tokens (docs/auth.md).
import type {
  OneTimeTokenPurpose,
  OneTimeTokenRecord,
  OneTimeTokenStore,
} from '../../auth/stores/one-time-tokens.js';
import type { SqlQueryable } from './client.js';

export class SqlOneTimeTokenStore implements OneTimeTokenStore {
  constructor(private readonly db: SqlQueryable) {}

  async create(tokenHash: string, record: OneTimeTokenRecord): Promise<void> {
    // A token born used can never be consumed: it is not stored.
    if (record.usedAt !== undefined) return;
    await this.db.query(
      `INSERT INTO svc_one_time_tokens (token_hash, purpose, user_id, email, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [tokenHash, record.purpose, record.userId, record.email, record.createdAt, record.expiresAt],
    );
  }

  // Compare-and-swap in one conditional DELETE: of concurrent callers exactly one deletes the row and gets it
  // back; a wrong purpose or an expired token matches nothing and changes nothing.
  async consume(
    tokenHash: string,
    purpose: OneTimeTokenPurpose,
    now: number,
  ): Promise<OneTimeTokenRecord | undefined> {
    const { rows } = await this.db.query<OneTimeTokenRecord>(
      `DELETE FROM svc_one_time_tokens WHERE token_hash = $1 AND purpose = $2 AND expires_at > $3
       RETURNING purpose, user_id AS "userId", email, created_at AS "createdAt", expires_at AS "expiresAt"`,
      [tokenHash, purpose, now],
    );
    return rows[0] === undefined ? undefined : { ...rows[0], usedAt: now };
  }

  async deleteByUser(userId: string, purpose: OneTimeTokenPurpose): Promise<void> {
    await this.db.query('DELETE FROM svc_one_time_tokens WHERE user_id = $1 AND purpose = $2', [
      userId,
      purpose,
    ]);
  }
}
