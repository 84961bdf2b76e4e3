// The generated client for upload and raw bodies and streamed responses: its types (strict, Node and DOM
// libs) and its behaviour against the files spec served for real by the Fastify adapter.
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { createApp, sse, stream, type App, type Route, type UploadInput } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { filesIr } from './files-fixture.js';
import { createProject, generateInto, type TestProject } from './project.js';
import { compileStrict } from './ts-compile.js';

/** The slice of the generated client these tests call, typed loosely: its real types are checked below. */
interface FilesClient {
  [method: string]: (input?: object) => Promise<{
    ok: boolean;
    status: number;
    data?: unknown;
    error?: { code: string; message: string };
    unexpected?: true;
    headers: Headers;
  }>;
}
interface ClientModule {
  createClient(options: { baseUrl: string; fetch?: typeof fetch }): FilesClient;
}
interface RoutesModule {
  routes(handlers: Record<string, unknown>): Route[];
}
interface Streamed {
  stream: ReadableStream<Uint8Array>;
  contentType: string;
  filename?: string;
  contentLength?: number;
}

let app: TestProject;

beforeAll(async () => {
  app = createProject('# files are generated from IR\n');
  await generateInto(app, await filesIr(), 'source');
});
afterAll(() => app.remove());

const TYPE_CHECKS = `// Type-level checks of the generated client for the files spec. Never run.
import { createClient } from './client.js';

export async function calls(client: ReturnType<typeof createClient>, bytes: Uint8Array, blob: Blob, form: FormData, source: ReadableStream<Uint8Array>): Promise<void> {
  await client.uploadPhotos({ params: { album: 'a' }, body: { files: [{ field: 'photo', file: blob }], fields: { title: 't' } } });
  await client.uploadPhotos({ params: { album: 'a' }, body: { files: [{ field: 'photo', file: source, filename: 'a.png', type: 'image/png' }] } });
  await client.uploadPhotos({ params: { album: 'a' }, body: form });
  // @ts-expect-error the upload body is required
  await client.uploadPhotos({ params: { album: 'a' } });
  // @ts-expect-error declared fields are typed: visibility is public or private
  await client.uploadPhotos({ params: { album: 'a' }, body: { files: [], fields: { title: 't', visibility: 'secret' } } });
  // @ts-expect-error a file is a Blob, a File or a ReadableStream
  await client.uploadPhotos({ params: { album: 'a' }, body: { files: [{ field: 'photo', file: 'text' }] } });
  await client.receiveWebhook({ params: { source: 's' }, body: '{}' });
  await client.receiveWebhook({ params: { source: 's' }, body: bytes, contentType: 'application/json' });
  await client.putBlob({ params: { name: 'n' }, body: source });
  await client.putBlob({ params: { name: 'n' }, body: blob });
  await client.putBlob({ params: { name: 'n' }, body: bytes.buffer as ArrayBuffer });
  // @ts-expect-error a raw body is bytes or text, not an object
  await client.putBlob({ params: { name: 'n' }, body: { a: 1 } });

  const download = await client.downloadFile({ params: { name: 'a.pdf' } });
  if (download.ok) {
    const readable: ReadableStream<Uint8Array> = download.data.stream;
    const type: string = download.data.contentType;
    const name: string | undefined = download.data.filename;
    const length: number | undefined = download.data.contentLength;
    void [readable, type, name, length];
  } else if (!download.unexpected && download.status === 404) {
    const code: 'DOCUMENT_NOT_FOUND' = download.error.code;
    void code;
  }
  const exported = await client.exportNotes();
  if (exported.ok && exported.status === 200) {
    const count: number = exported.data.count;
    void count;
  }
  if (exported.ok && exported.status === 202) {
    // @ts-expect-error a streamed answer has no JSON data
    void exported.data.count;
  }
}
`;

