// Filenames handed to handlers, filename* decoding, and allowedTypes matching.
import { describe, expect, it } from 'vitest';
import {
  isAllowedTypePattern,
  matchesAllowedType,
  MAX_FILENAME_BYTES,
  sanitizeFilename,
} from '../../../runtime/http/upload/index.js';
import { decodeExtendedValue } from '../../../runtime/http/upload/filename.js';

describe('sanitizeFilename', () => {
  it.each([
    ['report.pdf', 'report.pdf'],
    ['../../etc/passwd', 'passwd'],
    ['/abs/path/x.txt', 'x.txt'],
    ['C:\\Users\\me\\x.txt', 'x.txt'],
    ['dir\\..\\x.txt', 'x.txt'],
    ['a/b\\c', 'c'],
    ['dir/', ''],
    ['.', ''],
    ['..', ''],
    ['  ..  ', ''],
    ['...', '...'],
    ['.hidden', '.hidden'],
    ['  spaced name.txt  ', 'spaced name.txt'],
    ['nul\u0000byte.txt', 'nulbyte.txt'],
    ['tab\there\r\n.txt', 'tabhere.txt'],
    ['del\u007f.txt', 'del.txt'],
    ['c1\u0085\u009f.txt', 'c1.txt'],
    ['evil\u202Egnp.exe', 'evilgnp.exe'],
    ['\u200e\u200f\u202a\u202b\u202c\u202d\u2066\u2067\u2068\u2069\u061cx', 'x'],
    ['r\u00e9sum\u00e9.pdf', 'r\u00e9sum\u00e9.pdf'],
    ['\u6f22\u5b57.png', '\u6f22\u5b57.png'],
    ['emoji\u{1F600}.txt', 'emoji\u{1F600}.txt'],
    ['', ''],
  ])('%j → %j', (input, expected) => expect(sanitizeFilename(input)).toBe(expected));

  it('keeps names of exactly 255 bytes and truncates longer ones', () => {
    expect(MAX_FILENAME_BYTES).toBe(255);
    const exact = 'a'.repeat(255);
    expect(sanitizeFilename(exact)).toBe(exact);
    expect(sanitizeFilename('a'.repeat(300))).toBe(exact);
  });

  it('never splits a multi-byte character when truncating', () => {
    // 'é' is 2 bytes: 127 of them are 254 bytes, a 128th would make 256.
    expect(sanitizeFilename('\u00e9'.repeat(200))).toBe('\u00e9'.repeat(127));
    // An emoji is 4 bytes (a surrogate pair): 63 fit in 252 bytes, the 64th would need 256.
    const emoji = sanitizeFilename('\u{1F600}'.repeat(100));
    expect(emoji).toBe('\u{1F600}'.repeat(63));
    expect(Buffer.byteLength('x'.repeat(254) + '\u00e9')).toBe(256);
    expect(sanitizeFilename('x'.repeat(254) + '\u00e9')).toBe('x'.repeat(254));
    for (const name of [emoji, sanitizeFilename('\u6f22'.repeat(100))]) {
      expect(Buffer.byteLength(name)).toBeLessThanOrEqual(255);
      expect(Buffer.from(name, 'utf8').toString('utf8')).toBe(name);
    }
  });

  it('trims what truncation leaves at the end', () => {
    expect(sanitizeFilename('a'.repeat(254) + ' b')).toBe('a'.repeat(254));
  });
});

describe('decodeExtendedValue (filename*)', () => {
  it.each([
    ["UTF-8''na%C3%AFve.txt", 'na\u00efve.txt'],
    ["utf-8'en'%E6%BC%A2.png", '\u6f22.png'],
    ["UTF-8''plain.txt", 'plain.txt'],
    ["ISO-8859-1''caf%E9.txt", 'caf\u00e9.txt'],
  ])('%j → %j', (value, expected) => expect(decodeExtendedValue(value)).toBe(expected));

  it.each([
    "UTF-8''bad%ZZ.txt",
    "UTF-8''cut%E",
    "UTF-8''%FF%FE.txt",
    "KOI8-R''x.txt",
    'no-quotes.txt',
    "''x.txt",
  ])('gives up on %j', (value) => expect(decodeExtendedValue(value)).toBeUndefined());
});

describe('matchesAllowedType', () => {
  it.each<[string, string[] | undefined, boolean]>([
    ['image/png', undefined, true],
    ['image/png', ['image/png'], true],
    ['IMAGE/PNG', ['image/png'], true],
    ['image/png; charset=x', ['image/png'], true],
    ['image/png', ['Image/*'], true],
    ['image/jpeg', ['image/*'], true],
    ['image/jpeg', ['image/png'], false],
    ['imagex/png', ['image/*'], false],
    ['text/plain', ['image/*', 'text/plain'], true],
    ['application/octet-stream', ['image/*'], false],
    ['application/octet-stream', ['*/*'], true],
    ['not a type', ['*/*'], false],
    ['', ['*/*'], false],
  ])('%j against %j is %s', (type, allowed, expected) =>
    expect(matchesAllowedType(type, allowed)).toBe(expected),
  );

  it.each([
    ['image/png', true],
    ['image/*', true],
    ['*/*', true],
    ['*/png', false],
    ['image', false],
    ['image/png;q=1', false],
  ])('pattern %j is valid: %s', (pattern, expected) => expect(isAllowedTypePattern(pattern)).toBe(expected));
});
