// PasskeyStore on svc_passkeys and ChallengeStore on svc_webauthn_challenges. Every operation is one
// statement, so it is atomic on any number of processes: the primary key registers a credential id once across
// every user (ON CONFLICT DO NOTHING: no row changed means it was taken); a sign-in's counter moves by an
// UPDATE whose WHERE is the compare (concurrent callers queue on the row's lock and, under READ COMMITTED,
// each one that waited re-checks the counter the previous one committed); a challenge is taken by a DELETE …
// RETURNING, which one caller at most gets a row back from.
import type {
  ChallengeStore,
  PasskeyAddResult,
  PasskeyCredential,
  PasskeyStore,
  WebauthnChallenge,
} from '../../auth/passkeys/store.js';
import type { SqlClient, SqlQueryable } from './client.js';

/** Columns named as the credential's fields; last_used_at NULL before the first sign-in. */
const CREDENTIAL = `id, user_id AS "userId", public_key AS "publicKey", counter, transports, label,
  created_at AS "createdAt", last_used_at AS "lastUsedAt"`;

type CredentialRow = Omit<PasskeyCredential, 'lastUsedAt'> & { lastUsedAt: number | null };

// Adds for one user queue on a lock of that user, so each counts what the previous one committed.
const LOCK_USER = `SELECT pg_advisory_xact_lock(hashtextextended('svc:passkeys-user:' || $1::text, 0))`;

const TAKEN = `SELECT 1 FROM svc_passkeys WHERE id = $1`;

const COUNT_BY_USER = `SELECT count(*)::int AS count FROM svc_passkeys WHERE user_id = $1`;

const ADD = `INSERT INTO svc_passkeys (id, user_id, public_key, counter, transports, label, created_at, last_used_at)
  VALUES ($1, $2, $3, $4, $5::text[], $6, $7, $8)
  ON CONFLICT (id) DO NOTHING`;

const GET = `SELECT ${CREDENTIAL} FROM svc_passkeys WHERE id = $1`;

// Served by svc_passkeys_user_id in this order.
const LIST_BY_USER = `SELECT ${CREDENTIAL} FROM svc_passkeys WHERE user_id = $1 ORDER BY created_at, id`;

const UPDATE_COUNTER = `UPDATE svc_passkeys SET counter = $3, last_used_at = $4 WHERE id = $1 AND counter = $2`;

const REMOVE = `DELETE FROM svc_passkeys WHERE id = $1 AND user_id = $2`;

type ChallengeRow = Omit<WebauthnChallenge, 'userId'> & { userId: string | null };

// Replaces a challenge left under the key (a ceremony started again) as a whole.
const PUT = `INSERT INTO svc_webauthn_challenges (key, challenge, user_id, expires_at)
  VALUES ($1, $2, $3, $4)
  ON CONFLICT (key) DO UPDATE SET challenge = excluded.challenge, user_id = excluded.user_id,
    expires_at = excluded.expires_at`;

// Deletes an expired row too: it could never be used, and nothing else would read it again.
const TAKE = `DELETE FROM svc_webauthn_challenges WHERE key = $1
  RETURNING challenge, user_id AS "userId", expires_at AS "expiresAt"`;

function credentialOf(row: CredentialRow): PasskeyCredential {
  return { ...row, lastUsedAt: row.lastUsedAt ?? undefined };
}

export class SqlPasskeyStore implements PasskeyStore {
  constructor(private readonly db: SqlClient) {}

  async add(credential: PasskeyCredential, maxPerUser: number): Promise<PasskeyAddResult> {
    const values = [
      credential.id,
      credential.userId,
      credential.publicKey,
      credential.counter,
      [...credential.transports],
      credential.label,
      credential.createdAt,
      credential.lastUsedAt ?? null,
    ];
    return this.db.transaction(async (tx) => {
      await tx.query(LOCK_USER, [credential.userId]);
      // A taken id is reported as taken whatever the count, as in memory.
      if ((await tx.query(TAKEN, [credential.id])).rows.length > 0) return 'taken';
      const { rows } = await tx.query<{ count: number }>(COUNT_BY_USER, [credential.userId]);
      if (rows[0]!.count >= maxPerUser) return 'full';
      // ON CONFLICT: an add of the same id for another user may commit meanwhile (it holds another lock).
      return (await tx.query(ADD, values)).rowCount === 1 ? 'added' : 'taken';
    });
  }

  async get(id: string): Promise<PasskeyCredential | undefined> {
    const { rows } = await this.db.query<CredentialRow>(GET, [id]);
    return rows[0] === undefined ? undefined : credentialOf(rows[0]);
  }

  async listByUser(userId: string): Promise<PasskeyCredential[]> {
    const { rows } = await this.db.query<CredentialRow>(LIST_BY_USER, [userId]);
    return rows.map(credentialOf);
  }

  async updateCounter(id: string, expected: number, next: number, now: number): Promise<boolean> {
    const { rowCount } = await this.db.query(UPDATE_COUNTER, [id, expected, next, now]);
    return rowCount === 1;
  }

  async remove(userId: string, id: string): Promise<boolean> {
    const { rowCount } = await this.db.query(REMOVE, [id, userId]);
    return rowCount === 1;
  }
}

export class SqlChallengeStore implements ChallengeStore {
  constructor(private readonly db: SqlQueryable) {}

  async put(key: string, challenge: WebauthnChallenge): Promise<void> {
    await this.db.query(PUT, [key, challenge.challenge, challenge.userId ?? null, challenge.expiresAt]);
  }

  async take(key: string, now: number): Promise<WebauthnChallenge | undefined> {
    const { rows } = await this.db.query<ChallengeRow>(TAKE, [key]);
    const row = rows[0];
    if (row === undefined || row.expiresAt <= now) return undefined;
    return { ...row, userId: row.userId ?? undefined };
  }
}
