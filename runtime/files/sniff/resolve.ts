// The upload rule for a file's content type: what is stored, what is kept of the claim, and what is refused.
import { errors } from '../../../generated/modules/errors.js';
import { SNIFF_WINDOW_BYTES, sniffContentType } from './sniff.js';
import {
  OCTET_STREAM,
  SIGNATURE_TYPES,
  compatibleTypes,
  isActiveType,
  isInertType,
  normalizeContentType,
  typeAllowed,
} from './types.js';

/** A custom sniffer: the MIME type of the content from its first bytes, or null when it cannot tell. */
export type SniffFunction = (bytes: Uint8Array) => string | null | Promise<string | null>;

/** `validate.sniff`: off, the built-in table, or a custom sniffer. */
export type SniffOption = boolean | SniffFunction;

export interface ContentTypeClaim {
  /** The type the client declared (may carry parameters); empty means `application/octet-stream`. */
  declared: string;
  /** What sniffing found, or null when it recognised nothing. */
  detected: string | null;
  /** `validate.allowedTypes`: exact types or a trailing wildcard (`image/*`); absent allows any. */
  allowedTypes?: readonly string[] | undefined;
  /**
   * true when `detected` came from a custom sniffer, whose null means "no opinion": then a declared type of the
   * built-in signature table is not refused for lack of its signature.
   */
  custom?: boolean | undefined;
}

export interface ResolvedContentType {
  /** The type to store: the detected one when sniffing recognised the content, else the declaration. */
  contentType: string;
  /** The client's claim, present when the stored type replaced it. */
  declaredType?: string;
}

/**
 * Decides the stored type of an upload from its declared and detected types (types compared without case or
 * parameters; common aliases such as `image/jpg` folded):
 * - nothing detected: the declaration is stored, unless it names a type of the built-in signature table (PDF,
 *   PNG, JPEG, GIF, WebP, TIFF, ZIP, docx/xlsx/pptx, executables) whose signature the bytes lack:
 *   FILE_TYPE_MISMATCH;
 * - declared `application/octet-stream` (or nothing): an active detected type (HTML, SVG, XML, scripts,
 *   executables) is refused with FILE_TYPE_NOT_ALLOWED; an inert one (images, audio, video, PDF, ZIP,
 *   Office/OpenDocument) is stored with the claim kept; any other stays `application/octet-stream`;
 * - another declaration: the detected type must agree with it (same type, ZIP and a document zip, XML and an
 *   XML vocabulary, `text/plain` and an inert text type), else FILE_TYPE_MISMATCH; the detected type is
 *   stored and the claim kept when they differ;
 * - then the stored type must be in `allowedTypes`, else FILE_TYPE_NOT_ALLOWED.
 */
export function resolveContentType(claim: ContentTypeClaim): ResolvedContentType {
  const declaredRaw = claim.declared.trim() === '' ? OCTET_STREAM : claim.declared.trim();
  const declared = normalizeContentType(declaredRaw);
  const detected = claim.detected === null ? null : normalizeContentType(claim.detected);
  const resolved = decide(declaredRaw, declared, detected, claim.custom === true);
  if (!typeAllowed(resolved.contentType, claim.allowedTypes)) {
    throw errors.FILE_TYPE_NOT_ALLOWED({
      details: { contentType: normalizeContentType(resolved.contentType) },
    });
  }
  return resolved;
}

function decide(
  declaredRaw: string,
  declared: string,
  detected: string | null,
  custom: boolean,
): ResolvedContentType {
  if (detected === null) {
    if (!custom && SIGNATURE_TYPES.has(declared)) throw mismatch(declared, null);
    return { contentType: declaredRaw };
  }
  if (declared === OCTET_STREAM) {
    if (isActiveType(detected)) {
      throw errors.FILE_TYPE_NOT_ALLOWED({ details: { declaredType: declared, detectedType: detected } });
    }
    if (!isInertType(detected)) return { contentType: declaredRaw };
    return { contentType: detected, declaredType: declaredRaw };
  }
  if (!compatibleTypes(declared, detected)) throw mismatch(declared, detected);
  return detected === declared
    ? { contentType: detected }
    : { contentType: detected, declaredType: declaredRaw };
}

function mismatch(declared: string, detected: string | null) {
  return errors.FILE_TYPE_MISMATCH({ details: { declaredType: declared, detectedType: detected } });
}

export interface DecideContentTypeOptions {
  declared: string;
  /** `validate.sniff`; default false: the declaration is stored as given. */
  sniff?: SniffOption | undefined;
  allowedTypes?: readonly string[] | undefined;
}

/**
 * The whole type check of an upload from its first bytes: sniffing off stores the declaration (checked against
 * `allowedTypes`); `true` runs `sniffContentType`; a function is given the first `SNIFF_WINDOW_BYTES` and its
 * answer decided by `resolveContentType` as a custom sniffer's.
 */
export async function decideContentType(
  bytes: Uint8Array,
  options: DecideContentTypeOptions,
): Promise<ResolvedContentType> {
  const { declared, sniff = false, allowedTypes } = options;
  if (sniff === false) {
    const contentType = declared.trim() === '' ? OCTET_STREAM : declared.trim();
    if (!typeAllowed(contentType, allowedTypes)) {
      throw errors.FILE_TYPE_NOT_ALLOWED({ details: { contentType: normalizeContentType(contentType) } });
    }
    return { contentType };
  }
  if (sniff === true) {
    return resolveContentType({ declared, detected: await sniffContentType(bytes), allowedTypes });
  }
  const answer = await sniff(bytes.subarray(0, SNIFF_WINDOW_BYTES));
  const detected = typeof answer === 'string' && answer.trim() !== '' ? answer : null;
  return resolveContentType({ declared, detected, allowedTypes, custom: true });
}