describe('generated client: types', () => {
  const files = () => ({
    'client.ts': app.read('client.ts'),
    'types.ts': app.read('types.ts'),
    'type-checks.ts': TYPE_CHECKS,
  });

  // Zero diagnostics also proves every `@ts-expect-error` met a real error.
  it('compiles with the checks under strict options with Node types', () => {
    expect(compileStrict(`${app.outDir}/`, files(), 'node')).toEqual([]);
  });

  it('compiles with the checks in a browser (DOM lib) project', () => {
    expect(compileStrict(`${app.outDir}/`, files(), 'dom')).toEqual([]);
  });

  it('writes the byte helpers only into clients that need them', async () => {
    const notes = createProject('# notes\n');
    try {
      const { notesSpec } = await import('./fixtures.js');
      await generateInto(notes, notesSpec(), 'source');
      const source = notes.read('client.ts');
      for (const name of ['UploadFile', 'RawBodyValue', 'StreamedBody', 'multipartStream', 'duplex'])
        expect(source).not.toContain(name);
      for (const name of ['UploadFile', 'RawBodyValue', 'StreamedBody', 'multipartStream', "duplex = 'half'"])
        expect(app.read('client.ts')).toContain(name);
    } finally {
      notes.remove();
    }
  });
});

/** What the upload handler saw: each file's part data and bytes' digest, and the text fields. */
async function describeUpload(album: string, body: UploadInput) {
  const files = [];
  for await (const file of body.files) {
    const hash = createHash('sha256');
    let size = 0;
    for await (const chunk of file.stream) {
      hash.update(chunk as Buffer);
      size += (chunk as Buffer).length;
    }
    files.push({
      field: file.field,
      filename: file.filename,
      type: file.declaredType,
      size,
      sha: hash.digest('hex'),
    });
  }
  return { title: `${album}: ${body.fields['title'] ?? ''}`, files };
}

const PDF = Buffer.from('%PDF-1.7 not really a pdf\n'.repeat(1000));

const handlers = {
  uploadPhotos: async ({ params, body }: { params: { album: string }; body: UploadInput }) =>
    describeUpload(params.album, body),
  receiveWebhook: ({ body }: { body: { bytes: Buffer; contentType: string | undefined } }) => ({
    bytes: body.bytes.length,
    contentType: body.contentType ?? null,
    sha256: createHash('sha256').update(body.bytes).digest('hex'),
  }),
  putBlob: () => undefined,
  downloadFile: ({ params }: { params: { name: string } }) =>
    stream(Readable.from([PDF]), {
      contentType: 'application/pdf',
      contentLength: PDF.length,
      filename: params.name,
    }),
  watchEvents: () =>
    sse((events) => {
      events.send({ event: 'greeting', data: { hello: 'world' } });
      events.close();
    }),
  exportNotes: ({ query }: { query: { format?: string } }) =>
    query.format === 'csv'
      ? stream(Readable.from([Buffer.from('a,b\n1,2\n')]), { contentType: 'text/csv', status: 202 })
      : { count: 2 },
};

const sha = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

async function readAll(source: ReadableStream<Uint8Array>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  const reader = source.getReader();
  for (;;) {
    const next = await reader.read();
    if (next.done) return Buffer.concat(chunks);
    chunks.push(Buffer.from(next.value));
  }
}

/** A web stream of `bytes` in chunks of `size`, produced lazily, so it can only be sent as a stream. */
function webStream(bytes: Uint8Array, size = 16 * 1024): ReadableStream<Uint8Array> {
  let offset = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) return controller.close();
      controller.enqueue(bytes.subarray(offset, offset + size));
      offset += size;
    },
  });
}

