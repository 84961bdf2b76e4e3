// Streamed multipart uploads on every adapter (docs/http.md, "Upload bodies"): files and fields, the
// pipeline before any body byte, early returns, every refusal as an envelope, and big files to disk.
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { describe, expect, it } from 'vitest';
import { HttpError, route, upload, type Plugin, type UploadInput } from 'svckit';
import { adapters, parseRawResponse, rawRequest, rawSocket, withServer } from './harness.js';

const BOUNDARY = 'svc-test-boundary';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

interface TestPart {
  name: string;
  filename?: string;
  type?: string;
  content: string | Buffer;
  headers?: string[];
}

function multipart(parts: TestPart[], { close = true } = {}): Buffer {
  const chunks: Buffer[] = [];
  for (const part of parts) {
    let head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.name}"`;
    if (part.filename !== undefined) head += `; filename="${part.filename}"`;
    head += '\r\n';
    if (part.type !== undefined) head += `Content-Type: ${part.type}\r\n`;
    for (const line of part.headers ?? []) head += `${line}\r\n`;
    chunks.push(Buffer.from(`${head}\r\n`, 'utf8'), Buffer.from(part.content), Buffer.from('\r\n'));
  }
  if (close) chunks.push(Buffer.from(`--${BOUNDARY}--\r\n`));
  return Buffer.concat(chunks);
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

/** Reads every file fully and reports what arrived. */
async function collect(body: UploadInput) {
  const files: Array<{ field: string; filename: string; type: string; length?: number; sha: string }> = [];
  for await (const file of body.files) {
    const chunks: Buffer[] = [];
    for await (const chunk of file.stream) chunks.push(chunk as Buffer);
    files.push({
      field: file.field,
      filename: file.filename,
      type: file.declaredType,
      ...(file.declaredLength === undefined ? {} : { length: file.declaredLength }),
      sha: sha256(Buffer.concat(chunks)),
    });
  }
  return { files, fields: { ...body.fields }, contentLength: body.contentLength ?? null };
}

const lockPlugin: Plugin = {
  name: 'lock',
  setup(app) {
    app.metadata.add('http:guards', {
      name: 'lock',
      check: ({ route: target, request }) => {
        if (target.meta.locked === true && request.headers['x-key'] !== 'open') {
          throw new HttpError(403, 'LOCKED', 'Locked.');
        }
      },
    });
    app.metadata.add('http:guarded-meta', { key: 'locked', plugin: 'lock' });
  },
};

const limits = { maxBytes: 64 * 1024, maxFiles: 2, maxFields: 2, maxFieldBytes: 16, maxFileBytes: 1024 };

function routes(seen: string[] = []) {
  return [
    route<{ body: UploadInput }>({
      method: 'POST',
      url: '/upload',
      body: upload(limits),
      handler: ({ body }) => collect(body),
    }),
    route<{ body: UploadInput }>({
      method: 'POST',
      url: '/images',
      body: upload({ maxBytes: 64 * 1024, maxFiles: 5, allowedTypes: ['image/*', 'application/pdf'] }),
      handler: ({ body }) => collect(body),
    }),
    route<{ body: UploadInput }>({
      method: 'POST',
      url: '/guarded',
      meta: { locked: true },
      body: upload({ maxBytes: 1024 * 1024, maxFiles: 1 }),
      handler: ({ body }) => collect(body),
    }),
    route<{ body: UploadInput }>({
      method: 'POST',
      url: '/first-only',
      body: upload({ maxBytes: 16 * 1024 * 1024, maxFiles: 3 }),
      handler: async ({ body }) => {
        for await (const file of body.files) {
          seen.push(file.filename);
          return { first: file.filename };
        }
        return { first: null };
      },
    }),
    route<{ body: UploadInput }>({
      method: 'PUT',
      url: '/skip',
      body: upload({ maxBytes: 1024 * 1024, maxFiles: 3 }),
      handler: async ({ body }) => {
        const names: string[] = [];
        for await (const file of body.files) {
          names.push(file.filename);
          // Reads only the second file; the others are skipped unread.
          if (names.length === 2) seen.push((await readAll(file.stream)).toString());
        }
        return { names, fields: { ...body.fields } };
      },
    }),
  ];
}

