// The answer carrying a stored file's bytes (GET /files/:id/content and temporary URLs). The bytes are the
// uploader's, so a browser must never treat them as part of this site: the stored type is sent with
// `nosniff`, a sandboxing Content-Security-Policy, and as an attachment unless an inline disposition was
// chosen for a type a browser displays inertly (markup and scripts are always attachments). Quarantine refusals
// (423 FILE_NOT_SCANNED, 403 FILE_INFECTED) come from the service before any byte is written. The routes mark
// the answer uncacheable on the reply before calling this (privateNoStore), so a failure answer keeps it too.
import { Readable } from 'node:stream';
import { stream, type StreamResult } from '../../http/stream.js';
import type { FileService } from '../service/api.js';

export type ContentDisposition = 'attachment' | 'inline';

/** A media type without parameters, as the upload parser records declared types. */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

/**
 * Types a browser would run or render as a document of this origin: never shown inline, whatever the URL
 * asked. (The CSP sandbox below covers what this list misses.)
 */
const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xhtml+xml',
  'image/svg+xml',
  'text/xml',
  'application/xml',
  'text/javascript',
  'application/javascript',
  'application/ecmascript',
  'text/ecmascript',
  'application/x-javascript',
  'text/css',
  'application/pdf',
  'application/wasm',
  'text/xsl',
  'application/xslt+xml',
  'multipart/x-mixed-replace',
]);

/** The Content-Type to send: the stored one when it is a plain media type, else octet-stream. */
function servedType(contentType: string): string {
  const type = contentType.toLowerCase();
  return MEDIA_TYPE.test(type) ? type : 'application/octet-stream';
}

/** The disposition to send: inline only when asked for and the type is not one a browser would run. */
function servedDisposition(type: string, asked: ContentDisposition): ContentDisposition {
  if (asked !== 'inline') return 'attachment';
  return ACTIVE_TYPES.has(type) || type.endsWith('+xml') ? 'attachment' : 'inline';
}

export interface ContentReplyInput {
  /** The service to read with; the file is looked up in `tenantId` (undefined: the service's context). */
  files: FileService;
  id: string;
  tenantId?: string;
  disposition: ContentDisposition;
}

/**
 * Opens the file's bytes (streamed when the disk can, else read whole) and answers them. Throws the service's
 * refusal (not found, quarantine) before anything is sent.
 */
export async function contentReply(input: ContentReplyInput): Promise<StreamResult> {
  const { files, id, tenantId } = input;
  const opened = files.canStreamDownloads()
    ? await files.downloadStream(id, tenantId)
    : await bufferedAsStream(files, id, tenantId);
  const type = servedType(opened.record.contentType);
  return stream(opened.stream, {
    contentType: type,
    contentLength: opened.record.size,
    filename: opened.record.name,
    disposition: servedDisposition(type, input.disposition),
    headers: {
      'x-content-type-options': 'nosniff',
      // Bytes shown inline run nothing and reach nothing of this origin.
      'content-security-policy': "default-src 'none'; sandbox",
    },
  });
}

async function bufferedAsStream(
  files: FileService,
  id: string,
  tenantId: string | undefined,
): ReturnType<FileService['downloadStream']> {
  const { record, content } = await files.download(id, tenantId);
  return { record, stream: Readable.from([content]) };
}
