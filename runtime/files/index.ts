// The file service (docs/files.md): validated, sniffed, quota-checked uploads to tenant-isolated disks,
// quarantine until a virus scan, streamed downloads and signed URLs; its routes, plugin and module.
export { filesPlugin, filesOf, FILE_SERVICE, type FilesPluginOptions } from './plugin.js';
export { filesModule, DEFAULT_FILES_ROOT, type FilesModuleContext } from './config.js';
export { fileRoutes } from './http/routes.js';
export type {
  FilePresenter,
  FileRoutesOptions,
  FileUploadRouteOptions,
  FilesHandlers,
  FilesRouteId,
} from './http/route-options.js';
export { createFileService } from './service/service.js';
export {
  DEFAULT_MAX_FILE_SIZE,
  FILE_EVENT_NAMES,
  type DownloadOptions,
  type FileEventName,
  type FileEventPayloads,
  type FileService,
  type FileServiceOptions,
  type FileValidation,
  type TemporaryUrl,
  type TemporaryUrlOptions,
  type TemporaryUrlQuery,
  type UploadContent,
  type UploadFileInput,
} from './service/api.js';
export {
  INTERNAL_SCAN_KEY,
  SINGLE_TENANT,
  tenantArgumentOf,
  toPublicFile,
  type FileRecord,
  type PublicFile,
  type ScanProblem,
  type ScanVerdict,
} from './record.js';
export type { FileRecordPatch, FileReservation, FileStore } from './store/store.js';
export {
  MemoryFileStore,
  DEFAULT_MAX_MEMORY_FILE_RECORDS,
  type MemoryFileStoreOptions,
} from './store/memory-store.js';
export * from './disks/index.js';
export * from './sniff/index.js';
export * from './scan/index.js';
