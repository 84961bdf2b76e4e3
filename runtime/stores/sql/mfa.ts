// MfaStore on svc_mfa. Every transition is one statement whose WHERE is the compare and whose SET is the
// write: concurrent callers queue on the row's lock, and under READ COMMITTED each one that waited re-checks
// the WHERE, and recomputes the SET, against the row the previous one committed. So a TOTP step is accepted
// once, a recovery code is spent once while two different codes spent at once both go (array_remove reads the
// latest array), and an activation never enables an enrolment restarted since its code was checked, on any
// number of processes. A row back (or one row changed) means the transition happened.
import type { MfaRecord, MfaStore } from '../../auth/mfa/store.js';
import { checkScanLimit } from '../../auth/mfa/store.js';
import type { SqlClient } from './client.js';

/** Columns named as the record's fields (rows.ts), NULL kept: the record's optional fields are `| undefined`. */
const RECORD = `user_id AS "userId", secret, state, recovery_hashes AS "recoveryHashes", last_step AS "lastStep",
  created_at AS "createdAt", enabled_at AS "enabledAt"`;

type MfaRow = Omit<MfaRecord, 'lastStep' | 'enabledAt'> & {
  lastStep: number | null;
  enabledAt: number | null;
};

const GET = `SELECT ${RECORD} FROM svc_mfa WHERE user_id = $1`;

// A pending row is replaced as a whole; an enabled one makes the DO UPDATE's WHERE false: no row back.
const ENROLL = `INSERT INTO svc_mfa AS mfa (user_id, secret, state, created_at) VALUES ($1, $2, 'pending', $3)
  ON CONFLICT (user_id) DO UPDATE SET secret = excluded.secret, created_at = excluded.created_at,
    recovery_hashes = '{}', last_step = NULL, enabled_at = NULL
  WHERE mfa.state = 'pending'
  RETURNING 1`;

const ACTIVATE = `UPDATE svc_mfa SET state = 'enabled', recovery_hashes = $3::text[], last_step = $4, enabled_at = $5
  WHERE user_id = $1 AND state = 'pending' AND secret = $2`;

const USE_STEP = `UPDATE svc_mfa SET last_step = $2
  WHERE user_id = $1 AND state = 'enabled' AND last_step < $2 AND ($3::bigint IS NULL OR enabled_at = $3::bigint)`;

const USE_RECOVERY_CODE = `UPDATE svc_mfa SET recovery_hashes = array_remove(recovery_hashes, $2::text)
  WHERE user_id = $1 AND state = 'enabled' AND $2::text = ANY (recovery_hashes)`;

const REMOVE = `DELETE FROM svc_mfa WHERE user_id = $1 AND ($2::bigint IS NULL OR enabled_at = $2::bigint)`;

const REPLACE_SECRET = `UPDATE svc_mfa SET secret = $3 WHERE user_id = $1 AND secret = $2`;

// The column's "C" collation orders and compares; the primary key's index serves both.
const FIRST_RECORDS = `SELECT ${RECORD} FROM svc_mfa ORDER BY user_id LIMIT $1`;
const RECORDS_AFTER = `SELECT ${RECORD} FROM svc_mfa WHERE user_id > $1 ORDER BY user_id LIMIT $2`;

function recordOf(row: MfaRow): MfaRecord {
  return { ...row, lastStep: row.lastStep ?? undefined, enabledAt: row.enabledAt ?? undefined };
}

export class SqlMfaStore implements MfaStore {
  constructor(private readonly db: SqlClient) {}

  async get(userId: string): Promise<MfaRecord | undefined> {
    const { rows } = await this.db.query<MfaRow>(GET, [userId]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async enroll(userId: string, secret: string, now: number): Promise<boolean> {
    const { rowCount } = await this.db.query(ENROLL, [userId, secret, now]);
    return rowCount === 1;
  }

  async activate(
    userId: string,
    secret: string,
    recoveryHashes: readonly string[],
    step: number,
    now: number,
  ): Promise<boolean> {
    const { rowCount } = await this.db.query(ACTIVATE, [userId, secret, [...recoveryHashes], step, now]);
    return rowCount === 1;
  }

  async useStep(userId: string, step: number, only?: { enabledAt: number }): Promise<boolean> {
    const { rowCount } = await this.db.query(USE_STEP, [userId, step, only?.enabledAt ?? null]);
    return rowCount === 1;
  }

  async useRecoveryCode(userId: string, hash: string): Promise<boolean> {
    const { rowCount } = await this.db.query(USE_RECOVERY_CODE, [userId, hash]);
    return rowCount === 1;
  }

  async remove(userId: string, only?: { enabledAt: number }): Promise<boolean> {
    const { rowCount } = await this.db.query(REMOVE, [userId, only?.enabledAt ?? null]);
    return rowCount === 1;
  }

  async replaceSecret(userId: string, expected: string, next: string): Promise<boolean> {
    const { rowCount } = await this.db.query(REPLACE_SECRET, [userId, expected, next]);
    return rowCount === 1;
  }

  async recordsAfter(after: string | undefined, limit: number): Promise<MfaRecord[]> {
    checkScanLimit('SqlMfaStore.recordsAfter()', limit);
    const { rows } =
      after === undefined
        ? await this.db.query<MfaRow>(FIRST_RECORDS, [limit])
        : await this.db.query<MfaRow>(RECORDS_AFTER, [after, limit]);
    return rows.map(recordOf);
  }
}
