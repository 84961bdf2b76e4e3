// Temporary file URLs: a link that grants one file's content, in one tenant, with one disposition, until one
// time, to whoever holds it. The grant is an HMAC-SHA256 over a versioned, length-prefixed encoding of those
// four values, so no value can be changed or shifted into another; a link that was altered or has expired
// gets one answer (FILE_URL_INVALID) that never says which.
import { MAX_URL_TTL_MS } from '../../../shared/files-upload.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { errors } from '../../../generated/modules/errors.js';
import { invalidOption } from '../../config/option-errors.js';
import { parseDuration } from '../../../shared/duration.js';
import type { TemporaryUrlQuery } from './api.js';
import { FILE_SERVICE_OWNER } from './options.js';

/** The longest lifetime the service signs (routes apply their own, lower `maxUrlTtl`). */
export const MAX_TEMPORARY_URL_SECONDS = MAX_URL_TTL_MS / 1000;

/** Changes whenever the signed encoding does, so an old signature can never verify under a new meaning. */
const SIGNATURE_VERSION = 'svc-file-url-v1';
const SIGNATURE = /^[A-Za-z0-9_-]{43}$/;
// No leading zeros: the signed text holds the number as String() writes it, so each link has one spelling.
const EXPIRES = /^(?:0|[1-9][0-9]{0,14})$/;

export type Disposition = 'attachment' | 'inline';

export interface UrlGrant {
  id: string;
  tenantId: string;
  /** Unix seconds. */
  expires: number;
  disposition: Disposition;
}

/**
 * `expiresIn` in whole seconds: a positive number of seconds, a string of digits (seconds) or a duration
 * string ('15m') of whole seconds, at most `maxSeconds` (MAX_TEMPORARY_URL_SECONDS unless a route allows
 * less); else FILE_URL_EXPIRY_INVALID, saying the longest allowed.
 */
export function expirySeconds(expiresIn: unknown, maxSeconds = MAX_TEMPORARY_URL_SECONDS): number {
  let seconds: number | undefined;
  if (typeof expiresIn === 'number') seconds = expiresIn;
  else if (typeof expiresIn === 'string' && /^[0-9]+$/.test(expiresIn)) seconds = Number(expiresIn);
  else if (typeof expiresIn === 'string') {
    const ms = parseDuration(expiresIn);
    seconds = ms === undefined ? undefined : ms / 1000;
  }
  if (seconds === undefined || !Number.isSafeInteger(seconds) || seconds <= 0 || seconds > maxSeconds) {
    throw errors.FILE_URL_EXPIRY_INVALID({ details: { maxSeconds } });
  }
  return seconds;
}

/** The key temporary URLs are signed with; a service made without one cannot sign or check them. */
export function requireSigningKey(key: Uint8Array | undefined): Uint8Array {
  if (key === undefined) {
    throw invalidOption(FILE_SERVICE_OWNER, 'urlSigningKey', 'set (at least 32 bytes) to use temporary URLs');
  }
  return key;
}

/** Each value as `<UTF-8 byte length>:<value>`, after the version: no two grants encode alike. */
function signedText(grant: UrlGrant): string {
  const fields = [SIGNATURE_VERSION, grant.id, grant.tenantId, String(grant.expires), grant.disposition];
  return fields.map((field) => `${Buffer.byteLength(field, 'utf8')}:${field}`).join('');
}

function signatureOf(key: Uint8Array, grant: UrlGrant): Buffer {
  return createHmac('sha256', key).update(signedText(grant), 'utf8').digest();
}

/** The URL of a grant: `<base>/files/<id>/signed?tenant=…&expires=…&disposition=…&signature=…`. */
export function signedUrl(key: Uint8Array, urlBase: string, grant: UrlGrant): string {
  const query = new URLSearchParams({
    tenant: grant.tenantId,
    expires: String(grant.expires),
    disposition: grant.disposition,
    signature: signatureOf(key, grant).toString('base64url'),
  });
  return `${urlBase}/files/${encodeURIComponent(grant.id)}/signed?${query.toString()}`;
}

/** Ids and tenants are short; a longer value is no link we made (and is not worth hashing). */
function isBoundedText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && value.length <= 256;
}

/** The grant a URL's query carries when its signature matches and it has not expired; FILE_URL_INVALID else. */
export function verifiedGrant(key: Uint8Array, query: TemporaryUrlQuery, nowMs: number): UrlGrant {
  const invalid = () => errors.FILE_URL_INVALID();
  const { id, tenant, expires, disposition, signature } = (query ?? {}) as Partial<TemporaryUrlQuery>;
  if (
    !isBoundedText(id) ||
    !isBoundedText(tenant) ||
    typeof expires !== 'string' ||
    !EXPIRES.test(expires) ||
    (disposition !== 'attachment' && disposition !== 'inline') ||
    typeof signature !== 'string' ||
    !SIGNATURE.test(signature)
  ) {
    throw invalid();
  }
  const grant: UrlGrant = { id, tenantId: tenant, expires: Number(expires), disposition };
  // Compared as text: base64url decoding ignores the last character's unused bits, so decoding first would let
  // several spellings of one signature pass (an altered link must never verify).
  const expected = Buffer.from(signatureOf(key, grant).toString('base64url'));
  const given = Buffer.from(signature);
  if (given.byteLength !== expected.byteLength || !timingSafeEqual(given, expected)) throw invalid();
  if (grant.expires * 1000 <= nowMs) throw invalid();
  return grant;
}
