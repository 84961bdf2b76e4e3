// Minimal real files for the sniffing tests, built byte by byte.
import { crc32, deflateRawSync } from 'node:zlib';

export const bytes = (...parts: (string | number[] | Uint8Array)[]): Uint8Array =>
  Buffer.concat(
    parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p as Uint8Array))),
  );

const u16 = (n: number) => [n & 0xff, (n >> 8) & 0xff];
const u32 = (n: number) => [n & 0xff, (n >> 8) & 0xff, (n >> 16) & 0xff, (n >>> 24) & 0xff];
const be32 = (n: number) => [(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff];

function pngChunk(type: string, data: number[]): Uint8Array {
  const body = bytes(type, data);
  return bytes(be32(data.length), body, be32(crc32(body)));
}

/** A 1×1 greyscale PNG header: signature, IHDR and IEND. */
export const png = bytes(
  [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a],
  pngChunk('IHDR', [...be32(1), ...be32(1), 8, 0, 0, 0, 0]),
  pngChunk('IEND', []),
);
export const pdf = bytes('%PDF-1.7\n1 0 obj\n<< /Type /Catalog >>\nendobj\n%%EOF\n');
export const jpeg = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], 'JFIF\0', [1, 1, 0, 0, 1, 0, 1, 0, 0]);
export const gif = bytes('GIF89a', [1, 0, 1, 0, 0x80, 0, 0], [0, 0, 0, 0xff, 0xff, 0xff], ';');
export const webp = bytes('RIFF', u32(26), 'WEBPVP8L', u32(10), [0x2f, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
/** TIFF in both byte orders: header then an empty first directory. */
export const tiffLittle = bytes('II', [0x2a, 0], u32(8), [0, 0], u32(0));
export const tiffBig = bytes('MM', [0, 0x2a], be32(8), [0, 0], be32(0));

/** A ZIP archive with a central directory; entries deflated unless `stored`. */
export function zip(entries: Record<string, string>, stored = false): Uint8Array {
  const locals: Uint8Array[] = [];
  const centrals: Uint8Array[] = [];
  let offset = 0;
  for (const [name, text] of Object.entries(entries)) {
    const data = Buffer.from(text);
    const packed = stored ? data : deflateRawSync(data);
    const method = stored ? 0 : 8;
    const common = [...u16(method), ...u16(0), ...u16(0x21), ...u32(crc32(data))];
    const sizes = [...u32(packed.length), ...u32(data.length), ...u16(name.length)];
    const local = bytes(
      [0x50, 0x4b, 3, 4, ...u16(20), ...u16(0), ...common, ...sizes, ...u16(0)],
      name,
      packed,
    );
    centrals.push(
      bytes(
        [0x50, 0x4b, 1, 2, ...u16(20), ...u16(20), ...u16(0), ...common, ...sizes],
        [...u16(0), ...u16(0), ...u16(0), ...u16(0), ...u32(0), ...u32(offset)],
        name,
      ),
    );
    locals.push(local);
    offset += local.length;
  }
  const directory = bytes(...centrals);
  const count = Object.keys(entries).length;
  const end = bytes(
    [0x50, 0x4b, 5, 6, 0, 0, 0, 0, ...u16(count), ...u16(count)],
    u32(directory.length),
    u32(offset),
    [0, 0],
  );
  return bytes(...locals, directory, end);
}

/** An Office Open XML package whose content types name `main` as the main part's type. */
export function ooxml(main: string, part: string): Uint8Array {
  return zip({
    '[Content_Types].xml':
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>' +
      '<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
      '<Default Extension="xml" ContentType="application/xml"/>' +
      `<Override PartName="/${part}" ContentType="${main}"/></Types>`,
    [part]: '<?xml version="1.0"?><root/>',
  });
}

export const docx = ooxml(
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  'word/document.xml',
);
export const xlsx = ooxml(
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml',
  'xl/workbook.xml',
);
export const pptx = ooxml(
  'application/vnd.openxmlformats-officedocument.presentationml.presentation.main+xml',
  'ppt/presentation.xml',
);

export const elf = bytes([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0], new Uint8Array(56));
export const exe = bytes('MZ', [0x90, 0, 3, 0, 0, 0], new Uint8Array(56));
export const machO = bytes([0xcf, 0xfa, 0xed, 0xfe, 7, 0, 0, 1, 3, 0, 0, 0]);
export const shebang = bytes('#!/bin/sh\necho hi\n');
export const html = bytes('<!DOCTYPE html><html><body>hi</body></html>');
export const svg = bytes(
  '<?xml version="1.0" encoding="UTF-8"?>\n<!-- drawn by hand -->\n' +
    '<!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" "http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">\n' +
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
);
export const xml = bytes('<?xml version="1.0"?><note><to>you</to></note>');
export const text = bytes('just some plain words\nand another line\n');
