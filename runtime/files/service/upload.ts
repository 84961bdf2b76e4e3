// The upload pipeline: name, declared length, type, quota, bytes, record, in an order that refuses as early
// as possible (before reading when the declaration already says no) and keeps nothing of a refused or
// failed upload (no record, no object, no reservation), with the sender stopped rather than drained.
import { randomUUID } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { invalidOption } from '../../config/option-errors.js';
import { isPositiveWholeNumber, nonNegativeWholeNumber } from '../../config/whole-number.js';
import { sanitizeFilename } from '../../http/upload/filename.js';
import { contentLengthMismatch, tooLarge } from '../disks/disk-errors.js';
import type { DiskPutResult } from '../disks/disk.js';
import { putLimits, readContent, type PutLimits } from '../disks/read-content.js';
import type { FileRecord } from '../record.js';
import { decideContentType, type ResolvedContentType } from '../sniff/resolve.js';
import { SNIFF_WINDOW_BYTES } from '../sniff/sniff.js';
import { normalizeContentType, typeAllowed } from '../sniff/types.js';
import type { UploadContent, UploadFileInput } from './api.js';
import { checkAllowedTypes, type ResolvedFileServiceOptions } from './options.js';
import { QuotaHold, quotaExceeded } from './quota.js';
import { storageKey } from './storage-key.js';
import { chainedContent, openSource, readWindow, type ContentSource } from './upload-source.js';

/** The name stored when sanitising leaves nothing. */
const FALLBACK_FILE_NAME = 'file';
const OWNER = 'upload()';

type UploadConfig = Pick<
  ResolvedFileServiceOptions,
  'disk' | 'store' | 'maxSize' | 'allowedTypes' | 'sniff' | 'maxTotalBytes' | 'checkQuota' | 'clock'
> & {
  /** The creation time of the next record (Unix ms). */
  createdAt: () => number;
};

/**
 * Creation times from `clock` that never repeat or go back within one service: records are listed oldest
 * first, and two uploads finishing in the same millisecond still list in the order they were stored.
 */
export function creationClock(clock: () => number): () => number {
  let last = -Infinity;
  return () => (last = Math.max(clock(), last + 1));
}

/** One upload in flight: what every step needs. */
interface Upload {
  config: UploadConfig;
  tenantId: string;
  key: string;
  declared: string;
  limits: PutLimits;
  hold: QuotaHold;
  source: ContentSource;
  /** The declared length, or the length of content given as bytes; reserved already. */
  knownSize: number | undefined;
  /** The content when it was given as bytes (nothing to read). */
  inMemory: Uint8Array | undefined;
  /** The caller's bound of an unknown size (`sizeAtMost`). */
  sizeAtMost: number | undefined;
  /** The caller's own allowed types, narrowing the service's; undefined allows what the service does. */
  allowedTypes: readonly string[] | undefined;
}

/** The bytes written and the type decided for them. */
interface Written {
  stored: DiskPutResult;
  type: ResolvedContentType;
}

/** Validates, reserves, writes and records one upload in `tenantId` (already resolved). */
export async function uploadFile(
  service: UploadConfig,
  content: UploadContent,
  input: UploadFileInput,
  tenantId: string,
): Promise<FileRecord> {
  const config = withCallerCap(service, input.maxBytes);
  // The caller computed the bound, so a bad one is its error (OPTION_INVALID), not the sender's.
  const sizeAtMost =
    input.sizeAtMost === undefined
      ? undefined
      : nonNegativeWholeNumber(input.sizeAtMost, 0, OWNER, 'sizeAtMost', 'bytes');
  const allowedTypes = checkAllowedTypes(input.allowedTypes, OWNER, 'allowedTypes');
  const source = openSource(content);
  const id = randomUUID();
  const key = storageKey(tenantId, id);
  const hold = new QuotaHold(config.store, tenantId, config.maxTotalBytes, config.maxSize, config.clock);
  let written = false;
  try {
    const name = sanitizeFilename(typeof input.name === 'string' ? input.name : '') || FALLBACK_FILE_NAME;
    // The disks' own check: a bad declared length is the sender's error, refused before a byte is read.
    const limits = putLimits('upload()', { contentLength: input.contentLength, signal: input.signal });
    const knownSize =
      limits.contentLength ?? (content instanceof Uint8Array ? content.byteLength : undefined);
    if (knownSize !== undefined && knownSize > config.maxSize) throw tooLarge('maxBytes');
    if (knownSize !== undefined) await hold.coverExactly(knownSize);
    const upload: Upload = {
      config,
      tenantId,
      key,
      declared: input.contentType ?? '',
      limits,
      hold,
      source,
      knownSize,
      inMemory: content instanceof Uint8Array ? content : undefined,
      sizeAtMost,
      allowedTypes,
    };
    // The size must be known before writing for a custom check; an unbounded file of unknown size is read
    // whole first so the quota can be reserved exactly; bytes already in memory need no streaming.
    const buffered =
      config.checkQuota !== undefined ||
      content instanceof Uint8Array ||
      (config.maxSize === Infinity && knownSize === undefined);
    const promise = buffered ? writeBuffered(upload) : writeStreamed(upload);
    // Set before awaiting: a put that fails has already removed its own partial object, and deleting a key
    // that holds nothing is harmless, so the cleanup below may run either way.
    written = true;
    const { stored, type } = await promise;
    limits.signal?.throwIfAborted();
    const record: FileRecord = {
      id,
      name,
      contentType: type.contentType,
      size: stored.size,
      createdAt: new Date(config.createdAt()).toISOString(),
      path: key,
      checksum: stored.checksum,
      tenantId,
    };
    if (input.uploadedBy !== undefined) record.uploadedBy = input.uploadedBy;
    if (type.declaredType !== undefined) record.metadata = { declaredType: type.declaredType };
    await hold.confirm();
    await config.store.commit(record, hold.reservationId);
    return record;
  } catch (error) {
    source.cancel();
    if (written) await config.disk.delete(key).catch(() => false);
    await hold.release();
    throw error;
  }
}

