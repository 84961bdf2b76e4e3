// startUpload's checks before any body byte is read: media type, boundary parameter, declared length.
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { boundaryOf, startUpload, upload } from '../../../runtime/http/upload/index.js';
import { multipart, readAll, sessionOf } from './multipart.js';

/** A stream that records whether anything asked it for bytes. */
function untouchedStream(): Readable & { wasRead: () => boolean } {
  let read = false;
  const stream = new Readable({
    read() {
      read = true;
      this.push(null);
    },
  });
  return Object.assign(stream, { wasRead: () => read });
}

const limits = upload({ maxBytes: 1000, maxFiles: 1 }).limits;

function start(headers: Record<string, string>) {
  const stream = untouchedStream();
  try {
    startUpload({ stream, headers, limits });
  } catch (error) {
    expect(stream.wasRead()).toBe(false);
    throw error;
  }
  return stream;
}

describe('request media type', () => {
  it.each([
    undefined,
    '',
    'application/json',
    'multipart/mixed; boundary=abc',
    'multipart/form-data-x; boundary=abc',
    'text/plain; multipart/form-data; boundary=abc',
  ])('%j answers 415 UNSUPPORTED_MEDIA_TYPE before reading', (contentType) => {
    const headers: Record<string, string> = contentType === undefined ? {} : { 'content-type': contentType };
    expect(() => start(headers)).toThrow(
      expect.objectContaining({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' }),
    );
  });

  it.each([
    ['Multipart/Form-Data; boundary=abc', 'abc'],
    ['multipart/form-data;boundary=abc', 'abc'],
    ['multipart/form-data ; boundary=abc ; charset=utf-8', 'abc'],
    ['multipart/form-data; BOUNDARY=AbC', 'AbC'],
    ['multipart/form-data; boundary="quoted value"', 'quoted value'],
    ['multipart/form-data; boundary="a\\"b"', undefined],
    ['multipart/form-data; boundary="with:colon?and=equals"', 'with:colon?and=equals'],
    [`multipart/form-data; boundary=${'x'.repeat(70)}`, 'x'.repeat(70)],
    ["multipart/form-data; boundary='+_-.", "'+_-."],
    ["multipart/form-data; boundary='()+_,-./", undefined],
  ])('%j has boundary %j', (contentType, boundary) => {
    if (boundary === undefined) {
      expect(() => boundaryOf(contentType)).toThrow(expect.objectContaining({ code: 'MALFORMED_MULTIPART' }));
    } else {
      expect(boundaryOf(contentType)).toBe(boundary);
    }
  });

  it.each<[string, string]>([
    ['multipart/form-data', 'boundary-missing'],
    ['multipart/form-data; charset=utf-8', 'boundary-missing'],
    ['multipart/form-data; boundary=a; boundary=b', 'boundary-repeated'],
    ['multipart/form-data; boundary=a; Boundary=a', 'boundary-repeated'],
    ['multipart/form-data; boundary=', 'content-type-invalid'],
    ['multipart/form-data; boundary=""', 'boundary-invalid'],
    [`multipart/form-data; boundary=${'x'.repeat(71)}`, 'boundary-invalid'],
    ['multipart/form-data; boundary="ends with space "', 'boundary-invalid'],
    ['multipart/form-data; boundary="semi;colon"', 'boundary-invalid'],
    ['multipart/form-data; boundary=abc!', 'boundary-invalid'],
    ['multipart/form-data; boundary="\u00e9t\u00e9"', 'boundary-invalid'],
    ['multipart/form-data; boundary="unterminated', 'content-type-invalid'],
    ['multipart/form-data; boundary="a"junk', 'content-type-invalid'],
    ['multipart/form-data; boundary = abc', 'content-type-invalid'],
    ['multipart/form-data; boundary=a b', 'content-type-invalid'],
    ['multipart/form-data; =abc', 'content-type-invalid'],
    ['multipart/form-data; boundary="tab\u0001"', 'content-type-invalid'],
  ])('%j is MALFORMED_MULTIPART (%s) before reading', (contentType, reason) => {
    expect(() => start({ 'content-type': contentType })).toThrow(
      expect.objectContaining({ status: 400, code: 'MALFORMED_MULTIPART', details: { reason } }),
    );
  });

  it('reads a body whose boundary was quoted and holds spaces and punctuation', async () => {
    const boundary = "it's (a) +_,-./:=? boundary";
    const body = multipart([{ name: 'a', data: '1' }], { boundary });
    const session = sessionOf(body, {
      headers: { 'content-type': `multipart/form-data; boundary="${boundary}"` },
    });
    expect((await readAll(session)).fields).toEqual({ a: '1' });
  });
});

describe('declared Content-Length', () => {
  const contentType = 'multipart/form-data; boundary=abc';

  it('answers 413 before reading when it is larger than maxBytes', () => {
    expect(() => start({ 'content-type': contentType, 'content-length': '1001' })).toThrow(
      expect.objectContaining({ status: 413, code: 'PAYLOAD_TOO_LARGE', details: { limit: 'maxBytes' } }),
    );
  });

  it('is accepted up to maxBytes and exposed as contentLength', () => {
    const stream = untouchedStream();
    const session = startUpload({
      stream,
      headers: { 'content-type': contentType, 'content-length': '1000' },
      limits,
    });
    expect(session.body.contentLength).toBe(1000);
    expect(stream.wasRead()).toBe(false);
  });

  it.each([undefined, 'abc', '-1', '1.5', ''])('%j gives contentLength undefined', (value) => {
    const headers: Record<string, string> = { 'content-type': contentType };
    if (value !== undefined) headers['content-length'] = value;
    const session = startUpload({ stream: untouchedStream(), headers, limits });
    expect(session.body.contentLength).toBeUndefined();
  });

  it('gives a null-prototype fields map', () => {
    const session = startUpload({
      stream: untouchedStream(),
      headers: { 'content-type': contentType },
      limits,
    });
    expect(Object.getPrototypeOf(session.body.fields)).toBeNull();
  });
});
