// Reply framing, written once (runtime/http/reply-framing.ts) for every adapter's reply and stream writer.
import { describe, expect, it } from 'vitest';
import { checkHeader, frameReply, frameStream, isHeaderError } from '../../runtime/http/reply-framing.js';

describe('reply framing', () => {
  it('sends no body and no content headers on 1xx, 204 and 304', () => {
    for (const status of [101, 204, 304]) {
      expect(frameReply('GET', status, 'x')).toEqual({
        body: undefined,
        dropContentHeaders: true,
        contentLength: undefined,
      });
      expect(frameStream('GET', status)).toEqual({ sendsBody: false, dropContentHeaders: true });
    }
  });

  it("answers HEAD with the GET body's length and no body", () => {
    expect(frameReply('HEAD', 200, 'héllo')).toEqual({
      body: undefined,
      dropContentHeaders: false,
      contentLength: 6,
    });
    expect(frameReply('HEAD', 200, undefined).contentLength).toBeUndefined();
    expect(frameStream('HEAD', 200)).toEqual({ sendsBody: false, dropContentHeaders: false });
  });

  it('frames an empty answer as an empty body, so keep-alive framing holds', () => {
    expect(frameReply('GET', 200, undefined)).toEqual({
      body: '',
      dropContentHeaders: false,
      contentLength: 0,
    });
    expect(frameReply('POST', 201, Buffer.from('ab')).contentLength).toBe(2);
  });

  it('refuses header names and values node would refuse, CR/LF above all', () => {
    expect(() => checkHeader('x-ok', ['a', 'b'])).not.toThrow();
    expect(() => checkHeader('x-bad', 'a\r\nset-cookie: x')).toThrow(TypeError);
    expect(() => checkHeader('bad name', 'a')).toThrow(TypeError);
    expect(() => checkHeader('__proto__', 'a')).toThrow(TypeError);
    expect(isHeaderError(Object.assign(new TypeError('x'), { code: 'ERR_INVALID_CHAR' }))).toBe(true);
    expect(isHeaderError(new Error('x'))).toBe(false);
  });
});
