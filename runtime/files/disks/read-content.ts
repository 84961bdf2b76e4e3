// Reading what a disk is asked to store, shared by every driver: the declared length checked before a byte
// is read, then the content pulled one chunk at a time (the driver writes it before the next is pulled), its
// size and SHA-256 counted on the way, the write's cap and declared length enforced as soon as they are
// passed, and the abort signal honoured even while the source is stalled. On any failure the source is
// cancelled, so a client upload stops flowing rather than being drained.
import { createHash } from 'node:crypto';
import { optionKeys, rejectUnknownOptions } from '../../config/known-options.js';
import { invalidOption, invalidOptions } from '../../config/option-errors.js';
import { chunkSource, nextOrAbort } from './content-source.js';
import type { DiskContent, DiskPutOptions, DiskPutResult } from './disk.js';
import { contentLengthInvalid, contentLengthMismatch, contentNotBytes, tooLarge } from './disk-errors.js';

const PUT_OPTION_KEYS = optionKeys<DiskPutOptions>({ contentLength: true, maxBytes: true, signal: true });

/** The checked options of one write. */
export interface PutLimits {
  contentLength: number | undefined;
  maxBytes: number;
  signal: AbortSignal | undefined;
}

/**
 * Checks a write's options before anything is read: unknown keys and a bad `maxBytes` are programming
 * errors (OPTION_*); a bad `contentLength` came from the sender, so it is 400 STORAGE_CONTENT_LENGTH_INVALID.
 */
export function putLimits(owner: string, options: DiskPutOptions | undefined): PutLimits {
  if (options === undefined) return { contentLength: undefined, maxBytes: Infinity, signal: undefined };
  if (options === null || typeof options !== 'object') throw invalidOptions(owner);
  rejectUnknownOptions(options, PUT_OPTION_KEYS, owner);
  const { contentLength, maxBytes = Infinity, signal } = options;
  if (contentLength !== undefined && !isByteCount(contentLength)) throw contentLengthInvalid();
  if (maxBytes !== Infinity && !isByteCount(maxBytes)) {
    throw invalidOption(owner, 'maxBytes', 'a whole number, 0 or more, or Infinity');
  }
  if (signal !== undefined && !(signal instanceof AbortSignal)) {
    throw invalidOption(owner, 'signal', 'an AbortSignal');
  }
  return { contentLength, maxBytes, signal };
}

function isByteCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
}

/**
 * Pulls `content` chunk by chunk into `write`, awaiting each write before the next pull, and answers the
 * size and SHA-256 (hex) of what was written. Rejects (after cancelling the source) on a source error, an
 * abort, a passed cap or a length other than the declared one; the caller then discards what it wrote.
 */
export async function readContent(
  content: DiskContent,
  limits: PutLimits,
  write: (chunk: Uint8Array) => Promise<void> | void,
): Promise<DiskPutResult> {
  const { contentLength, maxBytes, signal } = limits;
  signal?.throwIfAborted();
  const hash = createHash('sha256');
  let size = 0;
  const take = async (chunk: Uint8Array): Promise<void> => {
    size += chunk.byteLength;
    if (size > maxBytes) throw tooLarge('maxBytes');
    if (contentLength !== undefined && size > contentLength) throw contentLengthMismatch();
    hash.update(chunk);
    await write(chunk);
    signal?.throwIfAborted();
  };

  if (content instanceof Uint8Array) {
    if (content.byteLength > 0) await take(content);
  } else {
    const source = chunkSource(content);
    try {
      for (;;) {
        const step = await nextOrAbort(source.iterator, signal);
        if (step.done === true) break;
        const chunk: unknown = step.value;
        if (!(chunk instanceof Uint8Array)) throw contentNotBytes();
        if (chunk.byteLength > 0) await take(chunk);
      }
    } catch (error) {
      // Harmless when the source itself failed.
      source.cancel();
      throw error;
    }
  }
  if (contentLength !== undefined && size !== contentLength) throw contentLengthMismatch();
  return { size, checksum: hash.digest('hex') };
}
