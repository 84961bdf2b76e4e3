// Programs recognised from their first bytes: scripts with an interpreter line and native executables.

/**
 * `application/x-sh` for an interpreter line (`#!` at byte 0, whatever the interpreter),
 * `application/x-msdownload` for DOS/Windows `MZ`, `application/x-elf` for ELF, `application/x-mach-binary`
 * for Mach-O (32/64-bit, either byte order, and universal binaries), or null.
 */
export function sniffExecutable(bytes: Uint8Array): string | null {
  const b = (i: number) => bytes[i] ?? -1;
  // `#!AMR` is the AMR audio signature, not an interpreter line.
  if (b(0) === 0x23 && b(1) === 0x21 && !startsWithAscii(bytes, '#!AMR')) return 'application/x-sh';
  if (b(0) === 0x4d && b(1) === 0x5a) return 'application/x-msdownload';
  if (b(0) === 0x7f && b(1) === 0x45 && b(2) === 0x4c && b(3) === 0x46) return 'application/x-elf';
  if (bytes.length < 8) return null;
  const magic = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(0, false);
  if (MACH_O_MAGICS.has(magic)) return 'application/x-mach-binary';
  // A universal binary shares 0xCAFEBABE with Java classes: its architecture count is small, where a class
  // file has its version (45 or more) in the same place.
  if (magic === 0xcafebabe) {
    const count = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(4, false);
    if (count > 0 && count < 45) return 'application/x-mach-binary';
  }
  return null;
}

/** Mach-O headers: 32- and 64-bit, big- and little-endian. */
const MACH_O_MAGICS = new Set([0xfeedface, 0xfeedfacf, 0xcefaedfe, 0xcffaedfe]);

function startsWithAscii(bytes: Uint8Array, text: string): boolean {
  for (let i = 0; i < text.length; i++) if (bytes[i] !== text.charCodeAt(i)) return false;
  return true;
}
