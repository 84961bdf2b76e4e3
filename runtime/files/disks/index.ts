// Storage disks of the file service (docs/files.md, "Disks"): the contract and the built-in drivers.
export type { Disk, DiskContent, DiskPutOptions, DiskPutResult, StreamingDisk } from './disk.js';
export { canStream } from './disk.js';
export { localDisk, type LocalDisk, type LocalDiskOptions } from './local-disk.js';
export { putLimits, readContent, type PutLimits } from './read-content.js';
export { memoryDisk, type MemoryDisk, type MemoryDiskOptions } from './memory-disk.js';
export { assertStorageKey, MAX_STORAGE_KEY_LENGTH, MAX_STORAGE_KEY_SEGMENT_LENGTH } from './storage-key.js';
