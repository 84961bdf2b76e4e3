// Virus scanning for the file service (docs/files.md, "Scanning"): the clamd scanner and the runner that scans
// every upload and records the verdict or the reason there is none.
export {
  attachScanner,
  type AttachedScanner,
  type AttachScannerOptions,
  type FileScanResult,
  type ScanSummary,
} from './attach-scanner.js';
export {
  clamdScanner,
  CLAMD_SCANNER_DEFAULTS,
  toScanResult,
  type ClamdScannerOptions,
  type FileScanner,
  type ScanProblemReason,
  type ScanResult,
} from './scanner.js';
export {
  clamdInstream,
  DEFAULT_CHUNK_BYTES,
  type ClamdInstreamOptions,
  type ScanContent,
} from './clamd-client.js';
export { parseClamdReply, type ClamdScanOutcome } from './clamd-reply.js';
export { CLAMD_DEFAULT_PORT, describeClamdAddress, parseClamdUrl, type ClamdAddress } from './clamd-url.js';
