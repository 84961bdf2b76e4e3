// The errors a disk raises, built from the catalog. Details carry a fixed reason or the name of a limit,
// never the key or a byte of the content (keys carry tenant ids, which do not belong in a client answer).
import { errors } from '../../../generated/modules/errors.js';
import type { HttpError } from '../../http/errors.js';

/** Why a storage key was refused; sent as `details.reason`. */
export type StorageKeyProblem =
  'not-a-string' | 'empty' | 'too-long' | 'segment-too-long' | 'charset' | 'empty-segment' | 'dot-segment';

/**
 * A key the service should never have made, or a path that would leave the disk's root: a server-side
 * fault, answered as 500 with the reason kept for the log.
 */
export function keyRefused(
  reason: StorageKeyProblem | 'symlink' | 'not-a-directory' | 'not-a-file',
): HttpError {
  return errors.INTERNAL_ERROR({
    message: `Storage key refused: ${reason}.`,
    details: { reason: `storage-key-${reason}` },
  });
}

export function contentLengthInvalid(): HttpError {
  return errors.STORAGE_CONTENT_LENGTH_INVALID();
}

export function contentLengthMismatch(): HttpError {
  return errors.STORAGE_CONTENT_LENGTH_MISMATCH();
}

/** 413 naming the cap passed: the write's own `maxBytes`, or the memory disk's `maxBytes` total. */
export function tooLarge(limit: 'maxBytes' | 'disk.maxBytes'): HttpError {
  return errors.FILE_TOO_LARGE({ details: { limit } });
}

export function objectMissing(): HttpError {
  return errors.FILE_NOT_FOUND({ details: { reason: 'storage-object-missing' } });
}

/** Content that is not bytes: not a byte array or stream, or a stream yielding something other than bytes. */
export function contentNotBytes(): HttpError {
  return errors.INTERNAL_ERROR({
    message: 'Storage content must be bytes.',
    details: { reason: 'storage-content-not-bytes' },
  });
}
