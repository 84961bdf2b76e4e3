// The file metadata store contract (docs/stores.md, "File metadata"). Besides the records it keeps the
// tenants' quota reservations: an upload reserves room before its bytes are written and turns the reservation
// into its record when they are. Every step that must not interleave is one atomic operation in every
// implementation (one SQL statement or transaction, one synchronous map update in memory): a reservation
// never takes room another one holds, a record is inserted and its reservation dropped together, and a record
// is removed once.
import type { FileRecord, ScanVerdict } from '../record.js';

export interface FileReservation {
  tenantId: string;
  /** Chosen by the caller (a UUID); reserving again under the same id grows the reservation. */
  reservationId: string;
  /** Bytes to add to the reservation (at least 0). */
  bytes: number;
  /**
   * The tenant's quota: the reservation is made only when the bytes of its records plus every live
   * reservation (this one included, after growing) stay at or below it. Undefined: no quota, always made.
   */
  limit?: number;
  /** Unix ms now; reservations whose `expiresAt` is at or before it count for nothing and may be deleted. */
  now: number;
  /** The reservation lives until `now + ttlMs` (renewed by each reserve under its id). */
  ttlMs: number;
}

/** What may change on a stored record: the scan verdict and the metadata (replaced whole). */
export interface FileRecordPatch {
  scannedAt?: string;
  scan?: ScanVerdict;
  metadata?: Record<string, unknown>;
}

export interface FileStore {
  /** Makes or grows a reservation as described on FileReservation; false (nothing changes) when over the limit. */
  reserve(reservation: FileReservation): Promise<boolean>;
  /**
   * Inserts the record and, when given, deletes the reservation in the same step (the record's size now
   * counts instead). A record with the same tenant and id already stored is an error.
   */
  commit(record: FileRecord, reservationId?: string): Promise<void>;
  /** Deletes a reservation; nothing happens when it is unknown. */
  release(reservationId: string): Promise<void>;
  /** The tenant's record with this id (a copy), or undefined. Another tenant's id answers undefined. */
  get(tenantId: string, id: string): Promise<FileRecord | undefined>;
  /** The tenant's records (copies), oldest first; with `uploadedBy`, only that user's. */
  list(tenantId: string, filter?: { uploadedBy?: string }): Promise<FileRecord[]>;
  /** Applies the patch and answers the updated record (a copy), or undefined when there is none. */
  update(tenantId: string, id: string, patch: FileRecordPatch): Promise<FileRecord | undefined>;
  /** Deletes the record and answers it; undefined when there was none (so of two removals, one wins). */
  remove(tenantId: string, id: string): Promise<FileRecord | undefined>;
  /** Bytes the tenant's records hold plus its live reservations at `now`. */
  usedBytes(tenantId: string, now: number): Promise<number>;
}
