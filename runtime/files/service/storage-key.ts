// Where a tenant's file lives on the disk: `<tenant segment>/<id>`. The segment keeps tenants apart and is
// injective (two tenants never share a folder): a tenant id the disk key rules allow is used as it is, which
// keeps folders readable; any other is encoded under a leading '=', which a plain segment never starts with.
import { createHash } from 'node:crypto';
import { MAX_STORAGE_KEY_SEGMENT_LENGTH } from '../disks/storage-key.js';

// The disk's segment charset, minus a leading '.' (refused by disks) and a leading '=' (our encoded form).
const PLAIN_SEGMENT = /^[A-Za-z0-9_@-][A-Za-z0-9._@=-]*$/;

/**
 * The folder of a tenant: the id itself when it is a plain segment; else '=' + base64url of its UTF-8 bytes
 * (base64url never starts with '=', so this form cannot equal a plain one); when that would pass the segment
 * limit, '==' + base64url of its SHA-256 (its own prefix, so it cannot equal either other form).
 */
export function tenantSegment(tenantId: string): string {
  if (tenantId.length <= MAX_STORAGE_KEY_SEGMENT_LENGTH && PLAIN_SEGMENT.test(tenantId)) return tenantId;
  const encoded = `=${Buffer.from(tenantId, 'utf8').toString('base64url')}`;
  if (encoded.length <= MAX_STORAGE_KEY_SEGMENT_LENGTH) return encoded;
  return `==${createHash('sha256').update(tenantId, 'utf8').digest('base64url')}`;
}

/** The storage key of a file: made here, never taken from a client. */
export function storageKey(tenantId: string, id: string): string {
  return `${tenantSegment(tenantId)}/${id}`;
}
