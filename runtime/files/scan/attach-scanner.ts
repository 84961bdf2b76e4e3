// The runner between the file service and a scanner: every `file:uploaded` queues a scan and returns at
// once (an upload never waits for clamd), the queue runs `scanner.concurrency` scans at a time, and each scan
// ends in exactly one record change: a verdict (`markScanned`) or the reason there is none
// (`noteScanProblem`, the file stays quarantined). Nothing here throws into the service: a file deleted
// meanwhile is skipped, anything else is logged.
import { errorFields } from '../../log/error-fields.js';
import { isLogger, type Logger } from '../../log/logger.js';
import { defaultLogger } from '../../log/json-logger.js';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption } from '../../config/option-errors.js';
import { tenantArgumentOf, type FileRecord } from '../record.js';
import type { FileService } from '../service/api.js';
import type { ScanContent } from './clamd-client.js';
import type { FileScanner, ScanResult } from './scanner.js';
import { TaskQueue } from './task-queue.js';

export interface AttachScannerOptions {
  /** Where the warn line of each scan problem goes. Default the JSON logger on stderr. */
  logger?: Logger;
}

/** What a scan of one stored file came to; `skipped` when the file was deleted before its verdict. */
export type FileScanResult = ScanResult | { verdict: 'skipped' };

export interface ScanSummary {
  clean: number;
  infected: number;
  /** Files still quarantined because the scan gave no verdict (see the log for each). */
  problems: number;
  /** Files deleted before their scan finished. */
  skipped: number;
}

export interface AttachedScanner {
  /**
   * Scans one stored file now (queued behind running scans) and records the outcome, whatever its earlier
   * verdict: for a file a problem left quarantined, or after the scanner's signatures changed. Rejects with
   * FILE_NOT_FOUND when there is no such file in the tenant.
   */
  rescan(id: string, tenantId?: string): Promise<FileScanResult>;
  /** Scans every file of the tenant that has no verdict yet (uploaded while clamd was down, too large…). */
  scanPending(tenantId?: string): Promise<ScanSummary>;
  /** Resolves once no scan runs or waits. */
  idle(): Promise<void>;
  /** Stops scanning new uploads; scans already queued still finish (await `idle()`). */
  detach(): void;
}

const OWNER = 'attachScanner()';
const OPTIONS = optionKeys<AttachScannerOptions>({ logger: true });

/** Scans every upload of `files` with `scanner` from now on. */
export function attachScanner(
  files: FileService,
  scanner: FileScanner,
  options: AttachScannerOptions = {},
): AttachedScanner {
  rejectUnknownOptions(options, OPTIONS, OWNER);
  if (options.logger !== undefined && !isLogger(options.logger)) {
    throw invalidOption(OWNER, 'logger', 'a Logger (debug, info, warn and error methods)');
  }
  const logger = options.logger ?? defaultLogger;
  const queue = new TaskQueue(scanner.concurrency);

  const scanQueued = (record: FileRecord) => queue.run(() => scanStoredFile(files, scanner, logger, record));

  const unsubscribe = files.on('file:uploaded', ({ file }) => {
    // Not awaited: the upload answers while the scan waits its turn. Only a logger that throws could make a
    // scan reject, and that must not become an unhandled rejection.
    scanQueued(file).catch(() => undefined);
  });

  return {
    async rescan(id, tenantId) {
      return scanQueued(await files.get(id, tenantId));
    },
    async scanPending(tenantId) {
      const pending = (await files.list(tenantId)).filter((record) => record.scan === undefined);
      const results = await Promise.all(pending.map(scanQueued));
      const summary: ScanSummary = { clean: 0, infected: 0, problems: 0, skipped: 0 };
      for (const result of results) {
        if (result.verdict === 'none') summary.problems++;
        else summary[result.verdict]++;
      }
      return summary;
    },
    idle: () => queue.idle(),
    detach: unsubscribe,
  };
}

/** Scans one file and records the outcome. Never rejects. */
async function scanStoredFile(
  files: FileService,
  scanner: FileScanner,
  logger: Logger,
  record: FileRecord,
): Promise<FileScanResult> {
  const file = { fileId: record.id, tenantId: record.tenantId, size: record.size, scanner: scanner.name };
  const tenantId = tenantArgumentOf(record);
  let result: ScanResult;
  try {
    result =
      record.size > scanner.maxStreamBytes
        ? {
            verdict: 'none',
            reason: 'too-large-for-scanner',
            message: `${record.size} bytes is more than maxStreamBytes (${scanner.maxStreamBytes})`,
          }
        : await scanner.scan(await quarantinedContent(files, record.id, tenantId));
  } catch (error) {
    if (isFileNotFound(error)) return skipped(logger, file);
    logger.warn('file scan could not read the file', { ...file, error: errorFields(error) });
    result = { verdict: 'none', reason: 'scanner-error', message: 'reading the file failed' };
  }
  try {
    if (result.verdict === 'none') {
      logger.warn('file scan gave no verdict; the file stays quarantined', {
        ...file,
        reason: result.reason,
        message: result.message,
      });
      await files.noteScanProblem(record.id, result.reason, tenantId);
    } else {
      const verdict = result.verdict === 'clean' ? { clean: true } : { clean: false, detail: result.detail };
      await files.markScanned(record.id, verdict, tenantId);
      if (result.verdict === 'infected')
        logger.warn('file scan found malware', { ...file, detail: result.detail });
    }
    return result;
  } catch (error) {
    if (isFileNotFound(error)) return skipped(logger, file);
    logger.error('file scan outcome could not be recorded', { ...file, error: errorFields(error) });
    return { verdict: 'none', reason: 'scanner-error', message: 'recording the outcome failed' };
  }
}

/** The bytes of a quarantined file, streamed when the disk can. */
async function quarantinedContent(
  files: FileService,
  id: string,
  tenantId: string | undefined,
): Promise<ScanContent> {
  if (files.canStreamDownloads()) {
    return (await files.downloadStream(id, tenantId, { bypassQuarantine: true })).stream;
  }
  return (await files.download(id, tenantId, { bypassQuarantine: true })).content;
}

/** The file's record is gone (deleted meanwhile); a record whose bytes are missing is an error instead. */
function isFileNotFound(error: unknown): boolean {
  const candidate = error as { code?: unknown; details?: { reason?: unknown } } | null;
  return candidate?.code === 'FILE_NOT_FOUND' && candidate.details?.reason !== 'storage-object-missing';
}

function skipped(logger: Logger, file: Record<string, unknown>): FileScanResult {
  logger.info('file deleted before its scan finished', file);
  return { verdict: 'skipped' };
}
