// The built-in content sniffer: what a file is, from its first bytes, whatever its name or declared type says.
import { fileTypeFromBuffer } from 'file-type';
import { sniffExecutable } from './executables.js';
import { sniffMarkup } from './markup.js';
import { normalizeContentType } from './types.js';

/** How much of the start of a file the sniffer reads (64 KiB); a signature further in is not seen. */
export const SNIFF_WINDOW_BYTES = 65536;

/** ZIP's local-file header: the container is known even when its entries cannot be read within the window. */
const ZIP_SIGNATURE = [0x50, 0x4b, 0x03, 0x04];

/**
 * The lowercase MIME type of the content, or null when no rule recognises it (plain text among others).
 * Reads only the first `SNIFF_WINDOW_BYTES`. Scripts and executables are checked first, then HTML, SVG and
 * XML by how the text starts, then the binary signature table of `file-type` (PDF, images, ZIP and the
 * Office/OpenDocument formats it tells apart from ZIP, audio, video, archives …).
 */
export async function sniffContentType(bytes: Uint8Array): Promise<string | null> {
  const window = bytes.subarray(0, SNIFF_WINDOW_BYTES);
  const own = sniffExecutable(window) ?? sniffMarkup(window);
  if (own !== null) return own;
  try {
    const found = await fileTypeFromBuffer(window);
    return found === undefined ? null : normalizeContentType(found.mime);
  } catch {
    // A container cut off by the window (a large ZIP whose entries run past it) cannot be parsed to the end.
    return ZIP_SIGNATURE.every((byte, i) => window[i] === byte) ? 'application/zip' : null;
  }
}
