// Content-Disposition for stream() downloads (RFC 6266 with RFC 5987 filename*).
import { describe, expect, it } from 'vitest';
import { contentDisposition, stream } from 'svckit';
import { Readable } from 'node:stream';

describe('contentDisposition', () => {
  it('quotes plain ASCII names and adds no filename*', () => {
    expect(contentDisposition('attachment', 'report 2026.pdf')).toBe(
      'attachment; filename="report 2026.pdf"',
    );
  });

  it('adds an RFC 5987 filename* with an ASCII fallback for other names', () => {
    expect(contentDisposition('inline', 'Über “plan”.txt')).toBe(
      `inline; filename="_ber _plan_.txt"; filename*=UTF-8''%C3%9Cber%20%E2%80%9Cplan%E2%80%9D.txt`,
    );
    expect(contentDisposition('attachment', 'a"b%d.txt')).toBe(
      `attachment; filename="a_b_d.txt"; filename*=UTF-8''a%22b%25d.txt`,
    );
  });

  it('drops directories, controls and bidi characters; an empty name leaves only the disposition', () => {
    expect(contentDisposition('attachment', 'C:\\Users\\x\\evil\u202egnp.exe')).toBe(
      'attachment; filename="evilgnp.exe"',
    );
    expect(contentDisposition('attachment', '../..')).toBe('attachment');
    expect(contentDisposition('attachment', '\u0000\r\n')).toBe('attachment');
  });
});

describe('stream() options', () => {
  it('refuses a bad status, contentLength or disposition and destroys the source', () => {
    for (const options of [
      { status: 99 },
      { status: 200.5 },
      { contentLength: -1 },
      { filename: 'a', disposition: 'x' },
    ]) {
      const source = Readable.from(['x']);
      expect(() => stream(source, options as never)).toThrow(
        expect.objectContaining({ name: 'OptionError', code: 'OPTION_INVALID' }),
      );
      expect(source.destroyed).toBe(true);
    }
  });

  it('refuses a source that is not a stream or an async iterable', () => {
    expect(() => stream({} as never)).toThrow(TypeError);
  });
});
