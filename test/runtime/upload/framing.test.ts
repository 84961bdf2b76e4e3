// Multipart framing: the same body gives the same files and fields however it is cut into chunks, file
// bytes that look like a delimiter survive untouched, preamble, epilogue and truncation are handled, and a
// file part's size bound follows from the declared length wherever the chunks are cut.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  BOUNDARY,
  chunksOf,
  multipart,
  randomSizes,
  readAll,
  readAllEncoded,
  readStream,
  rejectionOf,
  sessionOf,
  streamOf,
} from './multipart.js';

const DELIMITER = `\r\n--${BOUNDARY}`;

/** Bytes that come close to a delimiter without being one, in every way that matters at a chunk edge. */
const TRICKY = Buffer.concat([
  Buffer.from('\r\n--'),
  Buffer.from(DELIMITER.slice(0, -1)),
  Buffer.from('x\r'),
  Buffer.from(`--${BOUNDARY}`), // the boundary without the CRLF before it is data
  Buffer.from('\r\r\n\r\n-'),
  Buffer.from(`\n--${BOUNDARY}`),
  Buffer.from(`\r--${BOUNDARY}`),
  Buffer.from(`\r\n-${BOUNDARY}`),
  Buffer.from(`\r\n--${BOUNDARY.toUpperCase()}`),
  randomBytes(300),
  Buffer.from(DELIMITER.slice(0, 5)),
]);

const PARTS = [
  { name: 'title', data: 'Holiday \u{1F334} r\u00e9sum\u00e9' },
  { name: 'tricky', filename: 'tricky.bin', type: 'application/octet-stream', data: TRICKY },
  { name: 'empty', filename: 'empty.txt', type: 'text/plain', data: '' },
  { name: 'note', data: '' },
  { name: 'ends-with-cr', filename: 'cr.bin', data: Buffer.from('abc\r') },
  { name: 'ends-with-crlf', filename: 'crlf.bin', data: Buffer.from('abc\r\n') },
  { name: 'ends-with-prefix', filename: 'prefix.bin', data: Buffer.from(`abc${DELIMITER.slice(0, -2)}`) },
  { name: 'random', filename: 'random.bin', data: randomBytes(20_000) },
  { name: 'last', data: 'done' },
];
const BODY = multipart(PARTS, {
  preamble: 'This is a preamble.\r\n--not-the-boundary',
  epilogue: '\r\nepilogue',
});

function expected() {
  return {
    files: PARTS.filter((spec) => spec.filename !== undefined).map((spec) => ({
      field: spec.name,
      filename: spec.filename,
      declaredType: spec.type ?? 'application/octet-stream',
      declaredLength: undefined,
      data: Buffer.from(spec.data).toString('base64'),
    })),
    fields: Object.fromEntries(
      PARTS.filter((spec) => spec.filename === undefined).map((spec) => [spec.name, spec.data]),
    ),
  };
}

describe('chunking', () => {
  const chunkings: Array<[string, number | number[]]> = [
    ['1-byte', 1],
    ['2-byte', 2],
    ['3-byte', 3],
    ['7-byte', 7],
    ['delimiter-sized', DELIMITER.length],
    ['delimiter-1', DELIMITER.length - 1],
    ['64 KiB', 65536],
    ['whole body', BODY.length],
    ['random up to 10', randomSizes(1, 5000, 10)],
    ['random up to 100', randomSizes(2, 1000, 100)],
    ['random up to 5000', randomSizes(3, 100, 5000)],
  ];

  it.each(chunkings)('%s chunks give the same files and fields', async (_label, sizes) => {
    const result = await readAllEncoded(sessionOf(BODY, { chunks: sizes }));
    expect(result).toEqual(expected());
  });

  it('cuts at every single position of the body the same way', async () => {
    const want = expected();
    for (let cut = 1; cut < BODY.length; cut += cut < 400 ? 1 : 97) {
      const result = await readAllEncoded(sessionOf(BODY, { chunks: [cut, BODY.length] }));
      expect(result).toEqual(want);
    }
  });

  it('passes file bytes on as slices of the incoming chunks, not copies', async () => {
    const data = randomBytes(100_000);
    const body = multipart([{ name: 'f', filename: 'f.bin', data }]);
    const chunks = chunksOf(body, 16384);
    const session = sessionOf(streamOf(chunks));
    const sources = new Set(chunks.map((chunk) => chunk.buffer));
    let shared = 0;
    let total = 0;
    for await (const file of session.body.files) {
      // 'data' events hand over the pushed chunks as they are (read() would concatenate buffered ones).
      await new Promise((resolve) => {
        file.stream.on('data', (piece: Buffer) => {
          total++;
          if (sources.has(piece.buffer)) shared++;
        });
        file.stream.on('end', resolve);
      });
    }
    // Only the few bytes held back at a chunk edge may be copied.
    expect(shared).toBeGreaterThanOrEqual(total - 1);
  });
});