async function readAll(stream: AsyncIterable<unknown>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const post = (url: string, path: string, body: Buffer, contentType = CONTENT_TYPE) =>
  rawRequest(url, { method: 'POST', path, headers: { 'content-type': contentType }, body });

function errorOf(response: { body: string }): { code: string; message: string } {
  return (JSON.parse(response.body) as { error: { code: string; message: string } }).error;
}

describe.each(adapters)('upload() on $name', (adapter) => {
  it('hands files and fields to the handler in request order', async () => {
    const png = randomBytes(700);
    const body = multipart([
      { name: 'title', content: 'holiday' },
      {
        name: 'photo',
        filename: 'beach.png',
        type: 'Image/PNG; q=1',
        content: png,
        headers: ['Content-Length: 700'],
      },
      { name: 'note', content: 'sunny' },
      { name: 'doc', filename: 'C:\\Users\\me\\notes\u202e.txt', content: '' },
    ]);
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const response = await post(url, '/upload', body);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({
        files: [
          { field: 'photo', filename: 'beach.png', type: 'image/png', length: 700, sha: sha256(png) },
          {
            field: 'doc',
            filename: 'notes.txt',
            type: 'application/octet-stream',
            sha: sha256(Buffer.alloc(0)),
          },
        ],
        fields: { title: 'holiday', note: 'sunny' },
        contentLength: body.length,
      });
    });
  });

  it('reads a body sent in chunked transfer coding (no declared length)', async () => {
    const body = multipart([{ name: 'f', filename: 'a.bin', content: 'abc' }]);
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const text = await rawSocket(
        url,
        Buffer.concat([
          Buffer.from(
            `POST /upload HTTP/1.1\r\nHost: x\r\nContent-Type: ${CONTENT_TYPE}\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body.length.toString(16)}\r\n`,
          ),
          body,
          Buffer.from('\r\n0\r\n\r\n'),
        ]),
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toMatchObject({
        files: [{ filename: 'a.bin' }],
        contentLength: null,
      });
    });
  });

  it('runs the guards before reading any body byte, and closes the connection on refusal', async () => {
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const text = await rawSocket(
        url,
        `POST /guarded HTTP/1.1\r\nHost: x\r\nContent-Type: ${CONTENT_TYPE}\r\nContent-Length: 100000\r\n\r\n--${BOUNDARY}\r\n`,
      );
      const response = parseRawResponse(text);
      expect(response.status).toBe(403);
      expect(response.headers.connection).toBe('close');
      expect(JSON.parse(response.body)).toEqual({ error: { code: 'LOCKED', message: 'Locked.' } });
    });
  });

  it('skips files the handler does not read', async () => {
    const seen: string[] = [];
    const body = multipart([
      { name: 'a', filename: 'one.txt', content: 'first file'.repeat(1000) },
      { name: 'b', filename: 'two.txt', content: 'second file' },
      { name: 'after', content: 'field after files' },
      { name: 'c', filename: 'three.txt', content: 'third file'.repeat(1000) },
    ]);
    await withServer(adapter, { routes: routes(seen), plugins: [lockPlugin] }, async (url) => {
      const response = await rawRequest(url, {
        method: 'PUT',
        path: '/skip',
        headers: { 'content-type': CONTENT_TYPE },
        body,
      });
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({
        names: ['one.txt', 'two.txt', 'three.txt'],
        fields: { after: 'field after files' },
      });
      expect(seen).toEqual(['second file']);
    });
  });

  it('answers an early return at once with Connection: close while the rest is drained', async () => {
    const seen: string[] = [];
    const big = randomBytes(4 * 1024 * 1024);
    const body = multipart([
      { name: 'a', filename: 'first.bin', content: big },
      { name: 'b', filename: 'second.bin', content: big },
    ]);
    await withServer(adapter, { routes: routes(seen), plugins: [lockPlugin] }, async (url) => {
      const response = await post(url, '/first-only', body);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.body)).toEqual({ first: 'first.bin' });
      expect(response.headers.connection).toBe('close');
      expect(seen).toEqual(['first.bin']);
      // The server still serves new connections.
      const again = await post(url, '/first-only', multipart([{ name: 'x', filename: 'x', content: 'x' }]));
      expect(again.status).toBe(200);
    });
  });

  it.each([
    ['a JSON body', Buffer.from('{"a":1}'), 'application/json', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    ['no content type', Buffer.from('x'), '', 415, 'UNSUPPORTED_MEDIA_TYPE'],
    [
      'multipart/mixed',
      multipart([{ name: 'a', content: 'b' }]),
      `multipart/mixed; boundary=${BOUNDARY}`,
      415,
      'UNSUPPORTED_MEDIA_TYPE',
    ],
    [
      'a missing boundary',
      multipart([{ name: 'a', content: 'b' }]),
      'multipart/form-data',
      400,
      'MALFORMED_MULTIPART',
    ],
    [
      'a repeated boundary',
      multipart([{ name: 'a', content: 'b' }]),
      `${CONTENT_TYPE}; boundary=other`,
      400,
      'MALFORMED_MULTIPART',
    ],
    [
      'an invalid boundary',
      multipart([{ name: 'a', content: 'b' }]),
      'multipart/form-data; boundary=a{b}',
      400,
      'MALFORMED_MULTIPART',
    ],
    [
      'a truncated body',
      multipart([{ name: 'a', content: 'b' }], { close: false }),
      CONTENT_TYPE,
      400,
      'MALFORMED_MULTIPART',
    ],
  ])('refuses %s', async (_name, body, contentType, status, code) => {
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const response = await rawRequest(url, {
        method: 'POST',
        path: '/upload',
        headers: contentType === '' ? {} : { 'content-type': contentType },
        body,
      });
      expect(response.status).toBe(status);
      expect(errorOf(response).code).toBe(code);
    });
  });

  it.each([
    ['a folded part header', ['X-Note: a', ' folded'], 'MALFORMED_MULTIPART'],
    [
      'a duplicated part header',
      ['Content-Type: text/plain', 'content-type: image/png'],
      'MALFORMED_MULTIPART',
    ],
    ['an oversized part header', [`X-Big: ${'x'.repeat(9000)}`], 'MALFORMED_MULTIPART'],
    ['a nested multipart part', ['Content-Type: multipart/mixed; boundary=inner'], 'MALFORMED_MULTIPART'],
    ['a base64 transfer encoding', ['Content-Transfer-Encoding: base64'], 'MALFORMED_MULTIPART'],
  ])('refuses %s with 400', async (_name, headers, code) => {
    const body = multipart([{ name: 'f', filename: 'a.txt', content: 'abc', headers }]);
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const response = await post(url, '/images', body);
      expect(response.status).toBe(400);
      expect(errorOf(response)).toMatchObject({ code, message: 'Malformed multipart body.' });
    });
  });

  it('enforces maxFiles, maxFields, maxFieldBytes, maxFileBytes and maxBytes', async () => {
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const file = (name: string, content: string | Buffer = 'x') => ({
        name,
        filename: `${name}.txt`,
        content,
      });
      const cases: Array<[Buffer, number, string]> = [
        [multipart([file('a'), file('b'), file('c')]), 400, 'TOO_MANY_FILES'],
        [
          multipart([
            { name: 'a', content: '1' },
            { name: 'b', content: '2' },
            { name: 'c', content: '3' },
          ]),
          400,
          'TOO_MANY_FIELDS',
        ],
        [multipart([{ name: 'a', content: 'x'.repeat(17) }]), 413, 'PAYLOAD_TOO_LARGE'],
        [multipart([file('a', Buffer.alloc(1025))]), 413, 'PAYLOAD_TOO_LARGE'],
        [
          multipart([
            file('a', Buffer.alloc(1000)),
            { name: 'pad', content: 'x' },
            file('b', Buffer.alloc(1000)),
          ]),
          200,
          '',
        ],
      ];
      for (const [body, status, code] of cases) {
        const response = await post(url, '/upload', body);
        expect(response.status, response.body).toBe(status);
        if (code !== '') expect(errorOf(response).code).toBe(code);
      }
      const declaredTooBig = await post(url, '/upload', Buffer.alloc(64 * 1024 + 1, 'a'));
      expect(declaredTooBig.status).toBe(413);
      expect(errorOf(declaredTooBig).code).toBe('PAYLOAD_TOO_LARGE');
      expect(declaredTooBig.headers.connection).toBe('close');
    });
  });

  it('matches allowedTypes exactly or by wildcard against the declared type', async () => {
    await withServer(adapter, { routes: routes(), plugins: [lockPlugin] }, async (url) => {
      const send = (type: string | undefined) =>
        post(
          url,
          '/images',
          multipart([{ name: 'f', filename: 'f', content: 'x', ...(type ? { type } : {}) }]),
        );
      expect((await send('image/png')).status).toBe(200);
      expect((await send('IMAGE/webp')).status).toBe(200);
      expect((await send('application/pdf')).status).toBe(200);
      const refused = await send('application/pdfx');
      expect(refused.status).toBe(415);
      expect(errorOf(refused).code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect((await send(undefined)).status).toBe(415);
      expect((await send('text/plain')).status).toBe(415);
    });
  });

  it('streams a 32 MiB file to disk byte for byte, past any framework body limit', async () => {
    const directory = await mkdtemp(join(tmpdir(), 'svc-upload-'));
    const big = randomBytes(32 * 1024 * 1024);
    const diskRoutes = [
      route<{ body: UploadInput }>({
        method: 'POST',
        url: '/disk',
        body: upload({ maxBytes: 64 * 1024 * 1024, maxFiles: 1 }),
        handler: async ({ body }) => {
          const target = join(directory, 'upload.bin');
          for await (const file of body.files) await pipeline(file.stream, createWriteStream(target));
          return { ok: true };
        },
      }),
    ];
    try {
      await withServer(adapter, { routes: diskRoutes }, async (url) => {
        const response = await post(
          url,
          '/disk',
          multipart([{ name: 'f', filename: 'big.bin', content: big }]),
        );
        expect(response.status).toBe(200);
        expect(sha256(await readFile(join(directory, 'upload.bin')))).toBe(sha256(big));
      });
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
