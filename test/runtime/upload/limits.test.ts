// Upload limits and refusals: each rejects the iteration and destroys the file stream in progress with the
// same error, so a handler piping the file to disk sees it too.
import { PassThrough, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import type { UploadSession } from '../../../runtime/http/upload/index.js';
import { multipart, readAll, readStream, rejectionOf, sessionOf, type PartSpec } from './multipart.js';

function nullSink(): Writable {
  return new Writable({ write: (_chunk, _encoding, callback) => callback() });
}

/** Iterates like a handler storing files with pipeline(); returns what the iteration and each pipe saw. */
async function storeAll(session: UploadSession) {
  const pipes: Array<Promise<unknown>> = [];
  const iteration = (async () => {
    for await (const file of session.body.files) {
      const piped = pipeline(file.stream, nullSink());
      pipes.push(
        piped.then(
          () => 'ok',
          (error: unknown) => error,
        ),
      );
      await piped.catch(() => undefined);
    }
  })();
  const iterationError = await rejectionOf(iteration);
  return { iterationError, pipeOutcomes: await Promise.all(pipes) };
}

describe('maxFiles', () => {
  const three = multipart([
    { name: 'a', filename: 'a', data: '1' },
    { name: 'b', filename: 'b', data: '2' },
    { name: 'c', filename: 'c', data: '3' },
  ]);

  it('accepts exactly maxFiles files', async () => {
    expect((await readAll(sessionOf(three, { limits: { maxFiles: 3 } }))).files).toHaveLength(3);
  });

  it('refuses one more with 400 TOO_MANY_FILES', async () => {
    // Byte by byte, the third part's headers arrive only after the second file was read, so both were
    // handed over; in one chunk the refusal comes while the second still waits, and it is dropped.
    for (const [chunks, handedOver] of [
      [1, ['1', '2']],
      [65536, ['1']],
    ] as const) {
      const session = sessionOf(three, { chunks, limits: { maxFiles: 2 } });
      const seen: string[] = [];
      const error = await rejectionOf(
        (async () => {
          for await (const file of session.body.files) seen.push((await readStream(file.stream)).toString());
        })(),
      );
      expect(seen).toEqual(handedOver);
      expect(error).toMatchObject({ status: 400, code: 'TOO_MANY_FILES', details: { limit: 'maxFiles' } });
    }
  });

  it('maxFiles 0 accepts text fields but no file', async () => {
    expect(
      (await readAll(sessionOf(multipart([{ name: 'a', data: '1' }]), { limits: { maxFiles: 0 } }))).fields,
    ).toEqual({
      a: '1',
    });
    const error = await rejectionOf(readAll(sessionOf(three, { limits: { maxFiles: 0 } })));
    expect(error.code).toBe('TOO_MANY_FILES');
  });
});

describe('maxFields', () => {
  const fields = (count: number) =>
    multipart(Array.from({ length: count }, (_, i) => ({ name: `f${i}`, data: 'v' })));

  it('defaults to 50', async () => {
    expect(
      Object.keys((await readAll(sessionOf(fields(50), { limits: { maxFields: undefined } }))).fields),
    ).toHaveLength(50);
    const error = await rejectionOf(readAll(sessionOf(fields(51), { limits: { maxFields: undefined } })));
    expect(error).toMatchObject({ status: 400, code: 'TOO_MANY_FIELDS', details: { limit: 'maxFields' } });
  });

  it('counts every field part, repeated names included', async () => {
    const body = multipart([
      { name: 'same', data: '1' },
      { name: 'same', data: '2' },
      { name: 'same', data: '3' },
    ]);
    expect((await rejectionOf(readAll(sessionOf(body, { limits: { maxFields: 2 } })))).code).toBe(
      'TOO_MANY_FIELDS',
    );
  });
});

describe('byte limits', () => {
  it('maxFileBytes: a file of exactly the limit passes, one byte more is 413 and destroys its stream', async () => {
    const ok = multipart([{ name: 'f', filename: 'f', data: 'x'.repeat(100) }]);
    expect((await readAll(sessionOf(ok, { limits: { maxFileBytes: 100 } }))).files[0]?.data.length).toBe(100);
    const big = multipart([{ name: 'f', filename: 'f', data: 'x'.repeat(101) }]);
    for (const chunks of [1, 65536]) {
      const { iterationError, pipeOutcomes } = await storeAll(
        sessionOf(big, { chunks, limits: { maxFileBytes: 100 } }),
      );
      expect(iterationError).toMatchObject({
        status: 413,
        code: 'PAYLOAD_TOO_LARGE',
        details: { limit: 'maxFileBytes' },
      });
      expect(pipeOutcomes).toEqual([iterationError]);
    }
  });

  it('maxFileBytes defaults to maxBytes', async () => {
    const body = multipart([{ name: 'f', filename: 'f', data: 'x'.repeat(500) }]);
    const error = await rejectionOf(
      readAll(sessionOf(body, { limits: { maxBytes: 400, maxFileBytes: undefined } })),
    );
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('maxFieldBytes: default 64 KiB, exact limit passes, one byte more is 413', async () => {
    const at = (size: number) => multipart([{ name: 'a', data: 'y'.repeat(size) }]);
    expect((await readAll(sessionOf(at(65536)))).fields.a).toHaveLength(65536);
    const error = await rejectionOf(readAll(sessionOf(at(65537))));
    expect(error).toMatchObject({
      status: 413,
      code: 'PAYLOAD_TOO_LARGE',
      details: { limit: 'maxFieldBytes' },
    });
    expect((await readAll(sessionOf(at(10), { limits: { maxFieldBytes: 10 } }))).fields.a).toBe(
      'y'.repeat(10),
    );
    expect((await rejectionOf(readAll(sessionOf(at(11), { limits: { maxFieldBytes: 10 } })))).code).toBe(
      'PAYLOAD_TOO_LARGE',
    );
  });

  it('maxBytes counts the whole body, preamble and epilogue included', async () => {
    const body = multipart([{ name: 'a', data: '1' }], { preamble: 'p'.repeat(1000) });
    expect((await readAll(sessionOf(body, { limits: { maxBytes: body.length } }))).fields).toEqual({
      a: '1',
    });
    const error = await rejectionOf(readAll(sessionOf(body, { limits: { maxBytes: body.length - 1 } })));
    expect(error).toMatchObject({ status: 413, code: 'PAYLOAD_TOO_LARGE', details: { limit: 'maxBytes' } });
    const withEpilogue = multipart([{ name: 'a', data: '1' }], { epilogue: 'e'.repeat(1000) });
    const late = await rejectionOf(
      readAll(sessionOf(withEpilogue, { limits: { maxBytes: withEpilogue.length - 1 } })),
    );
    expect(late.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('maxBytes stops a file in progress and destroys its stream with the same error', async () => {
    const body = multipart([{ name: 'f', filename: 'f', data: Buffer.alloc(200_000, 1) }]);
    const { iterationError, pipeOutcomes } = await storeAll(
      sessionOf(body, { chunks: 1000, limits: { maxBytes: 100_000 } }),
    );
    expect(iterationError).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'maxBytes' } });
    expect(pipeOutcomes).toEqual([iterationError]);
  });
});

describe('allowedTypes', () => {
  const body = (type?: string) => multipart([{ name: 'f', filename: 'x', type, data: 'x' }]);

  it.each<[string | undefined, string[], boolean]>([
    ['image/png', ['image/png'], true],
    ['IMAGE/PNG; name=x', ['image/png'], true],
    ['image/webp', ['image/*'], true],
    ['image/png', ['text/plain'], false],
    ['text/html', ['image/*'], false],
    [undefined, ['image/*'], false],
    [undefined, ['application/octet-stream'], true],
    ['font/woff2', ['*/*'], true],
  ])('%j against %j: allowed %s', async (type, allowedTypes, allowed) => {
    const session = sessionOf(body(type), { limits: { allowedTypes } });
    if (allowed) {
      expect((await readAll(session)).files).toHaveLength(1);
    } else {
      const error = await rejectionOf(readAll(session));
      expect(error).toMatchObject({ status: 415, code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('does not apply to text fields', async () => {
    const fields = multipart([{ name: 'a', type: 'text/html', data: '<b>' }]);
    expect((await readAll(sessionOf(fields, { limits: { allowedTypes: ['image/png'] } }))).fields).toEqual({
      a: '<b>',
    });
  });
});

describe('malformed input while a file is being read', () => {
  it('destroys the file stream with the same MALFORMED_MULTIPART error when the body is truncated', async () => {
    const body = multipart([{ name: 'f', filename: 'f', data: Buffer.alloc(50_000, 7) }]).subarray(0, 30_000);
    const { iterationError, pipeOutcomes } = await storeAll(sessionOf(body, { chunks: 4096 }));
    expect(iterationError).toMatchObject({ code: 'MALFORMED_MULTIPART', details: { reason: 'truncated' } });
    expect(pipeOutcomes).toEqual([iterationError]);
  });

  it('answers MALFORMED_MULTIPART when the request stream errors mid-body', async () => {
    const source = new PassThrough();
    const session = sessionOf(source);
    const head = multipart([{ name: 'f', filename: 'f', data: 'partial' }], { close: false });
    source.write(head);
    const iterator = session.body.files[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect(first.done).toBe(false);
    const stream = first.done ? undefined : first.value.stream;
    const streamError = new Promise((resolve) => stream?.on('error', resolve));
    source.destroy(new Error('socket hang up'));
    const error = await streamError;
    expect(error).toMatchObject({ code: 'MALFORMED_MULTIPART', details: { reason: 'aborted' } });
    expect(await rejectionOf(iterator.next())).toBe(error);
  });

  it('answers MALFORMED_MULTIPART when the request stream closes without an end', async () => {
    const source = new PassThrough();
    const session = sessionOf(source);
    source.write(Buffer.from('--svc-test-boundary\r\nContent-Disposition: form-data; name="a"\r\n\r\nva'));
    const pending = rejectionOf(readAll(session));
    setImmediate(() => source.destroy());
    expect(await pending).toMatchObject({ code: 'MALFORMED_MULTIPART', details: { reason: 'aborted' } });
  });

  it('keeps rejecting with the same error afterwards', async () => {
    const session = sessionOf(Buffer.from('nothing'));
    const iterator = session.body.files[Symbol.asyncIterator]();
    const first = await rejectionOf(iterator.next());
    expect(await rejectionOf(iterator.next())).toBe(first);
  });

  it('does not crash the process when the handler never listens for file stream errors', async () => {
    const body = multipart([{ name: 'f', filename: 'f', data: 'x'.repeat(1000) }]).subarray(0, 500);
    const session = sessionOf(body, { chunks: 100 });
    const iterator = session.body.files[Symbol.asyncIterator]();
    const first = await iterator.next();
    if (!first.done) first.value.stream.resume();
    expect((await rejectionOf(iterator.next())).code).toBe('MALFORMED_MULTIPART');
  });
});

describe('fields', () => {
  it('are a null-prototype map, decoded as UTF-8, last value winning', async () => {
    const { fields } = await readAll(
      sessionOf(
        multipart([
          { name: 'text', data: 'caf\u00e9 \u{1F600}' },
          { name: 'dup', data: 'first' },
          { name: 'dup', data: 'second' },
          { name: 'constructor', data: 'c' },
          { name: 'toString', data: 't' },
        ]),
        { chunks: 3 },
      ),
    );
    expect(fields).toEqual({ text: 'caf\u00e9 \u{1F600}', dup: 'second', constructor: 'c', toString: 't' });
  });

  it('drop __proto__, so no copy of the map can be polluted', async () => {
    const session = sessionOf(
      multipart([
        { name: '__proto__', data: 'x' },
        { name: 'ok', data: '1' },
      ] as PartSpec[]),
    );
    await readAll(session);
    expect(Object.getPrototypeOf(session.body.fields)).toBeNull();
    expect(Object.keys(session.body.fields)).toEqual(['ok']);
    const copy = Object.assign({}, session.body.fields);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
  });

  it('are filled as their parts arrive', async () => {
    const session = sessionOf(
      multipart([
        { name: 'before', data: '1' },
        { name: 'f', filename: 'f', data: 'x' },
        { name: 'after', data: '2' },
      ]),
      { chunks: 1 },
    );
    const iterator = session.body.files[Symbol.asyncIterator]();
    const first = await iterator.next();
    expect({ ...session.body.fields }).toEqual({ before: '1' });
    if (!first.done) await readStream(first.value.stream);
    expect((await iterator.next()).done).toBe(true);
    expect({ ...session.body.fields }).toEqual({ before: '1', after: '2' });
  });
});