describe('framing rules', () => {
  it('ignores the preamble and the epilogue', async () => {
    const body = multipart([{ name: 'a', data: '1' }], {
      // A boundary in the middle of a line is no delimiter.
      preamble: `junk --${BOUNDARY} and more junk`,
      epilogue: `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="b"\r\n\r\n2`,
    });
    expect((await readAll(sessionOf(body))).fields).toEqual({ a: '1' });
  });

  it('finds a first delimiter at the very start of the body', async () => {
    const body = Buffer.from(
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--`,
    );
    for (const chunks of [1, 2, 100])
      expect((await readAll(sessionOf(body, { chunks }))).fields).toEqual({ a: '1' });
  });

  it('finds a first delimiter after a CRLF at the start of the body', async () => {
    const body = Buffer.from(
      `\r\n--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}--`,
    );
    for (const chunks of [1, 2, 100])
      expect((await readAll(sessionOf(body, { chunks }))).fields).toEqual({ a: '1' });
  });

  it('reads a body with no parts, only the close delimiter', async () => {
    expect(await readAll(sessionOf(Buffer.from(`--${BOUNDARY}--\r\n`)))).toEqual({ files: [], fields: {} });
  });

  it('accepts a close delimiter without a trailing CRLF', async () => {
    const body = multipart([{ name: 'a', data: '1' }]);
    expect(body.subarray(-2).toString()).toBe('--');
    expect((await readAll(sessionOf(body))).fields).toEqual({ a: '1' });
  });

  it.each<[string, Buffer]>([
    ['an empty body', Buffer.alloc(0)],
    ['a body without any delimiter', Buffer.from('just some text')],
    ['a body cut inside a file', multipart([{ name: 'f', filename: 'x', data: 'abc' }]).subarray(0, -20)],
    ['a body cut in the part headers', Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-da`)],
    ['a body cut right after a delimiter', Buffer.from(`--${BOUNDARY}`)],
    [
      'a body cut after the first dash of the close delimiter',
      Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--${BOUNDARY}-`),
    ],
    ['a body without the close delimiter', multipart([{ name: 'a', data: '1' }], { close: false })],
    [
      'a body cut in the middle of the close delimiter',
      multipart([{ name: 'a', data: '1' }]).subarray(0, -5),
    ],
  ])('refuses %s as truncated', async (_label, body) => {
    for (const chunks of [1, 65536]) {
      const error = await rejectionOf(readAll(sessionOf(body, { chunks })));
      expect(error).toMatchObject({
        status: 400,
        code: 'MALFORMED_MULTIPART',
        details: { reason: 'truncated' },
      });
    }
  });

  it.each([
    ['a boundary followed by other characters', `--${BOUNDARY}x\r\n`],
    ['a boundary followed by a bare LF', `--${BOUNDARY}\n`],
    ['a boundary followed by CR without LF', `--${BOUNDARY}\rX`],
    ['padding followed by junk', `--${BOUNDARY}  x\r\n`],
    ['a single dash after the boundary', `--${BOUNDARY}-x`],
  ])('refuses %s', async (_label, text) => {
    const error = await rejectionOf(
      readAll(sessionOf(Buffer.from(text + 'Content-Disposition: form-data; name="a"\r\n\r\n1'))),
    );
    expect(error).toMatchObject({ code: 'MALFORMED_MULTIPART', details: { reason: 'delimiter-invalid' } });
  });

  it('refuses part data that contains the delimiter followed by junk', async () => {
    const body = multipart([{ name: 'f', filename: 'x', data: `before${DELIMITER}junk` }]);
    const error = await rejectionOf(readAll(sessionOf(body)));
    expect(error).toMatchObject({ details: { reason: 'delimiter-invalid' } });
  });
});

describe("a file part's size bound", () => {
  const DATA = randomBytes(5000);
  const BODY = multipart([
    { name: 'note', data: 'a text field first' },
    { name: 'a', filename: 'a.bin', data: Buffer.from('ab') },
    { name: 'b', filename: 'b.bin', data: DATA },
  ]);
  /** Where the data of the part named `filename` begins. */
  const dataStart = (filename: string) =>
    BODY.indexOf('\r\n\r\n', BODY.indexOf(`filename="${filename}"`)) + 4;

  it('is the declared length less what precedes the part and the close delimiter, however the body is cut', async () => {
    for (const chunks of [1, 3, 97, 4096, 65536, randomSizes(7, 64, 300)]) {
      const session = sessionOf(BODY, { chunks, headers: { 'content-length': String(BODY.length) } });
      const seen: [number | undefined, number][] = [];
      for await (const file of session.body.files) {
        seen.push([file.sizeAtMost, (await readStream(file.stream)).length]);
      }
      const closing = `\r\n--${BOUNDARY}--`.length;
      expect(seen, String(chunks)).toEqual([
        [BODY.length - dataStart('a.bin') - closing, 2],
        // The last part is bounded by exactly its size.
        [DATA.length, DATA.length],
      ]);
    }
  });

  it('is unknown for a body of undeclared length (chunked)', async () => {
    const session = sessionOf(BODY, { chunks: 100 });
    const bounds: (number | undefined)[] = [];
    for await (const file of session.body.files) {
      bounds.push(file.sizeAtMost);
      await readStream(file.stream);
    }
    expect(bounds).toEqual([undefined, undefined]);
  });
});
