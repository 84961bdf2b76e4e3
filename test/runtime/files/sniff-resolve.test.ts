// The upload type rule: the detected type is stored and the claim kept, disguises refused, octet-stream promoted
// only to inert types, allowedTypes checked against what is stored.
import { describe, expect, it } from 'vitest';
import {
  decideContentType,
  resolveContentType,
  SNIFF_WINDOW_BYTES,
  typeAllowed,
  type SniffFunction,
} from '../../../runtime/files/sniff/index.js';
import { HttpError } from '../../../runtime/http/errors.js';
import * as sample from './sniff-samples.js';

async function refusal(run: () => Promise<unknown>): Promise<{ code: string; status: number }> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    const { code, status } = error as HttpError;
    return { code, status };
  }
  throw new Error('expected a refusal');
}

const decide = (content: Uint8Array, declared: string, allowedTypes?: string[]) =>
  decideContentType(content, { declared, sniff: true, allowedTypes });

const MISMATCH = { code: 'FILE_TYPE_MISMATCH', status: 415 };
const NOT_ALLOWED = { code: 'FILE_TYPE_NOT_ALLOWED', status: 415 };

describe('decideContentType with the built-in sniffer', () => {
  it('stores a matching declaration without a claim to keep', async () => {
    expect(await decide(sample.png, 'image/png')).toEqual({ contentType: 'image/png' });
  });

  it('ignores case and parameters when comparing', async () => {
    expect(await decide(sample.png, ' IMAGE/PNG; name="a.png"')).toEqual({ contentType: 'image/png' });
    expect(await decide(sample.html, 'Text/HTML; charset=utf-8')).toEqual({ contentType: 'text/html' });
    expect(await decide(sample.jpeg, 'image/jpg')).toEqual({ contentType: 'image/jpeg' });
  });

  it('refuses disguises with FILE_TYPE_MISMATCH', async () => {
    expect(await refusal(() => decide(sample.png, 'text/plain'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.html, 'image/png'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.exe, 'application/pdf'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.pdf, 'image/png'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.html, 'text/plain'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.svg, 'image/png'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.shebang, 'text/plain'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.jpeg, 'image/png'))).toEqual(MISMATCH);
  });

  it('refuses a declared signature type whose signature the bytes lack', async () => {
    expect(await refusal(() => decide(sample.text, 'image/png'))).toEqual(MISMATCH);
    expect(await refusal(() => decide(sample.text, 'application/pdf'))).toEqual(MISMATCH);
    expect(
      await refusal(() =>
        decide(sample.text, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'),
      ),
    ).toEqual(MISMATCH);
  });

  it('keeps a declaration the sniffer cannot check', async () => {
    expect(await decide(sample.text, 'text/plain; charset=utf-8')).toEqual({
      contentType: 'text/plain; charset=utf-8',
    });
    expect(await decide(sample.bytes('{"a":1}'), 'application/json')).toEqual({
      contentType: 'application/json',
    });
  });

  it('stores a more precise type the claim covers and keeps the claim', async () => {
    const docx = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
    expect(await decide(sample.docx, 'application/zip')).toEqual({
      contentType: docx,
      declaredType: 'application/zip',
    });
    expect(await decide(sample.zip({ 'a.txt': 'x' }), docx)).toEqual({
      contentType: 'application/zip',
      declaredType: docx,
    });
    const xhtml = sample.bytes('<?xml version="1.0"?><html xmlns="http://www.w3.org/1999/xhtml"></html>');
    expect(await decide(xhtml, 'text/html')).toEqual({
      contentType: 'application/xhtml+xml',
      declaredType: 'text/html',
    });
    expect(await decide(sample.svg, 'text/xml')).toEqual({
      contentType: 'image/svg+xml',
      declaredType: 'text/xml',
    });
  });

  it('promotes application/octet-stream to an inert detected type and keeps the claim', async () => {
    for (const [content, type] of [
      [sample.pdf, 'application/pdf'],
      [sample.png, 'image/png'],
      [sample.docx, 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      [sample.zip({ 'a.txt': 'x' }), 'application/zip'],
    ] as const) {
      expect(await decide(content, 'application/octet-stream')).toEqual({
        contentType: type,
        declaredType: 'application/octet-stream',
      });
    }
    expect(await decide(sample.png, '')).toEqual({
      contentType: 'image/png',
      declaredType: 'application/octet-stream',
    });
  });

  it('refuses HTML, SVG, XML, scripts and executables sent as octet-stream', async () => {
    for (const content of [
      sample.html,
      sample.svg,
      sample.xml,
      sample.shebang,
      sample.exe,
      sample.elf,
      sample.machO,
    ]) {
      expect(await refusal(() => decide(content, 'application/octet-stream'))).toEqual(NOT_ALLOWED);
    }
  });

  it('leaves unrecognised content and types neither inert nor active sent as octet-stream as they are', async () => {
    expect(await decide(sample.text, 'application/octet-stream')).toEqual({
      contentType: 'application/octet-stream',
    });
    const gzip = sample.bytes([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(await decide(gzip, 'application/octet-stream')).toEqual({
      contentType: 'application/octet-stream',
    });
    expect(await decide(gzip, 'application/gzip')).toEqual({ contentType: 'application/gzip' });
  });

  it('checks allowedTypes against the detected type, wildcards included', async () => {
    expect(await decide(sample.png, 'application/octet-stream', ['image/*'])).toEqual({
      contentType: 'image/png',
      declaredType: 'application/octet-stream',
    });
    expect(await decide(sample.pdf, 'application/pdf', ['image/*', 'application/pdf'])).toEqual({
      contentType: 'application/pdf',
    });
    expect(await refusal(() => decide(sample.pdf, 'application/octet-stream', ['image/*']))).toEqual(
      NOT_ALLOWED,
    );
    expect(await refusal(() => decide(sample.text, 'application/octet-stream', ['image/*']))).toEqual(
      NOT_ALLOWED,
    );
  });
});

describe('decideContentType without sniffing or with a custom sniffer', () => {
  it('stores the declaration as given when sniffing is off, checking only allowedTypes', async () => {
    expect(await decideContentType(sample.html, { declared: 'image/png' })).toEqual({
      contentType: 'image/png',
    });
    expect(
      await refusal(() =>
        decideContentType(sample.png, { declared: 'text/plain', allowedTypes: ['image/*'] }),
      ),
    ).toEqual(NOT_ALLOWED);
  });

  it('gives a custom sniffer the first 64 KiB and applies the same rules to its answer', async () => {
    const seen: number[] = [];
    const sniff: SniffFunction = (content) => {
      seen.push(content.length);
      return content[0] === 0x41 ? 'Text/CSV; charset=utf-8' : null;
    };
    const big = new Uint8Array(SNIFF_WINDOW_BYTES * 2).fill(0x41);
    expect(await decideContentType(big, { declared: 'application/octet-stream', sniff })).toEqual({
      contentType: 'application/octet-stream',
    });
    expect(seen).toEqual([64 * 1024]);
    expect(await refusal(() => decideContentType(big, { declared: 'image/png', sniff }))).toEqual(MISMATCH);
    // Its null is no opinion: the declaration stands even for a signature type.
    expect(await decideContentType(sample.text, { declared: 'image/png', sniff })).toEqual({
      contentType: 'image/png',
    });
    const htmlSniffer: SniffFunction = () => 'text/html';
    expect(
      await refusal(() =>
        decideContentType(sample.text, { declared: 'application/octet-stream', sniff: htmlSniffer }),
      ),
    ).toEqual(NOT_ALLOWED);
  });
});

describe('resolveContentType and typeAllowed', () => {
  it('decides from given types', () => {
    expect(resolveContentType({ declared: 'application/octet-stream', detected: 'IMAGE/GIF' })).toEqual({
      contentType: 'image/gif',
      declaredType: 'application/octet-stream',
    });
    expect(() => resolveContentType({ declared: 'image/gif', detected: 'text/html' })).toThrow(HttpError);
    expect(() => resolveContentType({ declared: 'text/plain', detected: null, allowedTypes: [] })).toThrow(
      HttpError,
    );
  });

  it('matches exact types and trailing wildcards without case or parameters', () => {
    expect(typeAllowed('image/png', undefined)).toBe(true);
    expect(typeAllowed('image/png', [])).toBe(false);
    expect(typeAllowed('IMAGE/PNG; x=1', ['image/*'])).toBe(true);
    expect(typeAllowed('image/svg+xml', ['image/*'])).toBe(true);
    expect(typeAllowed('application/pdf', ['image/*'])).toBe(false);
    expect(typeAllowed('application/pdf', ['Application/PDF; q=1'])).toBe(true);
    expect(typeAllowed('imagery/png', ['image/*'])).toBe(false);
    expect(typeAllowed('text/plain', ['text/html'])).toBe(false);
  });
});