/**
 * The streamed path: at most the sniff window is held to decide the type, then the window and the rest flow
 * into the disk, the quota growing just before the bytes that need it. The disk enforces the cap and the
 * declared length as the chunks arrive.
 */
async function writeStreamed(upload: Upload): Promise<Written> {
  const { config, limits, hold, source } = upload;
  const held = config.sniff === false ? [] : await readWindow(source, SNIFF_WINDOW_BYTES, limits.signal);
  const type = await decideType(upload, windowBytes(held));
  // A bound of an unknown size is reserved whole when it fits, so this upload never needs to grow.
  if (upload.knownSize === undefined && upload.sizeAtMost !== undefined) {
    await hold.coverUpTo(Math.min(upload.sizeAtMost, config.maxSize));
  }
  let total = 0;
  const content = chainedContent(held, source, async (chunk) => {
    total += chunk.byteLength;
    // A declared length was reserved whole (this only renews it; past it the disk refuses the chunk), and
    // past the cap the disk refuses the chunk anyway.
    const needed = Math.min(total, limits.contentLength ?? total);
    if (total <= config.maxSize) await hold.cover(needed);
  });
  const stored = await config.disk.put(upload.key, content, putOptions(limits, config.maxSize));
  return { stored, type };
}

/**
 * The buffered path: the whole content is read (the cap, the declared length and the quota still bound it),
 * its exact size reserved and offered to `checkQuota`, then written.
 */
async function writeBuffered(upload: Upload): Promise<Written> {
  const { config, limits, hold, source, tenantId } = upload;
  const bytes = await readWhole(upload);
  if (limits.contentLength !== undefined && bytes.byteLength !== limits.contentLength) {
    throw contentLengthMismatch();
  }
  const type = await decideType(upload, bytes.subarray(0, SNIFF_WINDOW_BYTES));
  await hold.coverExactly(bytes.byteLength);
  if (config.checkQuota !== undefined) await config.checkQuota(tenantId, bytes.byteLength);
  source.cancel();
  const stored = await config.disk.put(upload.key, bytes, putOptions(limits, config.maxSize));
  return { stored, type };
}

/**
 * Reads all of the content into memory, never past the file cap nor, when the size is unknown, past what is
 * left of the tenant's quota (that would be refused anyway, so it is not worth holding).
 */
async function readWhole(upload: Upload): Promise<Uint8Array> {
  const { config, limits, source, tenantId } = upload;
  if (upload.inMemory !== undefined) return upload.inMemory;
  let cap = config.maxSize;
  let capIsQuota = false;
  // A known size is reserved already (and counted in the tenant's usage); only an unknown one needs the cap.
  if (config.maxTotalBytes !== undefined && upload.knownSize === undefined) {
    const left = Math.max(0, config.maxTotalBytes - (await config.store.usedBytes(tenantId, config.clock())));
    if (left < cap) [cap, capIsQuota] = [left, true];
  }
  const chunks: Uint8Array[] = [];
  const content = chainedContent([], source, async () => undefined);
  try {
    await readContent(content, { ...limits, maxBytes: cap }, (chunk) => {
      chunks.push(Uint8Array.from(chunk));
    });
  } catch (error) {
    if (capIsQuota && isTooLarge(error)) throw quotaExceeded();
    throw error;
  }
  return Buffer.concat(chunks);
}

/**
 * The stored type of the content whose first bytes are `window`, by the service's rules; the caller's own
 * `allowedTypes` then narrows the service's, matched the same way on the same (detected) type.
 */
async function decideType(upload: Upload, window: Uint8Array): Promise<ResolvedContentType> {
  const { config } = upload;
  const type = await decideContentType(window, {
    declared: upload.declared,
    sniff: config.sniff,
    allowedTypes: config.allowedTypes,
  });
  if (!typeAllowed(type.contentType, upload.allowedTypes)) {
    throw errors.FILE_TYPE_NOT_ALLOWED({ details: { contentType: normalizeContentType(type.contentType) } });
  }
  return type;
}

/**
 * The caller's own per-file cap (a route's `maxBytes`) lowers the service's for this upload, so a declared
 * length or a stream over it is refused before anything is reserved or written.
 */
function withCallerCap(config: UploadConfig, maxBytes: number | undefined): UploadConfig {
  if (maxBytes === undefined) return config;
  if (!isPositiveWholeNumber(maxBytes)) {
    throw invalidOption(OWNER, 'maxBytes', 'a whole number of bytes, 1 or more');
  }
  return maxBytes < config.maxSize ? { ...config, maxSize: maxBytes } : config;
}

function isTooLarge(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'FILE_TOO_LARGE';
}

function windowBytes(chunks: readonly Uint8Array[]): Uint8Array {
  const all = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
  return all.subarray(0, SNIFF_WINDOW_BYTES);
}

function putOptions(limits: PutLimits, maxSize: number) {
  return { contentLength: limits.contentLength, maxBytes: maxSize, signal: limits.signal };
}
