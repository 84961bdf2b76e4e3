// A virus scanner as the file service's runner sees it: give it bytes, get a verdict or the reason there is
// none. `clamdScanner` is the built-in one, ClamAV's daemon over its INSTREAM command. Only clamd's `OK` ever
// becomes a clean verdict; everything else that is not a detection is a problem that keeps the file
// quarantined.
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { clamdInstream, type ScanContent } from './clamd-client.js';
import type { ClamdScanOutcome } from './clamd-reply.js';
import { describeClamdAddress, parseClamdUrl } from './clamd-url.js';

/** Why a scan gave no verdict: recorded with `noteScanProblem`, the file stays quarantined. */
export type ScanProblemReason = 'too-large-for-scanner' | 'scanner-unavailable' | 'scanner-error';

/** What a scanner concluded about one file. */
export type ScanResult =
  | { verdict: 'clean' }
  /** `detail`: the engine's name for what it found (kept server side). */
  | { verdict: 'infected'; detail: string }
  /** `message`: for the log line, never shown to a client. */
  | { verdict: 'none'; reason: ScanProblemReason; message: string };

export interface FileScanner {
  /** Names the engine and where it runs, for log lines: `clamd 127.0.0.1:3310`. */
  readonly name: string;
  /** Files larger than this are not sent; they get the problem 'too-large-for-scanner'. */
  readonly maxStreamBytes: number;
  /** How many files the runner scans at once. */
  readonly concurrency: number;
  /** Scans the bytes; never rejects. A stream is consumed, or destroyed when the scan stops early. */
  scan(content: ScanContent): Promise<ScanResult>;
}

export interface ClamdScannerOptions {
  /** `clamd://host:port` (port default 3310) or `clamd:///path/to/clamd.socket`. Required. */
  url: string;
  /** The longest wait without progress (connecting, clamd taking bytes, clamd answering), in ms. Default 30 000. */
  timeoutMs?: number;
  /**
   * The largest file sent, in bytes. Default 26 214 400 (25 MiB), clamd's default StreamMaxLength. Keep it at or
   * below clamd's StreamMaxLength: clamd refuses longer streams, and it does so by closing the connection,
   * which is not always read as its "size limit" answer.
   */
  maxStreamBytes?: number;
  /** Files scanned at once (each holds one clamd connection and one open download). Default 2. */
  concurrency?: number;
}

export const CLAMD_SCANNER_DEFAULTS = {
  timeoutMs: 30_000,
  maxStreamBytes: 26_214_400,
  concurrency: 2,
} as const;

const OWNER = 'clamdScanner()';
const OPTIONS = optionKeys<ClamdScannerOptions>({
  url: true,
  timeoutMs: true,
  maxStreamBytes: true,
  concurrency: true,
});

/** clamd refuses to count past 4 GiB (the INSTREAM chunk lengths are 32-bit, its limit too). */
const MAX_STREAM_BYTES = 4 * 1024 ** 3 - 1;
const MAX_CONCURRENCY = 64;

export function clamdScanner(options: ClamdScannerOptions): FileScanner {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) throw invalidOptions(OWNER);
  rejectUnknownOptions(options, OPTIONS, OWNER);
  const address = parseClamdUrl(options.url, OWNER, 'url');
  const timeoutMs = wholeNumber(
    options.timeoutMs,
    'timeoutMs',
    CLAMD_SCANNER_DEFAULTS.timeoutMs,
    1,
    2 ** 31 - 1,
  );
  const maxStreamBytes = wholeNumber(
    options.maxStreamBytes,
    'maxStreamBytes',
    CLAMD_SCANNER_DEFAULTS.maxStreamBytes,
    1,
    MAX_STREAM_BYTES,
  );
  const concurrency = wholeNumber(
    options.concurrency,
    'concurrency',
    CLAMD_SCANNER_DEFAULTS.concurrency,
    1,
    MAX_CONCURRENCY,
  );
  return {
    name: `clamd ${describeClamdAddress(address)}`,
    maxStreamBytes,
    concurrency,
    async scan(content) {
      return toScanResult(await clamdInstream(address, content, { timeoutMs, maxStreamBytes }));
    },
  };
}

/** clamd's outcome as a verdict or a problem; a timeout is the daemon not keeping up, so unavailable. */
export function toScanResult(outcome: ClamdScanOutcome): ScanResult {
  switch (outcome.status) {
    case 'clean':
      return { verdict: 'clean' };
    case 'infected':
      return { verdict: 'infected', detail: outcome.signature };
    case 'too-large':
      return { verdict: 'none', reason: 'too-large-for-scanner', message: outcome.message };
    case 'unavailable':
    case 'timeout':
      return { verdict: 'none', reason: 'scanner-unavailable', message: outcome.message };
    case 'error':
      return { verdict: 'none', reason: 'scanner-error', message: outcome.message };
  }
}

function wholeNumber(value: unknown, option: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    throw invalidOption(OWNER, option, `a whole number from ${min} to ${max}`, `got ${String(value)}`);
  }
  return value;
}
