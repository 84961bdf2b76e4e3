// Content-type strings as the sniffing rules compare them, and the classes of types the upload rules care about.

/** The type a declaration that says nothing about the content carries. */
export const OCTET_STREAM = 'application/octet-stream';

/**
 * The comparable form of a content type: lowercased, parameters (`; charset=…`) and surrounding space dropped,
 * and a few common spellings folded onto one name, so `IMAGE/JPG; q=1` equals `image/jpeg`. An empty value
 * is the octet-stream type: a missing declaration claims nothing.
 */
export function normalizeContentType(type: string | null | undefined): string {
  const essence = (type ?? '').split(';', 1)[0]!.trim().toLowerCase();
  if (essence === '') return OCTET_STREAM;
  return ALIASES[essence] ?? essence;
}

const ALIASES: Readonly<Record<string, string>> = {
  'image/jpg': 'image/jpeg',
  'image/pjpeg': 'image/jpeg',
  'image/x-png': 'image/png',
  'image/tif': 'image/tiff',
  'application/x-pdf': 'application/pdf',
  'application/x-zip-compressed': 'application/zip',
  'application/x-zip': 'application/zip',
  'text/xml': 'application/xml',
  'application/x-msdos-program': 'application/x-msdownload',
  'application/vnd.microsoft.portable-executable': 'application/x-msdownload',
  'application/x-dosexec': 'application/x-msdownload',
  'application/x-executable': 'application/x-elf',
  'application/x-shellscript': 'application/x-sh',
  'text/x-shellscript': 'application/x-sh',
  'text/x-sh': 'application/x-sh',
  'application/javascript': 'text/javascript',
  'application/x-javascript': 'text/javascript',
};

/**
 * Whether `type` is in `allowedTypes`: entries are exact types or a trailing wildcard (`image/*`), compared
 * without case or parameters. No list allows everything; an empty list allows nothing.
 */
export function typeAllowed(type: string, allowedTypes?: readonly string[]): boolean {
  if (allowedTypes === undefined) return true;
  const wanted = normalizeContentType(type);
  return allowedTypes.some((entry) => {
    const allowed = entry.split(';', 1)[0]!.trim().toLowerCase();
    if (allowed.endsWith('/*')) return wanted.startsWith(allowed.slice(0, -1));
    return normalizeContentType(allowed) === wanted;
  });
}

/** Zip containers whose format is a plain document: a ZIP claim does not contradict them, nor they a ZIP. */
function isDocumentZip(type: string): boolean {
  return (
    type === 'application/zip' ||
    type === 'application/epub+zip' ||
    type.startsWith('application/vnd.openxmlformats-officedocument.') ||
    type.startsWith('application/vnd.oasis.opendocument.')
  );
}

/** XML vocabularies: the generic XML claim covers them. */
function isXml(type: string): boolean {
  return type === 'application/xml' || type.endsWith('+xml');
}

/** HTML in either syntax. */
function isHtml(type: string): boolean {
  return type === 'text/html' || type === 'application/xhtml+xml';
}

const ACTIVE_TYPES = new Set([
  'text/html',
  'application/xml',
  'text/javascript',
  'application/x-sh',
  'application/x-msdownload',
  'application/x-elf',
  'application/x-mach-binary',
  'application/java-vm',
  'application/java-archive',
  'application/vnd.android.package-archive',
  'application/wasm',
  'application/x-shockwave-flash',
  'application/x-xpinstall',
  'application/x-google-chrome-extension',
  'application/vnd.ms-htmlhelp',
]);

/**
 * Types a browser renders as a document or a machine runs: markup (HTML, SVG and every XML), scripts,
 * executables and packages that install code (including macro-enabled Office files). An upload that hides
 * them behind `application/octet-stream` is refused.
 */
export function isActiveType(type: string): boolean {
  const t = normalizeContentType(type);
  return ACTIVE_TYPES.has(t) || isXml(t) || t.includes('macroenabled');
}

/**
 * Types safe to promote a bare `application/octet-stream` claim to: raster images, audio, video, PDF, ZIP and
 * macro-free Office/OpenDocument/EPUB files.
 */
export function isInertType(type: string): boolean {
  const t = normalizeContentType(type);
  if (isActiveType(t)) return false;
  return (
    t.startsWith('image/') ||
    t.startsWith('audio/') ||
    t.startsWith('video/') ||
    t === 'application/pdf' ||
    isDocumentZip(t)
  );
}

/**
 * Whether bytes detected as `detected` are consistent with a claim of `declared` (both normalised): the same
 * type; ZIP and a macro-free document zip either way; the XML claim for any XML vocabulary (SVG included);
 * HTML and XHTML either way;
 * and `text/plain` for a text type that is not active (calendar, vCard, WebVTT).
 */
export function compatibleTypes(declared: string, detected: string): boolean {
  if (declared === detected) return true;
  if (isDocumentZip(declared) && isDocumentZip(detected)) return true;
  if (declared === 'application/xml' && isXml(detected)) return true;
  if (isHtml(declared) && isHtml(detected)) return true;
  if (declared === 'text/plain' && detected.startsWith('text/') && !isActiveType(detected)) return true;
  return false;
}

/**
 * Types the built-in table recognises by a mandatory signature: a claim of one of them on bytes the table
 * does not recognise is contradicted by the bytes.
 */
export const SIGNATURE_TYPES: ReadonlySet<string> = new Set([
  'application/pdf',
  'image/png',
  'image/jpeg',
  'image/gif',
  'image/webp',
  'image/tiff',
  'application/zip',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'application/x-msdownload',
  'application/x-elf',
  'application/x-mach-binary',
]);
