// Storage keys are made by the file service (`<tenant>/<id>`), never taken from a client. Each is still
// checked strictly, so a bug upstream cannot turn a key into a path outside a disk's root or into a name
// a backend treats specially: a narrow charset, `/` only as a separator, no segment starting with a dot
// (which rules out `.`, `..`, hidden files and the local disk's `.tmp-` names), bounded lengths.
import { keyRefused } from './disk-errors.js';

/** Longest key, in characters (all ASCII): S3's own limit on object keys. */
export const MAX_STORAGE_KEY_LENGTH = 1024;
/** Longest segment between slashes: the usual file-name limit of a file system. */
export const MAX_STORAGE_KEY_SEGMENT_LENGTH = 255;

const KEY_CHARSET = /^[A-Za-z0-9._@=-]+(?:\/[A-Za-z0-9._@=-]+)*$/;

/** Throws 500 INTERNAL_ERROR (`details.reason: storage-key-…`) unless `key` is a safe storage key. */
export function assertStorageKey(key: unknown): asserts key is string {
  if (typeof key !== 'string') throw keyRefused('not-a-string');
  if (key.length === 0) throw keyRefused('empty');
  if (key.length > MAX_STORAGE_KEY_LENGTH) throw keyRefused('too-long');
  const segments = key.split('/');
  for (const segment of segments) {
    if (segment.length === 0) throw keyRefused('empty-segment');
    if (segment.startsWith('.')) throw keyRefused('dot-segment');
    if (segment.length > MAX_STORAGE_KEY_SEGMENT_LENGTH) throw keyRefused('segment-too-long');
  }
  if (!KEY_CHARSET.test(key)) throw keyRefused('charset');
}

/** The segments of a checked key. */
export function keySegments(key: string): string[] {
  assertStorageKey(key);
  return key.split('/');
}
