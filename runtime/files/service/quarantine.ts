// Quarantine: with `requireScan`, a file's bytes leave the server only after a scanner reported it clean. The
// check looks at the record alone, so a refused request never reads a byte from the disk.
import { errors } from '../../../generated/modules/errors.js';
import { invalidOption } from '../../config/option-errors.js';
import { INTERNAL_SCAN_KEY, type FileRecord, type ScanProblem, type ScanVerdict } from '../record.js';
import type { FileRecordPatch } from '../store/store.js';

/** 423 FILE_NOT_SCANNED without a verdict, 403 FILE_INFECTED when the verdict is not clean. */
export function assertReleased(record: FileRecord, requireScan: boolean): void {
  if (!requireScan) return;
  if (record.scan === undefined) throw errors.FILE_NOT_SCANNED();
  if (record.scan.clean !== true) throw errors.FILE_INFECTED();
}

/** A verdict as the caller passed it, checked: `clean` a boolean, `detail` a string when given. */
export function checkedVerdict(result: unknown): ScanVerdict {
  const candidate = (result ?? {}) as Partial<ScanVerdict>;
  if (typeof candidate.clean !== 'boolean' || !['string', 'undefined'].includes(typeof candidate.detail)) {
    throw invalidOption('markScanned()', 'result', '{ clean: boolean, detail?: string }');
  }
  return candidate.detail === undefined
    ? { clean: candidate.clean }
    : { clean: candidate.clean, detail: candidate.detail };
}

/** The patch recording a verdict: its time, and the metadata without the scan bookkeeping it settles. */
export function verdictPatch(record: FileRecord, verdict: ScanVerdict, now: number): FileRecordPatch {
  const patch: FileRecordPatch = { scannedAt: new Date(now).toISOString(), scan: verdict };
  if (record.metadata !== undefined && INTERNAL_SCAN_KEY in record.metadata) {
    const metadata = { ...record.metadata };
    delete metadata[INTERNAL_SCAN_KEY];
    patch.metadata = metadata;
  }
  return patch;
}

/** The patch recording why a scan gave no verdict; the file stays as quarantined as it was. */
export function scanProblemPatch(record: FileRecord, reason: unknown, now: number): FileRecordPatch {
  if (typeof reason !== 'string' || reason.trim() === '') {
    throw invalidOption('noteScanProblem()', 'reason', 'a non-empty string');
  }
  const problem: ScanProblem = { reason, at: new Date(now).toISOString() };
  return { metadata: { ...record.metadata, [INTERNAL_SCAN_KEY]: problem } };
}
