// The built-in sniffer: each format of the signature table recognised from real minimal bytes, the text formats
// a browser would render, executables, and nothing read past the 64 KiB window.
import { describe, expect, it } from 'vitest';
import { SNIFF_WINDOW_BYTES, sniffContentType } from '../../../runtime/files/sniff/index.js';
import * as sample from './sniff-samples.js';

const { bytes } = sample;

describe('sniffContentType: binary signatures', () => {
  it.each([
    ['PDF', sample.pdf, 'application/pdf'],
    ['PNG', sample.png, 'image/png'],
    ['JPEG', sample.jpeg, 'image/jpeg'],
    ['GIF', sample.gif, 'image/gif'],
    ['WebP', sample.webp, 'image/webp'],
    ['TIFF little-endian', sample.tiffLittle, 'image/tiff'],
    ['TIFF big-endian', sample.tiffBig, 'image/tiff'],
    ['ZIP (deflated)', sample.zip({ 'a.txt': 'hello', 'b.txt': 'world' }), 'application/zip'],
    ['ZIP (stored)', sample.zip({ 'a.txt': 'hello' }, true), 'application/zip'],
    ['docx', sample.docx, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
    ['xlsx', sample.xlsx, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
    ['pptx', sample.pptx, 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
  ])('%s', async (_name, content, type) => {
    expect(await sniffContentType(content)).toBe(type);
  });

  it('tells a docx larger than the window by its first entries, and a cut-off ZIP is still a ZIP', async () => {
    const filler = 'x'.repeat(200_000);
    const big = sample.zip(
      {
        '[Content_Types].xml':
          '<Types><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
        'word/document.xml': filler,
      },
      true,
    );
    expect(big.length).toBeGreaterThan(SNIFF_WINDOW_BYTES);
    expect(await sniffContentType(big)).toBe(
      'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
    );
    const plain = sample.zip({ 'a.bin': filler, 'b.bin': filler }, true);
    expect(await sniffContentType(plain)).toBe('application/zip');
  });
});

describe('sniffContentType: executables and scripts', () => {
  it.each([
    ['shebang', sample.shebang, 'application/x-sh'],
    ['env shebang', bytes('#!/usr/bin/env python3\nprint(1)\n'), 'application/x-sh'],
    ['MZ', sample.exe, 'application/x-msdownload'],
    ['ELF', sample.elf, 'application/x-elf'],
    ['Mach-O 64 LE', sample.machO, 'application/x-mach-binary'],
    ['Mach-O 32 BE', bytes([0xfe, 0xed, 0xfa, 0xce, 0, 0, 0, 7, 0, 0, 0, 3]), 'application/x-mach-binary'],
    [
      'universal Mach-O',
      bytes([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 2, 0, 0, 0, 7]),
      'application/x-mach-binary',
    ],
    ['Java class', bytes([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 52, 0, 0, 0, 7]), 'application/java-vm'],
  ])('%s', async (_name, content, type) => {
    expect(await sniffContentType(content)).toBe(type);
  });
});

describe('sniffContentType: text a browser would render', () => {
  it.each([
    ['doctype', '<!DOCTYPE html><p>x', 'text/html'],
    ['uppercase tag', '<HTML><BODY>x</BODY></HTML>', 'text/html'],
    ['leading whitespace', ' \t\r\n\f<script>alert(1)</script>', 'text/html'],
    ['UTF-8 BOM', '\xef\xbb\xbf<html>', 'text/html'],
    ['head', '<head><title>x</title></head>', 'text/html'],
    ['body', '<body onload="x()">', 'text/html'],
    ['iframe', '<iframe src="https://example.com">', 'text/html'],
    ['bare tag at end', '<b', 'text/html'],
    ['leading comment', '<!-- note -->\nhello', 'text/html'],
    ['SVG with prolog', sample.svg, 'image/svg+xml'],
    ['bare SVG', '<svg xmlns="http://www.w3.org/2000/svg"/>', 'image/svg+xml'],
    ['SVG after a comment', '<!-- c --><SVG>', 'image/svg+xml'],
    ['XML', sample.xml, 'application/xml'],
    ['XML with doctype', '<!DOCTYPE note [<!ELEMENT note (#PCDATA)>]><note/>', 'application/xml'],
    [
      'XHTML with prolog',
      '<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml">',
      'application/xhtml+xml',
    ],
    ['PHP-like processing instruction', '<?php echo 1; ?>', 'application/xml'],
  ])('%s', async (_name, content, type) => {
    expect(await sniffContentType(typeof content === 'string' ? bytes(content) : content)).toBe(type);
  });

  it('reads UTF-16 text by its byte-order mark', async () => {
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<html><body>', 'utf16le')]);
    expect(await sniffContentType(utf16)).toBe('text/html');
  });

  it.each([
    ['plain text', sample.text],
    ['a tag that is not HTML, no prolog', bytes('<note>hi</note>')],
    ['an HTML-like word', bytes('<header>')],
    ['text mentioning a tag', bytes('see <script> below')],
    ['empty', new Uint8Array(0)],
    ['one byte', bytes('<')],
  ])('%s is not recognised', async (_name, content) => {
    expect(await sniffContentType(content)).toBeNull();
  });
});

describe('sniffContentType: the window', () => {
  it('is 64 KiB', () => {
    expect(SNIFF_WINDOW_BYTES).toBe(65536);
  });

  it('does not see a tag that starts past the first 64 KiB', async () => {
    const late = bytes(' '.repeat(SNIFF_WINDOW_BYTES), '<html><script>x</script>');
    expect(await sniffContentType(late)).toBeNull();
    const inside = bytes(' '.repeat(SNIFF_WINDOW_BYTES - 10), '<html><script>x</script>');
    expect(await sniffContentType(inside)).toBe('text/html');
  });

  it('does not see an SVG root behind a comment that runs past the window', async () => {
    const late = bytes('<?xml version="1.0"?><!--', '-'.repeat(SNIFF_WINDOW_BYTES), '--><svg>');
    expect(await sniffContentType(late)).toBe('application/xml');
  });
});
