// Strict part headers: every refused shape answers MALFORMED_MULTIPART (details carry only a reason), and
// the accepted ones give the handler field, filename, declared type and length.
import { describe, expect, it } from 'vitest';
import type { SvcError } from '../../../runtime/http/errors.js';
import { multipart, readAll, rejectionOf, sessionOf, type PartSpec } from './multipart.js';

const FILE = 'form-data; name="f"; filename="a.txt"';

async function refusal(parts: Array<PartSpec | Buffer>, limits = {}) {
  const body = multipart(parts);
  const outcomes = [];
  // The same refusal whether the headers arrive whole or byte by byte.
  for (const chunks of [65536, 1])
    outcomes.push(await rejectionOf(readAll(sessionOf(body, { chunks, limits }))));
  const [whole, byteByByte] = outcomes as [SvcError, SvcError];
  expect(byteByByte).toMatchObject({ code: whole.code, details: whole.details });
  return whole;
}

describe('refused part headers', () => {
  it.each<[string, PartSpec | Buffer, string]>([
    ['a folded line (SP)', { disposition: FILE, headers: ['X-A: one', ' two'] }, 'header-folded'],
    ['a folded line (HTAB)', { disposition: FILE, headers: ['X-A: one', '\ttwo'] }, 'header-folded'],
    [
      'a folded first line',
      Buffer.from(' Content-Disposition: form-data; name="a"\r\n\r\nx'),
      'header-folded',
    ],
    [
      'a duplicated header',
      { disposition: FILE, headers: ['Content-Disposition: form-data; name="g"'] },
      'header-duplicated',
    ],
    [
      'a duplicated header in another case',
      { disposition: FILE, headers: ['X-Y: 1', 'x-y: 2'] },
      'header-duplicated',
    ],
    [
      'two Content-Types',
      { disposition: FILE, type: 'text/plain', headers: ['content-type: image/png'] },
      'header-duplicated',
    ],
    ['a line without a colon', { disposition: FILE, headers: ['no colon here'] }, 'header-invalid'],
    ['an empty header name', { disposition: FILE, headers: [': value'] }, 'header-invalid'],
    ['a space before the colon', { disposition: FILE, headers: ['X-A : value'] }, 'header-invalid'],
    ['a name with a non-token character', { disposition: FILE, headers: ['X(A): value'] }, 'header-invalid'],
    [
      'a bare LF inside a line',
      Buffer.from('Content-Disposition: form-data; name="a"\nX-B: 1\r\n\r\nx'),
      'header-invalid',
    ],
    ['a bare CR inside a value', { disposition: FILE, headers: ['X-A: a\rb'] }, 'header-invalid'],
    ['a NUL in a value', { disposition: FILE, headers: ['X-A: a\u0000b'] }, 'header-invalid'],
    ['no Content-Disposition', { type: 'text/plain', data: 'x' }, 'disposition-invalid'],
    ['no headers at all', Buffer.from('\r\nbody'), 'disposition-invalid'],
    [
      'a disposition other than form-data',
      { disposition: 'attachment; name="f"; filename="a"' },
      'disposition-invalid',
    ],
    ['a malformed disposition', { disposition: 'form-data; name="unterminated' }, 'disposition-invalid'],
    [
      'a repeated disposition parameter',
      { disposition: 'form-data; name="a"; name="b"' },
      'disposition-invalid',
    ],
    [
      'a repeated filename',
      { disposition: 'form-data; name="a"; filename="x"; FILENAME="y"' },
      'disposition-invalid',
    ],
    ['no name', { disposition: 'form-data; filename="a.txt"' }, 'name-missing'],
    ['an empty name', { disposition: 'form-data; name=""' }, 'name-missing'],
    [
      'a nested multipart part',
      { disposition: FILE, type: 'multipart/mixed; boundary=inner' },
      'nested-multipart',
    ],
    ['a nested multipart field', { name: 'a', type: 'Multipart/Form-Data; boundary=x' }, 'nested-multipart'],
    ['an invalid part Content-Type', { disposition: FILE, type: 'not a type' }, 'part-content-type-invalid'],
    ['an empty part Content-Type', { disposition: FILE, type: '' }, 'part-content-type-invalid'],
    [
      'a negative part Content-Length',
      { disposition: FILE, headers: ['Content-Length: -1'] },
      'part-content-length-invalid',
    ],
    [
      'a part Content-Length that is not a number',
      { disposition: FILE, headers: ['Content-Length: 3x'] },
      'part-content-length-invalid',
    ],
    [
      'a fractional part Content-Length',
      { disposition: FILE, headers: ['Content-Length: 1.5'] },
      'part-content-length-invalid',
    ],
    [
      'a part Content-Length followed by a no-break space',
      { disposition: FILE, headers: ['Content-Length: 1\u00a0'] },
      'part-content-length-invalid',
    ],
    [
      'an empty part Content-Length',
      { disposition: FILE, headers: ['Content-Length:'] },
      'part-content-length-invalid',
    ],
    [
      'a base64 transfer encoding',
      { disposition: FILE, headers: ['Content-Transfer-Encoding: base64'] },
      'transfer-encoding-invalid',
    ],
    [
      'a quoted-printable field',
      { name: 'a', headers: ['Content-Transfer-Encoding: quoted-printable'] },
      'transfer-encoding-invalid',
    ],
  ])('%s', async (_label, spec, reason) => {
    const error = await refusal([{ name: 'first', data: 'ok' }, spec]);
    expect(error).toMatchObject({ status: 400, code: 'MALFORMED_MULTIPART', details: { reason } });
  });

  it('refuses a header block larger than maxHeaderBytes, and accepts one of exactly that size', async () => {
    const spec = { disposition: 'form-data; name="a"', headers: ['X-Pad: ' + 'p'.repeat(100)], data: 'v' };
    // The block is every header line with its CRLF, the last line's CRLF excluded.
    const size = `Content-Disposition: form-data; name="a"\r\nX-Pad: ${'p'.repeat(100)}`.length;
    for (const chunks of [65536, 1, 7]) {
      const fits = await readAll(sessionOf(multipart([spec]), { chunks, limits: { maxHeaderBytes: size } }));
      expect(fits.fields).toEqual({ a: 'v' });
      const error = await rejectionOf(
        readAll(sessionOf(multipart([spec]), { chunks, limits: { maxHeaderBytes: size - 1 } })),
      );
      expect(error).toMatchObject({ code: 'MALFORMED_MULTIPART', details: { reason: 'header-too-large' } });
    }
  });

  it('refuses an endless header block without buffering it', async () => {
    const endless = Buffer.concat([
      Buffer.from('Content-Disposition: form-data; name="a"\r\nX-Junk: '),
      Buffer.alloc(1 << 20, 'j'),
    ]);
    const error = await rejectionOf(
      readAll(sessionOf(multipart([endless], { close: false }), { chunks: 1000 })),
    );
    expect(error).toMatchObject({ details: { reason: 'header-too-large' } });
  });

  it('never puts client bytes into the error', async () => {
    const error = await refusal([
      { disposition: 'form-data; name="secret-value"', headers: ['X-Secret: hunter2', 'X-Secret: again'] },
    ]);
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toMatch(/secret|hunter2/);
  });
});

