// The file service (docs/files.md, "The service"): every operation resolves its tenant first, finds records
// only within that tenant (another tenant's id is simply not found), applies quarantine before touching the
// disk, and reports what happened through its events.
import { errors } from '../../../generated/modules/errors.js';
import { invalidOption } from '../../config/option-errors.js';
import { canStream } from '../disks/disk.js';
import { toPublicFile, type FileRecord, type ScanVerdict } from '../record.js';
import { sniffContentType } from '../sniff/sniff.js';
import type { FileStore } from '../store/store.js';
import type {
  DownloadOptions,
  FileService,
  FileServiceOptions,
  TemporaryUrl,
  TemporaryUrlOptions,
  TemporaryUrlQuery,
} from './api.js';
import { FileEvents } from './events.js';
import { resolveFileServiceOptions, type ResolvedFileServiceOptions } from './options.js';
import { assertReleased, checkedVerdict, scanProblemPatch, verdictPatch } from './quarantine.js';
import { contextTenantOf, resolveTenant } from './tenant-scope.js';
import { expirySeconds, requireSigningKey, signedUrl, verifiedGrant } from './temporary-url.js';
import { creationClock, uploadFile } from './upload.js';

export function createFileService(options: FileServiceOptions): FileService {
  const resolved = resolveFileServiceOptions(options);
  const config = { ...resolved, createdAt: creationClock(resolved.clock) };
  return serviceFor(config, new FileEvents(config.logger), undefined);
}

function serviceFor(
  config: ResolvedFileServiceOptions & { createdAt: () => number },
  events: FileEvents,
  contextTenant: string | undefined,
): FileService {
  const { disk, store, clock } = config;
  const tenantOf = (explicit: string | undefined) => resolveTenant(explicit, contextTenant, config.tenancy);

  async function recordIn(tenantId: string, id: string): Promise<FileRecord> {
    const record = typeof id === 'string' ? await store.get(tenantId, id) : undefined;
    if (record === undefined) throw errors.FILE_NOT_FOUND();
    return record;
  }

  async function releasedRecord(id: string, tenantId: string | undefined, options?: DownloadOptions) {
    const record = await recordIn(tenantOf(tenantId), id);
    if (options?.bypassQuarantine !== true) assertReleased(record, config.requireScan);
    return record;
  }

  async function updated(record: FileRecord, patch: Parameters<FileStore['update']>[2]) {
    const result = await store.update(record.tenantId, record.id, patch);
    // Deleted in between: as gone as if it had never been found.
    if (result === undefined) throw errors.FILE_NOT_FOUND();
    return result;
  }

  const service: FileService = {
    disk,
    requireScan: config.requireScan,

    async upload(content, input) {
      if (input === null || typeof input !== 'object') throw invalidOption('upload()', 'input', 'an object');
      const tenantId = tenantOf(input.tenantId);
      const file = await uploadFile(config, content, input, tenantId);
      await events.emit('file:uploaded', { file });
      return file;
    },

    async download(id, tenantId, options) {
      const record = await releasedRecord(id, tenantId, options);
      return { record, content: await disk.get(record.path) };
    },

    async downloadStream(id, tenantId, options) {
      if (!canStream(disk)) throw errors.STORAGE_GET_STREAM_UNSUPPORTED();
      const record = await releasedRecord(id, tenantId, options);
      return { record, stream: await disk.getStream(record.path) };
    },

    async temporaryUrl(id, expiresIn, tenantId, options?: TemporaryUrlOptions): Promise<TemporaryUrl> {
      const key = requireSigningKey(config.urlSigningKey);
      const seconds = expirySeconds(expiresIn);
      const disposition = options?.disposition ?? 'attachment';
      if (disposition !== 'attachment' && disposition !== 'inline') {
        throw invalidOption('temporaryUrl()', 'disposition', "'attachment' or 'inline'");
      }
      const record = await releasedRecord(id, tenantId);
      const expires = Math.floor(clock() / 1000) + seconds;
      const url = signedUrl(key, config.urlBase, {
        id: record.id,
        tenantId: record.tenantId,
        expires,
        disposition,
      });
      return { url, expiresAt: new Date(expires * 1000).toISOString() };
    },

    async openTemporaryUrl(query: TemporaryUrlQuery) {
      // The signed tenant is the grant: the link works without a request tenant (whoever holds it may read).
      const grant = verifiedGrant(requireSigningKey(config.urlSigningKey), query, clock());
      const record = await recordIn(grant.tenantId, grant.id);
      assertReleased(record, config.requireScan);
      return { record, disposition: grant.disposition };
    },

    async get(id, tenantId) {
      return recordIn(tenantOf(tenantId), id);
    },

    async list(tenantId, filter) {
      return store.list(
        tenantOf(tenantId),
        filter?.uploadedBy === undefined ? {} : { uploadedBy: filter.uploadedBy },
      );
    },

    async delete(id, tenantId) {
      const record = await recordIn(tenantOf(tenantId), id);
      // Bytes first, then the record: a crash in between leaves a record whose download answers 404 and whose
      // delete can be retried; the other order would leave bytes no record points to, which nothing ever
      // finds or removes (and a live record keeps counting against the quota until the bytes are gone).
      await disk.delete(record.path);
      // Of two concurrent deletes, only the one whose removal found the record reports it.
      const removed = await store.remove(record.tenantId, record.id);
      if (removed === undefined) throw errors.FILE_NOT_FOUND();
      await events.emit('file:deleted', { tenantId: removed.tenantId, id: removed.id });
    },

    async markScanned(id, result: ScanVerdict, tenantId) {
      const verdict = checkedVerdict(result);
      const record = await recordIn(tenantOf(tenantId), id);
      const file = await updated(record, verdictPatch(record, verdict, clock()));
      await events.emit('file:scanned', { file });
      return file;
    },

    async noteScanProblem(id, reason, tenantId) {
      const record = await recordIn(tenantOf(tenantId), id);
      await updated(record, scanProblemPatch(record, reason, clock()));
    },

    canStreamDownloads: () => canStream(disk),
    sniffContentType: (bytes) => sniffContentType(bytes),
    toPublicFile,
    forContext: (context) => serviceFor(config, events, contextTenantOf(context)),
    on: (event, handler) => events.on(event, handler),
  };
  return service;
}
