// Upload filenames: what a handler gets is safe to show and to use as the last
// segment of a path. The client's name is only a hint; handlers still choose where files are stored.

/** Longest filename handed to a handler, in UTF-8 bytes. */
export const MAX_FILENAME_BYTES = 255;

/**
 * C0 controls (NUL included), DEL, C1 controls, and the bidi marks, embeddings, overrides and isolates that
 * make `evil\u202Egnp.exe` display as `evilexe.png`.
 */
function isUnsafeChar(code: number): boolean {
  return (
    code <= 0x1f ||
    (code >= 0x7f && code <= 0x9f) ||
    code === 0x061c ||
    code === 0x200e ||
    code === 0x200f ||
    (code >= 0x202a && code <= 0x202e) ||
    (code >= 0x2066 && code <= 0x2069)
  );
}

function removeUnsafeChars(text: string): string {
  let kept = '';
  let runStart = 0;
  for (let at = 0; at < text.length; at++) {
    if (!isUnsafeChar(text.charCodeAt(at))) continue;
    kept += text.slice(runStart, at);
    runStart = at + 1;
  }
  return runStart === 0 ? text : kept + text.slice(runStart);
}

function utf8Length(codePoint: number): number {
  if (codePoint < 0x80) return 1;
  if (codePoint < 0x800) return 2;
  if (codePoint < 0x10000) return 3;
  return 4;
}

/** The longest prefix of whole code points that fits in `maxBytes` UTF-8 bytes. */
function truncateUtf8(text: string, maxBytes: number): string {
  // Fast path: even at 3 bytes per UTF-16 unit (the most any unit costs) it fits.
  if (text.length * 3 <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    bytes += utf8Length(char.codePointAt(0) as number);
    if (bytes > maxBytes) break;
    end += char.length;
  }
  return text.slice(0, end);
}

/**
 * The name a handler may use: the last segment after `/` or `\`, without control, NUL, DEL or bidi
 * characters, trimmed, at most 255 UTF-8 bytes (never splitting a character). `.` and `..` become ''.
 */
export function sanitizeFilename(name: string): string {
  const lastSeparator = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
  const base = lastSeparator === -1 ? name : name.slice(lastSeparator + 1);
  const cleaned = truncateUtf8(removeUnsafeChars(base).trim(), MAX_FILENAME_BYTES).trim();
  return cleaned === '.' || cleaned === '..' ? '' : cleaned;
}

const EXT_VALUE = /^([A-Za-z0-9!#$%&+^_`{}~-]+)'[A-Za-z0-9-]*'(.*)$/s;
const BAD_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Decodes an RFC 5987 `filename*` value (`UTF-8''na%C3%AFve.txt`); ISO-8859-1 is accepted too. Undefined
 * for another charset, a malformed percent escape or bytes that are not valid in the charset, so the caller
 * falls back to the plain `filename`.
 */
export function decodeExtendedValue(value: string): string | undefined {
  const match = EXT_VALUE.exec(value);
  if (match === null) return undefined;
  const charset = (match[1] as string).toLowerCase();
  const encoded = match[2] as string;
  if (BAD_PERCENT.test(encoded)) return undefined;
  const bytes: number[] = [];
  for (let at = 0; at < encoded.length; at++) {
    const code = encoded.charCodeAt(at);
    if (code === 0x25) {
      bytes.push(Number.parseInt(encoded.slice(at + 1, at + 3), 16));
      at += 2;
    } else if (code < 0x80) {
      bytes.push(code);
    } else {
      // Not allowed unencoded by RFC 5987; take the character's UTF-8 bytes rather than refusing the name.
      const char = String.fromCodePoint(encoded.codePointAt(at) as number);
      for (const byte of Buffer.from(char, 'utf8')) bytes.push(byte);
      at += char.length - 1;
    }
  }
  if (charset === 'utf-8') {
    try {
      return strictUtf8.decode(Uint8Array.from(bytes));
    } catch {
      return undefined;
    }
  }
  if (charset === 'iso-8859-1') return Buffer.from(bytes).toString('latin1');
  return undefined;
}