describe('generated client against the files spec served by the Fastify adapter', () => {
  let server: App;
  let client: FilesClient;

  beforeAll(async () => {
    const generated = (await import(pathToFileURL(join(app.outDir, 'routes.ts')).href)) as RoutesModule;
    const { errors } = (await import(pathToFileURL(join(app.outDir, 'errors.ts')).href)) as {
      errors: { DOCUMENT_NOT_FOUND(): Error };
    };
    const bound = generated.routes({
      ...handlers,
      downloadFile: (input: { params: { name: string } }) => {
        if (input.params.name === 'missing') throw errors.DOCUMENT_NOT_FOUND();
        return handlers.downloadFile(input);
      },
    });
    server = createApp({ name: 'files-api' });
    server.register(fastifyPlugin({ onError: false, routes: bound }));
    const address = await server.listen({ port: 0, host: '127.0.0.1' });
    const { createClient } = (await import(
      pathToFileURL(join(app.outDir, 'client.ts')).href
    )) as ClientModule;
    client = createClient({ baseUrl: address.url });
  });
  afterAll(async () => {
    await server.close();
  });

  describe('uploads', () => {
    const png = new Uint8Array(200 * 1024).map((_, index) => (index * 7) % 256);

    it('sends fields and Blob/File parts as multipart/form-data', async () => {
      const result = await client.uploadPhotos!({
        params: { album: 'trip' },
        body: {
          fields: { title: 'Day one' },
          files: [
            { field: 'photo', file: new Blob([png], { type: 'image/png' }), filename: 'beach.png' },
            { field: 'notes', file: new File(['hello'], 'notes.txt', { type: 'text/plain' }) },
          ],
        },
      });
      expect(result).toMatchObject({
        ok: true,
        status: 201,
        data: {
          title: 'trip: Day one',
          files: [
            { field: 'photo', filename: 'beach.png', type: 'image/png', size: png.length, sha: sha(png) },
            { field: 'notes', filename: 'notes.txt', type: 'text/plain', size: 5, sha: sha('hello') },
          ],
        },
      });
    });

    it('streams ReadableStream parts as a multipart body written while the parts are read', async () => {
      const result = await client.uploadPhotos!({
        params: { album: 'trip' },
        body: {
          fields: { title: 'Streamed', visibility: 'private' },
          files: [
            { field: 'photo', file: webStream(png), filename: 'big "one".png', type: 'image/png' },
            { field: 'other', file: new Blob(['abc'], { type: 'text/csv' }) },
          ],
        },
      });
      expect(result).toMatchObject({
        ok: true,
        status: 201,
        data: {
          title: 'trip: Streamed',
          files: [
            {
              field: 'photo',
              filename: 'big %22one%22.png',
              type: 'image/png',
              size: png.length,
              sha: sha(png),
            },
            { field: 'other', filename: 'blob', type: 'text/csv', size: 3, sha: sha('abc') },
          ],
        },
      });
    });

    it('sends a FormData as given', async () => {
      const form = new FormData();
      form.append('title', 'Form');
      form.append('photo', new Blob([png], { type: 'image/png' }), 'form.png');
      const result = await client.uploadPhotos!({ params: { album: 'x' }, body: form });
      expect(result).toMatchObject({
        ok: true,
        status: 201,
        data: { title: 'x: Form', files: [{ filename: 'form.png', size: png.length }] },
      });
    });

    it('keeps a non-ASCII file name', async () => {
      const result = await client.uploadPhotos!({
        params: { album: 'x' },
        body: {
          files: [{ field: 'f', file: new Blob(['1'], { type: 'text/plain' }), filename: 'été ✓.txt' }],
        },
      });
      expect(result).toMatchObject({ ok: true, data: { files: [{ filename: 'été ✓.txt' }] } });
    });

    it('answers the runtime refusals with their typed codes', async () => {
      const part = (type: string, size = 10) => ({
        field: 'f',
        file: new Blob([new Uint8Array(size)], { type }),
      });
      const tooMany = await client.uploadPhotos!({
        params: { album: 'x' },
        body: { files: [part('image/png'), part('image/png'), part('image/png'), part('image/png')] },
      });
      expect(tooMany).toMatchObject({ ok: false, status: 400, error: { code: 'TOO_MANY_FILES' } });
      expect(tooMany.unexpected).toBeUndefined();
      const zip = await client.uploadPhotos!({
        params: { album: 'x' },
        body: { files: [part('application/zip')] },
      });
      expect(zip).toMatchObject({ ok: false, status: 415, error: { code: 'UNSUPPORTED_MEDIA_TYPE' } });
      const big = await client.uploadPhotos!({
        params: { album: 'x' },
        body: { files: [part('image/png', 600 * 1024)] },
      });
      expect(big).toMatchObject({ ok: false, status: 413, error: { code: 'PAYLOAD_TOO_LARGE' } });
      const badAlbum = await client.uploadPhotos!({ params: { album: 'NO' }, body: { files: [] } });
      expect(badAlbum).toMatchObject({
        ok: false,
        status: 400,
        error: { code: 'HTTP_VALIDATION', part: 'params' },
      });
    });
  });

  describe('raw bodies', () => {
    it('sends text with the route’s declared content type by default, byte for byte', async () => {
      const text = '{"event":"paid","amount":12.50}';
      const result = await client.receiveWebhook!({ params: { source: 'stripe' }, body: text });
      expect(result).toMatchObject({
        ok: true,
        status: 200,
        data: { bytes: text.length, contentType: 'application/json', sha256: sha(text) },
      });
    });

    it('sends bytes, streams and Blobs, and a content type given with the call', async () => {
      const bytes = new Uint8Array([0, 255, 13, 10, 45, 45]);
      expect(
        await client.receiveWebhook!({
          params: { source: 's' },
          body: bytes,
          contentType: 'application/octet-stream',
        }),
      ).toMatchObject({
        ok: true,
        data: { bytes: 6, contentType: 'application/octet-stream', sha256: sha(bytes) },
      });
      const large = new Uint8Array(40 * 1024).fill(7);
      expect(
        await client.receiveWebhook!({ params: { source: 's' }, body: webStream(large, 1000) }),
      ).toMatchObject({
        ok: true,
        data: { bytes: large.length, contentType: 'application/json', sha256: sha(large) },
      });
      expect(
        await client.receiveWebhook!({
          params: { source: 's' },
          body: new Blob(['<a/>'], { type: 'application/xml' }),
        }),
      ).toMatchObject({ ok: true, data: { contentType: 'application/xml' } });
      expect(await client.putBlob!({ params: { name: 'n' }, body: bytes.buffer })).toMatchObject({
        ok: true,
        status: 204,
      });
    });

    it('answers a body past maxBytes with the typed 413', async () => {
      const result = await client.receiveWebhook!({
        params: { source: 's' },
        body: 'x'.repeat(64 * 1024 + 1),
      });
      expect(result).toMatchObject({ ok: false, status: 413, error: { code: 'PAYLOAD_TOO_LARGE' } });
      expect(result.unexpected).toBeUndefined();
    });
  });

  describe('streamed responses', () => {
    it('hand over a download unread, with its type, file name and length', async () => {
      const result = await client.downloadFile!({ params: { name: 'rapport été.pdf' } });
      expect(result).toMatchObject({ ok: true, status: 200 });
      const data = result.data as Streamed;
      expect(data.contentType).toBe('application/pdf');
      expect(data.filename).toBe('rapport été.pdf');
      expect(data.contentLength).toBe(PDF.length);
      expect((await readAll(data.stream)).equals(PDF)).toBe(true);
    });

    it('keep the typed error envelope of a failed download', async () => {
      const result = await client.downloadFile!({ params: { name: 'missing' } });
      expect(result).toMatchObject({
        ok: false,
        status: 404,
        error: { code: 'DOCUMENT_NOT_FOUND', message: 'Document not found.' },
      });
      expect(result.unexpected).toBeUndefined();
    });

    it('hand over server-sent events as a stream', async () => {
      const result = await client.watchEvents!();
      expect(result).toMatchObject({ ok: true, status: 200 });
      const data = result.data as Streamed;
      expect(data.contentType).toMatch(/^text\/event-stream/);
      expect((await readAll(data.stream)).toString()).toContain(
        'event: greeting\ndata: {"hello":"world"}\n\n',
      );
    });

    it('read JSON or hand over a stream by the status the route answers', async () => {
      expect(await client.exportNotes!()).toMatchObject({ ok: true, status: 200, data: { count: 2 } });
      const streamed = await client.exportNotes!({ query: { format: 'csv' } });
      expect(streamed).toMatchObject({ ok: true, status: 202 });
      expect((await readAll((streamed.data as Streamed).stream)).toString()).toBe('a,b\n1,2\n');
    });
  });
});

