// FileStore on svc_files and svc_file_reservations.
//
// The quota must hold on any number of processes: two uploads of one tenant reserving at once must not both
// take the last room. So a reservation is one transaction that first takes a transaction-scoped advisory lock
// of its tenant, in a statement of its own (a READ COMMITTED statement reads the snapshot taken when it starts,
// so the sum must start after the wait), then sums the tenant's records and live reservations and makes or
// grows the reservation in one statement: reservations of one tenant queue on the lock, each seeing what the
// previous one committed. Commits need no lock: a commit inserts the record and deletes its reservation in one
// statement, so a reservation's sum sees either the reservation or the record that replaced it, never neither
// and never both. Removal is one DELETE … RETURNING (of two at once, one gets the record).
//
// On a database whose default isolation is REPEATABLE READ or SERIALIZABLE, a lone statement that meets a
// concurrent write of the same row fails with a serialization error instead of waiting and reading it; such a
// statement is simply run again, and then reads what the other committed (the second removal answers
// undefined, the second commit of an id is refused).
import type { FileRecord } from '../../files/record.js';
import type { FileRecordPatch, FileReservation, FileStore } from '../../files/store/store.js';
import type { SqlClient, SqlResult } from './client.js';
import { sqlState } from './unavailable.js';

/** Columns as the record's fields, times in epoch ms; NULL for what a record leaves out. */
const RECORD = `id, name, content_type AS "contentType", size, created_at AS "createdAt", path, checksum,
  tenant_id AS "tenantId", uploaded_by AS "uploadedBy", scanned_at AS "scannedAt", scan_clean AS "scanClean",
  scan_detail AS "scanDetail", metadata`;

interface FileRow {
  id: string;
  name: string;
  contentType: string;
  size: number;
  createdAt: number;
  path: string;
  checksum: string;
  tenantId: string;
  uploadedBy: string | null;
  scannedAt: number | null;
  scanClean: boolean | null;
  scanDetail: string | null;
  metadata: Record<string, unknown> | null;
}

// Metadata travels as text cast to jsonb: both drivers then send it as written, never re-encoded.
// Nothing is inserted when the tenant holds the id already; the reservation is deleted only when the record
// was inserted, so a refused commit leaves it in place.
const COMMIT = `WITH inserted AS (
    INSERT INTO svc_files (tenant_id, id, name, content_type, size, created_at, path, checksum, uploaded_by,
      scanned_at, scan_clean, scan_detail, metadata)
    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13::text::jsonb)
    ON CONFLICT (tenant_id, id) DO NOTHING
    RETURNING 1
  ),
  released AS (
    DELETE FROM svc_file_reservations WHERE id = $14::text AND EXISTS (SELECT 1 FROM inserted)
  )
  SELECT count(*)::int AS inserted FROM inserted`;

const RELEASE = `DELETE FROM svc_file_reservations WHERE id = $1`;

const GET = `SELECT ${RECORD} FROM svc_files WHERE tenant_id = $1 AND id = $2`;

// $2 NULL: every uploader's.
const LIST = `SELECT ${RECORD} FROM svc_files
  WHERE tenant_id = $1 AND ($2::text IS NULL OR uploaded_by = $2::text)
  ORDER BY created_at, id`;

// A field left out of the patch ($n NULL) keeps its column; a scan replaces verdict and detail together.
const UPDATE = `UPDATE svc_files SET
    scanned_at = coalesce($3::bigint, scanned_at),
    scan_clean = coalesce($4::boolean, scan_clean),
    scan_detail = CASE WHEN $4::boolean IS NULL THEN scan_detail ELSE $5::text END,
    metadata = coalesce($6::text::jsonb, metadata)
  WHERE tenant_id = $1 AND id = $2
  RETURNING ${RECORD}`;

const REMOVE = `DELETE FROM svc_files WHERE tenant_id = $1 AND id = $2 RETURNING ${RECORD}`;

/** The bytes of the tenant's ($1) records plus its reservations live at $2. */
const USED = `(SELECT coalesce(sum(size), 0) FROM svc_files WHERE tenant_id = $1)::bigint
  + (SELECT coalesce(sum(bytes), 0) FROM svc_file_reservations WHERE tenant_id = $1 AND expires_at > $2)::bigint`;

const USED_BYTES = `SELECT ${USED} AS used`;

const READ_COMMITTED = 'SET TRANSACTION ISOLATION LEVEL READ COMMITTED';

// Reservations of one tenant queue on this lock. The tenant is hashed with a prefix of its own, so no tenant
// id can take another store's lock.
const LOCK_TENANT = `SELECT pg_advisory_xact_lock(hashtextextended('svc:file-quota:' || $1::text, 0))`;

// After LOCK_TENANT, one statement: the sum, the check against the limit ($5, NULL for none), and the insert
// or growth (an expired reservation under the id grows from 0). "heldBy" names the tenant already holding the
// id: another tenant's makes nothing (the caller reused an id, a bug).
const RESERVE = `WITH held AS (
    SELECT tenant_id FROM svc_file_reservations WHERE id = $3::text
  ),
  made AS (
    INSERT INTO svc_file_reservations AS r (id, tenant_id, bytes, expires_at)
    SELECT $3::text, $1::text, $4::bigint, $6::bigint
    WHERE ($5::bigint IS NULL OR ${USED} + $4::bigint <= $5::bigint)
      AND NOT EXISTS (SELECT 1 FROM held WHERE tenant_id <> $1::text)
    ON CONFLICT (id) DO UPDATE SET
      bytes = CASE WHEN r.expires_at > $2::bigint THEN r.bytes ELSE 0 END + EXCLUDED.bytes,
      expires_at = EXCLUDED.expires_at
    WHERE r.tenant_id = EXCLUDED.tenant_id
    RETURNING 1
  )
  SELECT (SELECT tenant_id FROM held) AS "heldBy", EXISTS (SELECT 1 FROM made) AS made`;

