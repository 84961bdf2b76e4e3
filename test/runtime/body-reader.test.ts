// Reading a body up to a limit and the Content-Length rule, owned by runtime/http (body-reader.ts,
// content-length.ts) and used by every adapter, raw bodies and uploads.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readBodyUpTo } from '../../runtime/http/body-reader.js';
import {
  announcesBody,
  parseContentLength,
  refuseDeclaredOverLimit,
} from '../../runtime/http/content-length.js';

describe('Content-Length', () => {
  it('reads plain decimal digits only, however many', () => {
    expect(
      ['0', '42', '007', '', '-1', '1e3', ' 5', '1234567890123456', undefined, null].map(parseContentLength),
    ).toEqual([0, 42, 7, undefined, undefined, undefined, undefined, 1234567890123456, undefined, undefined]);
  });

  it('announces a body with a length above zero or a transfer coding', () => {
    expect(announcesBody({ 'content-length': '3' })).toBe(true);
    expect(announcesBody({ 'content-length': '0' })).toBe(false);
    expect(announcesBody({ 'transfer-encoding': 'chunked' })).toBe(true);
    expect(announcesBody({})).toBe(false);
  });

  it('refuses a declared length over the limit with 413', () => {
    expect(() => refuseDeclaredOverLimit(11, 10)).toThrow(
      expect.objectContaining({ code: 'PAYLOAD_TOO_LARGE' }),
    );
    expect(() => refuseDeclaredOverLimit(10, 10)).not.toThrow();
    expect(() => refuseDeclaredOverLimit(undefined, 10)).not.toThrow();
  });
});

describe('readBodyUpTo', () => {
  it('collects the body to its end', async () => {
    const stream = new PassThrough();
    const read = readBodyUpTo(stream, 10);
    stream.write('abc');
    stream.end('def');
    expect((await read).toString()).toBe('abcdef');
  });

  it('stops with 413 as soon as more than the limit arrived, leaving the rest unread', async () => {
    const stream = new PassThrough();
    const read = readBodyUpTo(stream, 4);
    stream.write('abc');
    stream.write('de');
    await expect(read).rejects.toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(stream.isPaused()).toBe(true);
  });

  it('answers 400 when the body breaks off', async () => {
    const stream = new PassThrough();
    const read = readBodyUpTo(stream, 10);
    stream.write('ab');
    stream.destroy();
    await expect(read).rejects.toMatchObject({ code: 'BAD_REQUEST' });
  });
});