describe('accepted part headers', () => {
  it('reads field, filename, declared type and length', async () => {
    const { files } = await readAll(
      sessionOf(
        multipart([
          {
            name: 'doc',
            filename: 'a.txt',
            type: 'Text/Plain; charset=UTF-8',
            headers: ['Content-Length: 3'],
            data: 'abc',
          },
          { name: 'raw', filename: 'b.bin', data: 'x' },
        ]),
      ),
    );
    expect(files.map(({ data: _data, ...rest }) => rest)).toEqual([
      { field: 'doc', filename: 'a.txt', declaredType: 'text/plain', declaredLength: 3 },
      {
        field: 'raw',
        filename: 'b.bin',
        declaredType: 'application/octet-stream',
        declaredLength: undefined,
      },
    ]);
  });

  it('leaves declaredLength off the file when the part sent none', async () => {
    const session = sessionOf(multipart([{ name: 'f', filename: 'x', data: 'x' }]));
    for await (const file of session.body.files) {
      expect('declaredLength' in file).toBe(false);
      file.stream.resume();
    }
  });

  it('accepts case-insensitive names, extra headers, identity transfer encodings and trailing spaces', async () => {
    const { files, fields } = await readAll(
      sessionOf(
        multipart([
          {
            disposition: 'FORM-DATA;name=plain;  filename="x.txt" ; ',
            headers: ['content-transfer-encoding: Binary', 'X-Extra:   spaced   '],
            data: 'f',
          },
          { name: 'a', headers: ['Content-Transfer-Encoding: 7bit'], data: '1' },
          { name: 'b', headers: ['Content-Transfer-Encoding: 8BIT'], data: '2' },
        ]),
      ),
    );
    expect(files.map((file) => [file.field, file.filename])).toEqual([['plain', 'x.txt']]);
    expect(fields).toEqual({ a: '1', b: '2' });
  });

  it('prefers filename* over filename, and falls back when filename* cannot be decoded', async () => {
    const { files } = await readAll(
      sessionOf(
        multipart([
          { disposition: `form-data; name="a"; filename="fallback.txt"; filename*=UTF-8''na%C3%AFve.txt` },
          { disposition: `form-data; name="b"; filename*=UTF-8''%E6%BC%A2.png; filename="x.png"` },
          { disposition: `form-data; name="c"; filename="kept.txt"; filename*=UTF-8''bad%ZZ` },
          { disposition: `form-data; name="d"; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd` },
        ]),
      ),
    );
    expect(files.map((file) => file.filename)).toEqual([
      'na\u00efve.txt',
      '\u6f22.png',
      'kept.txt',
      'passwd',
    ]);
  });

  it('sanitises filenames and keeps parts whose sanitised name is empty as files', async () => {
    const { files, fields } = await readAll(
      sessionOf(
        multipart([
          { name: 'a', filename: '../../etc/passwd', data: '1' },
          { name: 'b', filename: 'C:\\Users\\me\\photo.jpg', data: '2' },
          { name: 'c', filename: '', data: '3' },
          { name: 'd', filename: '..', data: '4' },
          { name: 'e', filename: 'evil\u202egnp.exe', data: '5' },
          { name: 'f', filename: 'r\u00e9sum\u00e9.pdf', data: '6' },
        ]),
      ),
    );
    expect(files.map((file) => [file.field, file.filename, file.data.toString()])).toEqual([
      ['a', 'passwd', '1'],
      ['b', 'photo.jpg', '2'],
      ['c', '', '3'],
      ['d', '', '4'],
      ['e', 'evilgnp.exe', '5'],
      ['f', 'r\u00e9sum\u00e9.pdf', '6'],
    ]);
    expect(fields).toEqual({});
  });

  it('unescapes \\" and \\\\ in quoted values but keeps other backslashes', async () => {
    const { fields, files } = await readAll(
      sessionOf(
        multipart([
          { disposition: 'form-data; name="say \\"hi\\" \\\\ there"', data: 'v' },
          { disposition: 'form-data; name="f"; filename="dir\\name.txt"', data: 'x' },
        ]),
      ),
    );
    expect(Object.keys(fields)).toEqual(['say "hi" \\ there']);
    expect(files[0]?.filename).toBe('name.txt');
  });

  it('accepts transport padding after a delimiter', async () => {
    const body = Buffer.from(
      '--svc-test-boundary \t \r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--svc-test-boundary\t\r\n' +
        'Content-Disposition: form-data; name="b"\r\n\r\n2\r\n--svc-test-boundary--',
    );
    for (const chunks of [65536, 1])
      expect((await readAll(sessionOf(body, { chunks }))).fields).toEqual({ a: '1', b: '2' });
  });
});
