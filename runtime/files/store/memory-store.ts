// The in-memory file metadata store: records live as long as the process (the bytes on a local disk outlive
// them), for tests, development and single-process services. Each operation is synchronous up to its answer,
// so reserve, commit and remove are atomic in one process. Records are never evicted (that would lose files):
// past `maxRecords` a new record is refused with FILE_STORE_FULL. Reservations end when committed, released
// or expired; expired ones (of every tenant) are dropped whenever a tenant's usage is computed.
import { errors } from '../../../generated/modules/errors.js';
import { positiveWholeNumber } from '../../config/whole-number.js';
import { rejectUnknownOptions } from '../../config/known-options.js';
import type { FileRecord } from '../record.js';
import type { FileRecordPatch, FileReservation, FileStore } from './store.js';

export interface MemoryFileStoreOptions {
  /** Records held at most; default 100 000. */
  maxRecords?: number;
}

export const DEFAULT_MAX_MEMORY_FILE_RECORDS = 100_000;

interface Reservation {
  tenantId: string;
  bytes: number;
  expiresAt: number;
}

function copy(record: FileRecord): FileRecord {
  const copied: FileRecord = { ...record };
  if (record.scan !== undefined) copied.scan = { ...record.scan };
  if (record.metadata !== undefined) copied.metadata = structuredClone(record.metadata);
  return copied;
}

/** By creation time, then id (code point order), as the SQL store lists. */
function oldestFirst(a: FileRecord, b: FileRecord): number {
  const byTime = Date.parse(a.createdAt) - Date.parse(b.createdAt);
  if (byTime !== 0) return byTime;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}

export class MemoryFileStore implements FileStore {
  private readonly maxRecords: number;
  /** tenant → id → record, in commit order (list sorts them by creation). */
  private readonly records = new Map<string, Map<string, FileRecord>>();
  private readonly storedBytes = new Map<string, number>();
  private readonly reservations = new Map<string, Reservation>();
  private recordCount = 0;

  constructor(options: MemoryFileStoreOptions = {}) {
    rejectUnknownOptions(options, ['maxRecords'], 'MemoryFileStore');
    this.maxRecords = positiveWholeNumber(
      options.maxRecords,
      DEFAULT_MAX_MEMORY_FILE_RECORDS,
      'MemoryFileStore',
      'maxRecords',
    );
  }

  async reserve(reservation: FileReservation): Promise<boolean> {
    const { tenantId, reservationId, bytes, limit, now, ttlMs } = reservation;
    const existing = this.reservations.get(reservationId);
    if (existing !== undefined && existing.tenantId !== tenantId) {
      throw new Error('MemoryFileStore: a reservation id was reused for another tenant.');
    }
    if (limit !== undefined && this.used(tenantId, now) + bytes > limit) return false;
    const held = existing !== undefined && existing.expiresAt > now ? existing.bytes : 0;
    this.reservations.set(reservationId, { tenantId, bytes: held + bytes, expiresAt: now + ttlMs });
    return true;
  }

  async commit(record: FileRecord, reservationId?: string): Promise<void> {
    let tenant = this.records.get(record.tenantId);
    if (tenant?.has(record.id) === true) {
      throw new Error('MemoryFileStore: a record with this tenant and id is stored already.');
    }
    if (this.recordCount >= this.maxRecords) throw errors.FILE_STORE_FULL();
    if (tenant === undefined) this.records.set(record.tenantId, (tenant = new Map()));
    tenant.set(record.id, copy(record));
    this.recordCount++;
    this.storedBytes.set(record.tenantId, (this.storedBytes.get(record.tenantId) ?? 0) + record.size);
    if (reservationId !== undefined) this.reservations.delete(reservationId);
  }

  async release(reservationId: string): Promise<void> {
    this.reservations.delete(reservationId);
  }

  async get(tenantId: string, id: string): Promise<FileRecord | undefined> {
    const record = this.records.get(tenantId)?.get(id);
    return record === undefined ? undefined : copy(record);
  }

  async list(tenantId: string, filter: { uploadedBy?: string } = {}): Promise<FileRecord[]> {
    const tenant = this.records.get(tenantId);
    if (tenant === undefined) return [];
    const records: FileRecord[] = [];
    for (const record of tenant.values()) {
      if (filter.uploadedBy === undefined || record.uploadedBy === filter.uploadedBy)
        records.push(copy(record));
    }
    // Insertion order is commit order, not creation order: an upload that started first may finish last.
    return records.sort(oldestFirst);
  }

  async update(tenantId: string, id: string, patch: FileRecordPatch): Promise<FileRecord | undefined> {
    const record = this.records.get(tenantId)?.get(id);
    if (record === undefined) return undefined;
    if (patch.scannedAt !== undefined) record.scannedAt = patch.scannedAt;
    if (patch.scan !== undefined) record.scan = { ...patch.scan };
    if (patch.metadata !== undefined) record.metadata = structuredClone(patch.metadata);
    return copy(record);
  }

  async remove(tenantId: string, id: string): Promise<FileRecord | undefined> {
    const tenant = this.records.get(tenantId);
    const record = tenant?.get(id);
    if (tenant === undefined || record === undefined) return undefined;
    tenant.delete(id);
    if (tenant.size === 0) this.records.delete(tenantId);
    this.recordCount--;
    const left = (this.storedBytes.get(tenantId) ?? 0) - record.size;
    if (left > 0) this.storedBytes.set(tenantId, left);
    else this.storedBytes.delete(tenantId);
    return record;
  }

  async usedBytes(tenantId: string, now: number): Promise<number> {
    return this.used(tenantId, now);
  }

  private used(tenantId: string, now: number): number {
    let reserved = 0;
    for (const [id, reservation] of this.reservations) {
      if (reservation.expiresAt <= now) {
        this.reservations.delete(id);
        continue;
      }
      if (reservation.tenantId === tenantId) reserved += reservation.bytes;
    }
    return (this.storedBytes.get(tenantId) ?? 0) + reserved;
  }
}