/** Epoch ms of an ISO 8601 time that reads back as written (`Date#toISOString`), else a TypeError. */
function epochMs(iso: string, field: string): number {
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || new Date(ms).toISOString() !== iso) {
    throw new TypeError(
      `SqlFileStore: ${field} must be an ISO 8601 UTC time with milliseconds (Date#toISOString), got ${JSON.stringify(iso)}.`,
    );
  }
  return ms;
}

function recordOf(row: FileRow): FileRecord {
  const record: FileRecord = {
    id: row.id,
    name: row.name,
    contentType: row.contentType,
    size: row.size,
    createdAt: new Date(row.createdAt).toISOString(),
    path: row.path,
    checksum: row.checksum,
    tenantId: row.tenantId,
  };
  if (row.uploadedBy !== null) record.uploadedBy = row.uploadedBy;
  if (row.scannedAt !== null) record.scannedAt = new Date(row.scannedAt).toISOString();
  if (row.scanClean !== null) {
    record.scan =
      row.scanDetail === null ? { clean: row.scanClean } : { clean: row.scanClean, detail: row.scanDetail };
  }
  if (row.metadata !== null) record.metadata = row.metadata;
  return record;
}

/** SQLSTATE serialization_failure. */
const SERIALIZATION_FAILURE = '40001';
const STATEMENT_ATTEMPTS = 3;

function metadataText(metadata: Record<string, unknown> | undefined): string | null {
  return metadata === undefined ? null : JSON.stringify(metadata);
}

export class SqlFileStore implements FileStore {
  constructor(private readonly db: SqlClient) {}

  /** One statement, its own transaction, run again when it lost to a concurrent write (see the top). */
  private async statement<Row>(text: string, params: readonly unknown[]): Promise<SqlResult<Row>> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.db.query<Row>(text, params);
      } catch (error) {
        if (attempt >= STATEMENT_ATTEMPTS || sqlState(error) !== SERIALIZATION_FAILURE) throw error;
      }
    }
  }

  async reserve(reservation: FileReservation): Promise<boolean> {
    const { tenantId, reservationId, bytes, limit, now, ttlMs } = reservation;
    const values = [tenantId, now, reservationId, bytes, limit ?? null, now + ttlMs];
    const row = await this.db.transaction(async (tx) => {
      // Under a REPEATABLE READ default the sum would read a snapshot older than the lock wait.
      await tx.query(READ_COMMITTED);
      await tx.query(LOCK_TENANT, [tenantId]);
      const { rows } = await tx.query<{ heldBy: string | null; made: boolean }>(RESERVE, values);
      return rows[0]!;
    });
    if (row.heldBy !== null && row.heldBy !== tenantId) {
      throw new Error('SqlFileStore: a reservation id was reused for another tenant.');
    }
    return row.made;
  }

  async commit(record: FileRecord, reservationId?: string): Promise<void> {
    const { rows } = await this.statement<{ inserted: number }>(COMMIT, [
      record.tenantId,
      record.id,
      record.name,
      record.contentType,
      record.size,
      epochMs(record.createdAt, 'createdAt'),
      record.path,
      record.checksum,
      record.uploadedBy ?? null,
      record.scannedAt === undefined ? null : epochMs(record.scannedAt, 'scannedAt'),
      record.scan?.clean ?? null,
      record.scan?.detail ?? null,
      metadataText(record.metadata),
      reservationId ?? null,
    ]);
    if (rows[0]?.inserted !== 1) {
      throw new Error('SqlFileStore: a record with this tenant and id is stored already.');
    }
  }

  async release(reservationId: string): Promise<void> {
    await this.statement(RELEASE, [reservationId]);
  }

  async get(tenantId: string, id: string): Promise<FileRecord | undefined> {
    const { rows } = await this.db.query<FileRow>(GET, [tenantId, id]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async list(tenantId: string, filter: { uploadedBy?: string } = {}): Promise<FileRecord[]> {
    const { rows } = await this.db.query<FileRow>(LIST, [tenantId, filter.uploadedBy ?? null]);
    return rows.map(recordOf);
  }

  async update(tenantId: string, id: string, patch: FileRecordPatch): Promise<FileRecord | undefined> {
    const { rows } = await this.statement<FileRow>(UPDATE, [
      tenantId,
      id,
      patch.scannedAt === undefined ? null : epochMs(patch.scannedAt, 'scannedAt'),
      patch.scan?.clean ?? null,
      patch.scan?.detail ?? null,
      metadataText(patch.metadata),
    ]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async remove(tenantId: string, id: string): Promise<FileRecord | undefined> {
    const { rows } = await this.statement<FileRow>(REMOVE, [tenantId, id]);
    return rows[0] === undefined ? undefined : recordOf(rows[0]);
  }

  async usedBytes(tenantId: string, now: number): Promise<number> {
    const { rows } = await this.db.query<{ used: number }>(USED_BYTES, [tenantId, now]);
    return rows[0]!.used;
  }
}
