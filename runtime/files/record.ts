// The file record the service keeps for each stored file, and the part of it a client may see. The record's
// server-side fields (where the bytes are, their checksum, the tenant, the uploader, the scanner's own words)
// never leave the server: routes answer the public projection.

/** The tenant key of an application without tenancy; a tenant id equal to it is refused. */
export const SINGLE_TENANT = '@single';

/**
 * The key in `metadata` the service keeps its own scan bookkeeping under (why a file is still quarantined).
 * The public projection drops it.
 */
export const INTERNAL_SCAN_KEY = 'svc:scan';

/** A scanner's verdict. `detail` is the engine's output (the signature name), kept server side. */
export interface ScanVerdict {
  clean: boolean;
  detail?: string;
}

/** What the service records when a scan could not give a verdict; the file stays quarantined. */
export interface ScanProblem {
  /** A short stable reason: 'scanner-unavailable', 'too-large-for-scanner', 'scanner-error', … */
  reason: string;
  /** ISO 8601 UTC time of the failed attempt. */
  at: string;
}

/** A stored file, as the service and its store keep it. Timestamps are ISO 8601 UTC strings. */
export interface FileRecord {
  /** A UUID. */
  id: string;
  /** The sanitised file name. */
  name: string;
  /** The declared type, or the detected one when sniffing recognised the content. */
  contentType: string;
  /** The measured size in bytes. */
  size: number;
  createdAt: string;
  /** The storage key on the disk (server side). */
  path: string;
  /** SHA-256 of the bytes, lowercase hex (server side). */
  checksum: string;
  /** The owner tenant, `@single` without tenancy (server side). */
  tenantId: string;
  /** The uploader's user id, when the upload had one (server side). */
  uploadedBy?: string;
  /** When a scan verdict was recorded. */
  scannedAt?: string;
  scan?: ScanVerdict;
  /** `declaredType` when sniffing replaced the claim; the service's scan bookkeeping under INTERNAL_SCAN_KEY. */
  metadata?: Record<string, unknown>;
}

/**
 * How server-side code holding a record names its tenant to the service: the tenant id, or nothing for the
 * single-tenant key (the service takes `@single` only implicitly and refuses it as an argument).
 */
export function tenantArgumentOf(record: FileRecord): string | undefined {
  return record.tenantId === SINGLE_TENANT ? undefined : record.tenantId;
}

/** What routes answer about a file (unless the application shapes it with `present`). */
export interface PublicFile {
  id: string;
  name: string;
  contentType: string;
  size: number;
  createdAt: string;
  scannedAt?: string;
  scan?: { clean: boolean };
  metadata?: Record<string, unknown>;
}

/** The public projection: no storage key, checksum, tenant, uploader or scan detail; no internal metadata. */
export function toPublicFile(record: FileRecord): PublicFile {
  const file: PublicFile = {
    id: record.id,
    name: record.name,
    contentType: record.contentType,
    size: record.size,
    createdAt: record.createdAt,
  };
  if (record.scannedAt !== undefined) file.scannedAt = record.scannedAt;
  if (record.scan !== undefined) file.scan = { clean: record.scan.clean };
  if (record.metadata !== undefined) {
    const metadata: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(record.metadata)) {
      if (key !== INTERNAL_SCAN_KEY) metadata[key] = value;
    }
    if (Object.keys(metadata).length > 0) file.metadata = metadata;
  }
  return file;
}