describe('generated client: Content-Disposition and request details', () => {
  let server: Server;
  let client: FilesClient;
  let disposition = '';
  const seen: { accept?: string; contentType?: string }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      seen.push({ accept: req.headers.accept, contentType: req.headers['content-type'] });
      // Answers once the whole request arrived, as a server reading the body would.
      req.resume().on('end', () => {
        const headers: Record<string, string> = { 'content-type': 'application/pdf' };
        if (disposition !== '') headers['content-disposition'] = disposition;
        res.writeHead(200, headers).end('%PDF');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { createClient } = (await import(
      pathToFileURL(join(app.outDir, 'client.ts')).href
    )) as ClientModule;
    client = createClient({ baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  const filenameFor = async (header: string): Promise<string | undefined> => {
    disposition = header;
    const result = await client.downloadFile!({ params: { name: 'x' } });
    const data = result.data as Streamed;
    await data.stream.cancel();
    return data.filename;
  };

  it('prefers filename* (RFC 5987) over filename, and decodes UTF-8 and ISO-8859-1', async () => {
    expect(await filenameFor(`attachment; filename="fallback.pdf"; filename*=UTF-8''%C3%A9t%C3%A9.pdf`)).toBe(
      'été.pdf',
    );
    expect(await filenameFor(`attachment; filename*=iso-8859-1'en'%E9t%E9.pdf; filename="x.pdf"`)).toBe(
      'été.pdf',
    );
    expect(await filenameFor('inline; filename="a \\"quoted\\" name.pdf"')).toBe('a "quoted" name.pdf');
    expect(await filenameFor('attachment; filename=plain.pdf')).toBe('plain.pdf');
    // A filename* it cannot decode falls back to filename.
    expect(await filenameFor(`attachment; filename*=UTF-8''%E9.pdf; filename="ok.pdf"`)).toBe('ok.pdf');
    expect(await filenameFor(`attachment; filename*=koi8-r''x.pdf; filename="ok.pdf"`)).toBe('ok.pdf');
    expect(await filenameFor('attachment; name="x"')).toBeUndefined();
    expect(await filenameFor('')).toBeUndefined();
  });

  it('never hands out a path, control or bidi characters, or . and ..', async () => {
    expect(await filenameFor('attachment; filename="../../etc/passwd"')).toBe('passwd');
    expect(await filenameFor(`attachment; filename*=UTF-8''..%2F..%5Cboot.ini`)).toBe('boot.ini');
    expect(await filenameFor(`attachment; filename*=UTF-8''evil%E2%80%AEfdp.exe%0D%0A`)).toBe('evilfdp.exe');
    expect(await filenameFor('attachment; filename=".."')).toBeUndefined();
    expect(await filenameFor('attachment; filename="a/"')).toBeUndefined();
  });

  it('asks for the streamed media type beside JSON, and lets a call set the Accept header', async () => {
    seen.length = 0;
    disposition = '';
    await client.downloadFile!({ params: { name: 'x' } });
    await client.downloadFile!({ params: { name: 'x' }, headers: { accept: 'application/pdf' } });
    expect(seen.map((request) => request.accept)).toEqual([
      'application/pdf, application/json',
      'application/pdf',
    ]);
  });

  it('replaces a hand-set content type on uploads with the one carrying the boundary', async () => {
    seen.length = 0;
    await client.uploadPhotos!({
      params: { album: 'x' },
      headers: { 'content-type': 'multipart/form-data' },
      body: { files: [{ field: 'f', file: new Blob(['1']) }] },
    });
    await client.uploadPhotos!({
      params: { album: 'x' },
      headers: { 'content-type': 'text/plain' },
      body: { files: [{ field: 'f', file: webStream(new Uint8Array(3)) }] },
    });
    expect(seen.map((request) => request.contentType)).toEqual([
      expect.stringMatching(/^multipart\/form-data; boundary=.+/),
      expect.stringMatching(/^multipart\/form-data; boundary=svc-[0-9a-f]{32}$/),
    ]);
  });

  it('stops reading a streamed file when the call is aborted, even while the source waits', async () => {
    let cancelled: unknown = 'not cancelled';
    let pulls = 0;
    const source = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulls += 1;
        // One chunk, then a source that never sends again (a stalled pipe).
        if (pulls === 1) controller.enqueue(new Uint8Array(1024));
        return new Promise(() => undefined);
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    let nextCancelled = false;
    const next = new ReadableStream<Uint8Array>({
      cancel() {
        nextCancelled = true;
      },
    });
    const controller = new AbortController();
    const call = client.uploadPhotos!({
      params: { album: 'x' },
      signal: controller.signal,
      body: {
        files: [
          { field: 'f', file: source },
          { field: 'g', file: next },
        ],
      },
    });
    await new Promise((resolve) => setTimeout(resolve, 100));
    controller.abort();
    await expect(call).rejects.toThrow(/abort/i);
    // The stream being read and the one never started are both released to their owners.
    await vi.waitFor(() => expect(cancelled).not.toBe('not cancelled'));
    expect(nextCancelled).toBe(true);
    expect(pulls).toBe(1);
  });

  it('lets a raw call’s content type win over headers, and headers win over the route default', async () => {
    seen.length = 0;
    await client.receiveWebhook!({ params: { source: 's' }, body: 'x' });
    await client.receiveWebhook!({
      params: { source: 's' },
      body: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    await client.receiveWebhook!({
      params: { source: 's' },
      body: 'x',
      headers: { 'content-type': 'text/plain' },
      contentType: 'application/cloudevents+json',
    });
    expect(seen.map((request) => request.contentType)).toEqual([
      'application/json',
      'text/plain',
      'application/cloudevents+json',
    ]);
  });
});
