// Temporary URLs of a file's content: POST /files/:id/url makes one for a caller allowed to (action `url`),
// GET /files/:id/signed serves it to whoever holds it. The URL's signature is the only credential of the
// second route, so it reads no user or tenant from the request: the signed query names the tenant, and the
// service refuses a tampered or expired URL (403 FILE_URL_INVALID) without saying which.
import { errors } from '../../../generated/modules/errors.js';
import type { CreateFileUrlBody, OpenFileUrlQuery } from '../../../generated/modules/files/types.js';
import type { StreamResult } from '../../http/stream.js';
import { tenantArgumentOf } from '../record.js';
import type { FileService, TemporaryUrl } from '../service/api.js';
import { expirySeconds } from '../service/temporary-url.js';
import { contentReply } from './content-reply.js';

/** The lifetime of a URL when the request names none: 15 minutes, lowered to the longest allowed. */
const DEFAULT_URL_TTL_SECONDS = 15 * 60;

/** The lifetime asked for, by the service's rule for `expiresIn`, at most the route's `maxUrlTtl`. */
function urlLifetimeSeconds(expiresIn: unknown, maxSeconds: number): number {
  if (expiresIn === undefined) return Math.min(DEFAULT_URL_TTL_SECONDS, maxSeconds);
  return expirySeconds(expiresIn, maxSeconds);
}

/** Makes the URL of a file the caller was allowed to share; quarantine refuses it as it refuses downloads. */
export function createFileUrl(
  files: FileService,
  id: string,
  body: CreateFileUrlBody | undefined,
  maxSeconds: number,
): Promise<TemporaryUrl> {
  const seconds = urlLifetimeSeconds(body?.expiresIn, maxSeconds);
  // Inline only when chosen: an attachment cannot be displayed as a page of this site.
  const disposition = body?.disposition === 'inline' ? 'inline' : 'attachment';
  return files.temporaryUrl(id, seconds, undefined, { disposition });
}

/** Serves a temporary URL: checks its signature and expiry, then streams the file as the URL grants. */
export async function openFileUrl(
  files: FileService,
  id: string,
  query: OpenFileUrlQuery,
): Promise<StreamResult> {
  const { tenant, expires, disposition, signature } = query;
  // A URL missing a part was cut or edited: the same answer as a wrong signature.
  if (tenant === undefined || expires === undefined || disposition === undefined || signature === undefined)
    throw errors.FILE_URL_INVALID();
  const granted = await files.openTemporaryUrl({ id, tenant, expires, disposition, signature });
  const { record } = granted;
  const tenantId = tenantArgumentOf(record);
  return contentReply({
    files,
    id: record.id,
    ...(tenantId === undefined ? {} : { tenantId }),
    disposition: granted.disposition,
  });
}
