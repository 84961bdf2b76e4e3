// Migration 11: file metadata. svc_files holds the records of stored files (durable data: nothing expires,
// nothing is swept; a record goes when its file is deleted). svc_file_reservations holds the room uploads in
// progress have taken from their tenant's quota: each lives minutes, counts for nothing once expired, and is
// swept. Times are BIGINT epoch milliseconds, as everywhere: the record's ISO 8601 strings are converted at
// the store, so ordering and comparison never depend on text formats or the database's time zone.
export const sql = `
CREATE TABLE svc_files (
  -- Ids and tenants compared byte for byte whatever the database's locale. A file's id is unique within its
  -- tenant: the same id in two tenants is two files.
  tenant_id text COLLATE "C" NOT NULL,
  id text COLLATE "C" NOT NULL,
  name text NOT NULL,
  content_type text NOT NULL,
  size bigint NOT NULL CHECK (size >= 0),
  created_at bigint NOT NULL,
  -- The storage key on the disk and the SHA-256 of the bytes (lowercase hex).
  path text NOT NULL,
  checksum text NOT NULL,
  -- NULL: uploaded without a user.
  uploaded_by text COLLATE "C",
  -- NULL until a scan verdict is recorded.
  scanned_at bigint,
  scan_clean boolean,
  -- The engine's words; only with a verdict.
  scan_detail text CHECK (scan_detail IS NULL OR scan_clean IS NOT NULL),
  metadata jsonb,
  PRIMARY KEY (tenant_id, id)
);
-- A tenant's files oldest first (list), and one uploader's (list with uploadedBy).
CREATE INDEX svc_files_tenant_created ON svc_files (tenant_id, created_at, id);
CREATE INDEX svc_files_tenant_uploader ON svc_files (tenant_id, uploaded_by, created_at, id);

CREATE TABLE svc_file_reservations (
  -- Chosen by the upload (a UUID); reserving again under it grows the reservation.
  id text COLLATE "C" PRIMARY KEY,
  tenant_id text COLLATE "C" NOT NULL,
  bytes bigint NOT NULL CHECK (bytes >= 0),
  expires_at bigint NOT NULL
);
-- A tenant's live reservations (the quota's sum), and the sweeper's expired ones.
CREATE INDEX svc_file_reservations_tenant ON svc_file_reservations (tenant_id, expires_at);
CREATE INDEX svc_file_reservations_expires_at ON svc_file_reservations (expires_at);
`;
