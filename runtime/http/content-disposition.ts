// Content-Disposition for downloads (RFC 6266): a quoted ASCII `filename` every client understands, plus an
// RFC 5987 `filename*` carrying the exact UTF-8 name when it is not plain ASCII.

import { sanitizeFilename } from './upload/filename.js';

/** Characters RFC 5987 lets through unencoded in `ext-value` (attr-char). */
function encodeExtValue(value: string): string {
  return encodeURIComponent(value).replace(
    /['()*!]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}

/** Printable ASCII only; everything else becomes `_`; quotes and backslashes too (no escaping games). */
function asciiFallback(value: string): string {
  return value.replace(/[^\x20-\x7e]|["\\%]/g, '_');
}

export function contentDisposition(disposition: 'attachment' | 'inline', filename: string): string {
  const name = sanitizeFilename(filename);
  if (name === '') return disposition;
  const fallback = asciiFallback(name);
  const header = `${disposition}; filename="${fallback}"`;
  return fallback === name ? header : `${header}; filename*=UTF-8''${encodeExtValue(name)}`;
}
