// What the file service offers (docs/files.md, "The service"): the contract the routes, the scanner and
// applications program against. `createFileService` in service.ts implements it; `filesPlugin` makes one.
import type { Readable } from 'node:stream';
import type { Logger } from '../../log/logger.js';
import type { Disk, DiskContent } from '../disks/disk.js';
import type { FileRecord, PublicFile, ScanVerdict } from '../record.js';
import type { SniffOption } from '../sniff/resolve.js';
import type { FileStore } from '../store/store.js';

/** 25 MiB: the per-file cap when `validate.maxSize` is not given. */
export const DEFAULT_MAX_FILE_SIZE = 26_214_400;

export interface FileValidation {
  /** Per-file cap in bytes; `Infinity` disables it. Default DEFAULT_MAX_FILE_SIZE. */
  maxSize?: number;
  /** Exact types or a trailing wildcard (`image/*`); default any. */
  allowedTypes?: readonly string[];
  /** false (default), true for the built-in signature table, or a custom sniffer. */
  sniff?: SniffOption;
}

export interface FileServiceOptions {
  disk: Disk;
  validate?: FileValidation;
  /** Per-tenant quota in bytes; default none. */
  maxTotalBytes?: number;
  /** A custom check after the built-in quota, given the upload's size; throw to refuse. */
  checkQuota?: (tenantId: string, size: number) => void | Promise<void>;
  /** Quarantine: no download or URL before a clean scan. Default false. */
  requireScan?: boolean;
  /** Metadata store; default a MemoryFileStore. */
  store?: FileStore;
  /**
   * Whether a tenancy plugin decides tenants: then an operation without a tenant fails (FILE_TENANT_REQUIRED)
   * instead of using `@single`. filesPlugin sets it when the app registers tenancy.
   */
  tenancy?: boolean;
  /** The key temporary URLs are signed with (at least 32 bytes); required for temporaryUrl. */
  urlSigningKey?: Uint8Array;
  /** Prefix of temporary URLs (an absolute origin and path, or a path); default '' (a path such as /files/…). */
  urlBase?: string;
  /** Unix ms; default Date.now. */
  clock?: () => number;
  /** Where a failing event handler is reported (the operation itself has succeeded); default the JSON logger. */
  logger?: Logger;
}

/** `upload(content, input)`: what the caller says about the file. */
export interface UploadFileInput {
  /** The file name as given; stored sanitised (no directories, control or bidi characters, ≤ 255 bytes). */
  name: string;
  /** The declared type; default application/octet-stream. */
  contentType?: string;
  /** Default the context's tenant (or `@single` without tenancy). */
  tenantId?: string;
  uploadedBy?: string;
  /** The client-declared size: checked before reading, and the bytes must match it. */
  contentLength?: number;
  /** Aborts the upload: nothing is kept. */
  signal?: AbortSignal;
  /**
   * A per-file cap for this upload below `validate.maxSize` (a route's own limit): a larger declared length
   * or stream is refused with FILE_TOO_LARGE, before any room is reserved for it.
   */
  maxBytes?: number;
  /**
   * An upper bound of the content's size when the exact one is unknown (a multipart part of a request that
   * declared its length): a whole number of bytes, 0 or more. A stream of unknown size then reserves room in
   * the tenant's quota for this many bytes (never more than the per-file cap) in one step, so concurrent
   * uploads cannot crowd each other out with partial reservations; when that does not fit it grows its
   * reservation as its bytes arrive. A bound, not a check: content past it is neither refused nor cut.
   * Ignored when `contentLength` is given.
   */
  sizeAtMost?: number;
  /**
   * Types this upload accepts (a route's own list), on top of `validate.allowedTypes`: exact types or a
   * trailing wildcard (`image/*`), matched like it against the stored type (the detected one when sniffing);
   * outside either list is FILE_TYPE_NOT_ALLOWED.
   */
  allowedTypes?: readonly string[];
}

export type UploadContent = DiskContent;

export interface DownloadOptions {
  /** For the scanner only: read a quarantined file's bytes. */
  bypassQuarantine?: boolean;
}

export interface TemporaryUrlOptions {
  /** `attachment` (default) or `inline`, chosen deliberately. */
  disposition?: 'attachment' | 'inline';
}

export interface TemporaryUrl {
  url: string;
  /** ISO 8601 UTC. */
  expiresAt: string;
}

/** The query of a temporary URL, as its route receives it. */
export interface TemporaryUrlQuery {
  id: string;
  tenant: string;
  expires: string;
  disposition: string;
  signature: string;
}

export interface FileService {
  readonly disk: Disk;
  readonly requireScan: boolean;
  /** Validates, checks the quota, writes the bytes and records them; emits `file:uploaded`. */
  upload(content: UploadContent, input: UploadFileInput): Promise<FileRecord>;
  /** The whole file; quarantine refuses (423 / 403) unless bypassed. */
  download(
    id: string,
    tenantId?: string,
    options?: DownloadOptions,
  ): Promise<{ record: FileRecord; content: Buffer }>;
  /** The file as a stream the caller must consume or destroy; STORAGE_GET_STREAM_UNSUPPORTED when the disk cannot. */
  downloadStream(
    id: string,
    tenantId?: string,
    options?: DownloadOptions,
  ): Promise<{ record: FileRecord; stream: Readable }>;
  /** A signed URL for the file's content; `expiresIn` in seconds or a duration string ('15m'). */
  temporaryUrl(
    id: string,
    expiresIn: number | string,
    tenantId?: string,
    options?: TemporaryUrlOptions,
  ): Promise<TemporaryUrl>;
  /** Checks a temporary URL's query: the record and the disposition it grants; FILE_URL_INVALID otherwise. */
  openTemporaryUrl(
    query: TemporaryUrlQuery,
  ): Promise<{ record: FileRecord; disposition: 'attachment' | 'inline' }>;
  get(id: string, tenantId?: string): Promise<FileRecord>;
  /** The tenant's records, oldest first; with `uploadedBy`, only that user's. */
  list(tenantId?: string, filter?: { uploadedBy?: string }): Promise<FileRecord[]>;
  /** Deletes bytes and record; emits `file:deleted`. */
  delete(id: string, tenantId?: string): Promise<void>;
  /** Records a verdict; emits `file:scanned`. */
  markScanned(id: string, result: ScanVerdict, tenantId?: string): Promise<FileRecord>;
  /** Records why a scan gave no verdict (the file stays quarantined) under the internal scan entry. */
  noteScanProblem(id: string, reason: string, tenantId?: string): Promise<void>;
  canStreamDownloads(): boolean;
  sniffContentType(bytes: Uint8Array): Promise<string | null>;
  toPublicFile(record: FileRecord): PublicFile;
  /** The same service with `context`'s tenant as the context tenant (what routes use). */
  forContext(context: { tenant?: unknown }): FileService;
  /** Subscribes to the service's events (also forwarded to the app's hook bus by filesPlugin). */
  on<E extends FileEventName>(
    event: E,
    handler: (payload: FileEventPayloads[E]) => void | Promise<void>,
  ): () => void;
}

export interface FileEventPayloads {
  /** After the bytes were written and the record stored (the full record). */
  'file:uploaded': { file: FileRecord };
  'file:deleted': { tenantId: string; id: string };
  'file:scanned': { file: FileRecord };
}

export type FileEventName = keyof FileEventPayloads;

export const FILE_EVENT_NAMES: readonly FileEventName[] = ['file:uploaded', 'file:deleted', 'file:scanned'];
