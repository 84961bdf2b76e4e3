// routes.ts, types.ts and validators for upload and raw bodies and streamed responses: the definitions call
// the runtime's upload()/rawBody() with limits in bytes, handlers receive UploadInput/RawBodyInput and may
// return stream()/sse() results, and none of it gets a JSON validator or a JSON type.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Route, RouteDefinition } from 'svckit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { emitMcpTools } from '../../generator/emit-mcp-tools.js';
import { emitRoutes } from '../../generator/emit-routes.js';
import { impliedErrorCodes } from '../../generator/route-errors.js';
import type { SpecIR } from '../../shared/ir.js';
import { filesIr } from './files-fixture.js';
import { route, spec } from './fixtures.js';
import { createProject, generateInto, type TestProject } from './project.js';
import { appTsconfig, typeCheckProject } from './ts-compile.js';

/** Source without whitespace, so expectations do not depend on where prettier breaks lines. */
const compact = (text: string) => text.replace(/\s+/g, '');

interface RoutesModule {
  routes(handlers: Record<string, unknown>): Route[];
  routeDefinitions: readonly RouteDefinition[];
}

let ir: SpecIR;
let app: TestProject;

beforeAll(async () => {
  ir = await filesIr();
  app = createProject('# files are generated from IR\n');
  await generateInto(app, ir, 'source');
});
afterAll(() => app.remove());

describe('routes.ts', () => {
  it('imports upload, rawBody and the body and stream types only because routes use them', () => {
    // From the package: one import of every name.
    const fromPackage = emitRoutes({
      ir,
      header: '// x',
      runtimeImport: 'svckit',
      source: 'svc.config.yaml',
    });
    expect(fromPackage).toMatch(
      /^import \{ bindRoutes, rawBody, upload, type RawBodyInput, type Route, type RouteDefinition, type RouteHandler, type SseResult, type StreamResult, type UploadInput \} from 'svckit\/core';$/m,
    );
    // By relative path (svckit's own generated/modules): each name from the runtime file that defines it.
    const source = app.read('routes.ts');
    expect(source).not.toContain('runtime/index.js');
    for (const line of [
      // Prettier wraps a line once the relative path makes it long, so whitespace is free.
      /^import \{\s*rawBody,?\s*\} from '[^']*runtime\/http\/raw-body\.js';$/m,
      /^import \{\s*bindRoutes,\s*type RouteDefinition,?\s*\} from '[^']*runtime\/http\/route\.js';$/m,
      /^import type \{\s*StreamResult as SseResult,\s*StreamResult,?\s*\} from '[^']*runtime\/http\/stream\.js';$/m,
      /^import type \{\s*RawBodyInput,\s*Route,\s*RouteHandler,\s*UploadInput,?\s*\} from '[^']*runtime\/http\/types\.js';$/m,
      /^import \{\s*upload,?\s*\} from '[^']*runtime\/http\/upload\/index\.js';$/m,
    ])
      expect(source).toMatch(line);
  });

  it('types the handler body as UploadInput or RawBodyInput, and stream results beside JSON results', () => {
    const source = compact(app.read('routes.ts'));
    const handler = (id: string, parts: string) => compact(`${id}: RouteHandler<${parts}>;`);
    expect(source).toContain(
      handler(
        'uploadPhotos',
        'T.UploadPhotosParams, Record<string, never>, UploadInput, T.UploadPhotosResult',
      ),
    );
    expect(source).toContain(
      handler(
        'receiveWebhook',
        'T.ReceiveWebhookParams, Record<string, never>, RawBodyInput, T.ReceiveWebhookResult',
      ),
    );
    expect(source).toContain(
      handler(
        'downloadFile',
        'T.DownloadFileParams, Record<string, never>, undefined, T.DownloadFileResult | StreamResult',
      ),
    );
    expect(source).toContain(
      handler(
        'watchEvents',
        'Record<string, never>, Record<string, never>, undefined, T.WatchEventsResult | SseResult',
      ),
    );
    expect(source).toContain(compact('T.ExportNotesResult | StreamResult'));
  });

  it('writes upload() and rawBody() calls with every limit resolved to bytes', () => {
    const source = compact(app.read('routes.ts'));
    expect(source).toContain(
      compact(
        "body: upload({ maxBytes: 1048576, maxFiles: 3, maxFileBytes: 524288, maxFields: 4, allowedTypes: ['image/png', 'text/*'], }),",
      ),
    );
    expect(source).toContain(compact('body: rawBody({ maxBytes: 65536 }),'));
    expect(source).toContain(compact('body: rawBody(),'));
  });

  it('binds to the runtime body helpers: the runtime fills in its defaults', async () => {
    const generated = (await import(pathToFileURL(join(app.outDir, 'routes.ts')).href)) as RoutesModule;
    const handlers = Object.fromEntries(ir.routes.map((entry) => [entry.id, () => undefined]));
    const byId = Object.fromEntries(generated.routes(handlers).map((entry) => [entry.id, entry]));
    expect(byId.uploadPhotos?.body).toEqual({
      kind: 'upload',
      limits: {
        maxBytes: 1048576,
        maxFiles: 3,
        maxFileBytes: 524288,
        maxFields: 4,
        maxFieldBytes: 65536,
        maxHeaderBytes: 8192,
        allowedTypes: ['image/png', 'text/*'],
      },
    });
    expect(byId.receiveWebhook?.body).toEqual({ kind: 'raw', maxBytes: 65536 });
    expect(byId.putBlob?.body).toEqual({ kind: 'raw', maxBytes: 1048576 });
    expect(byId.downloadFile?.body).toBeUndefined();
    expect(byId.putBlob?.successStatus).toBe(204);
    expect(byId.exportNotes?.successStatus).toBe(200);
  });
});

describe('validators and types', () => {
  it('compile no body validator for upload and raw routes', async () => {
    const validators = (await import(pathToFileURL(join(app.outDir, 'validators.js')).href)) as Record<
      string,
      unknown
    >;
    expect(Object.keys(validators).sort()).toEqual([
      'downloadFile_params',
      'exportNotes_query',
      'putBlob_params',
      'receiveWebhook_params',
      'uploadPhotos_params',
    ]);
  });

  it('declare the upload fields, and no JSON type for bytes', () => {
    const types = app.read('types.ts');
    expect(types).toMatch(
      /export interface UploadPhotosFields \{[^}]*title: string;[^}]*visibility\?: 'public' \| 'private';/,
    );
    expect(types).not.toMatch(/UploadPhotosBody|ReceiveWebhookBody|PutBlobBody/);
    expect(types).not.toMatch(/DownloadFileResponse200|WatchEventsResponse200|ExportNotesResponse202/);
    expect(types).toContain('export type DownloadFileResult = never;');
    expect(types).toContain('export type ExportNotesResult = ExportNotesResponse200;');
    expect(types).toContain(
      '/** What the handler returns besides stream() or sse(): the body of its JSON success (2xx) responses. */',
    );
  });
});

describe('error codes implied by the body kind', () => {
  it('upload: multipart, limit and media type errors; no JSON validation of the body', () => {
    const upload = route({
      id: 'up',
      method: 'POST',
      path: '/up',
      body: { kind: 'upload', limits: { maxBytes: 10, maxFiles: 1 } },
    });
    expect(impliedErrorCodes(upload)).toEqual([
      'MALFORMED_MULTIPART',
      'TOO_MANY_FILES',
      'TOO_MANY_FIELDS',
      'PAYLOAD_TOO_LARGE',
      'UNSUPPORTED_MEDIA_TYPE',
      'INTERNAL_ERROR',
    ]);
  });

  it('raw: too large, or bytes no adapter could supply', () => {
    const raw = route({ id: 'raw', method: 'POST', path: '/raw', body: { kind: 'raw' } });
    expect(impliedErrorCodes(raw)).toEqual(['PAYLOAD_TOO_LARGE', 'RAW_BODY_UNAVAILABLE', 'INTERNAL_ERROR']);
  });
});

describe('mcp-tools.json', () => {
  it('has no tool for the files spec (none is marked mcp)', () => {
    expect(emitMcpTools(ir, { header: '// x' }).tools).toEqual([]);
  });

  it('refuses hand-built IR that makes an upload, raw or streaming route a tool', () => {
    const tool = (partial: Parameters<typeof route>[0]) => () =>
      emitMcpTools(spec({ routes: [route({ ...partial, meta: { mcp: true } })] }), { header: '// x' });
    expect(
      tool({
        id: 'a',
        method: 'POST',
        path: '/a',
        body: { kind: 'upload', limits: { maxBytes: 1, maxFiles: 1 } },
      }),
    ).toThrow(/route a: an upload body cannot be an MCP tool's input/);
    expect(tool({ id: 'b', method: 'POST', path: '/b', body: { kind: 'raw' } })).toThrow(
      /route b: an raw body/,
    );
    expect(
      tool({ id: 'c', method: 'GET', path: '/c', responses: { '200': { stream: 'application/pdf' } } }),
    ).toThrow(/route c: its streamed 200 response cannot be an MCP tool's result/);
  });
});

const HANDLERS = `// Handlers written against the generated types of the files spec.
import { createReadStream } from 'node:fs';
import { sse, stream } from 'svckit';
import { errors } from './generated/errors.js';
import { routes, type Handlers } from './generated/routes.js';

export const handlers: Handlers = {
  uploadPhotos: async ({ params, body }) => {
    const files = [];
    for await (const file of body.files) {
      let size = 0;
      for await (const chunk of file.stream) size += (chunk as Buffer).length;
      files.push({ field: file.field, filename: file.filename, type: file.declaredType, size });
    }
    const title: string | undefined = body.fields['title'];
    return { files, ...(title === undefined ? {} : { title: \`\${params.album}: \${title}\` }) };
  },
  receiveWebhook: ({ body }) => ({ bytes: body.bytes.length, contentType: body.contentType ?? null, sha256: body.text() }),
  putBlob: ({ body }) => {
    void body.bytes;
  },
  downloadFile: ({ params }) => {
    if (params.name === 'missing') throw errors.DOCUMENT_NOT_FOUND();
    return stream(createReadStream('/dev/null'), { contentType: 'application/pdf', filename: params.name });
  },
  watchEvents: () => sse((events) => void events.send({ data: 'hello' })),
  exportNotes: ({ query }) =>
    query.format === 'csv' ? stream(csv(), { contentType: 'text/csv', status: 202 }) : { count: 1 },
};

async function* csv(): AsyncGenerator<Buffer> {
  yield Buffer.from('a,b');
}

export const all = routes(handlers);

// @ts-expect-error an upload body has no JSON fields of its own
export const readsJson: Handlers['uploadPhotos'] = ({ body }) => ({ files: [], title: body.title });

// @ts-expect-error a raw body is bytes, not a parsed object
export const rawJson: Handlers['receiveWebhook'] = ({ body }) => ({ bytes: body.length, contentType: null, sha256: '' });

// @ts-expect-error a download answers with stream(), not a JSON object
export const jsonDownload: Handlers['downloadFile'] = () => ({ name: 'x' });

// @ts-expect-error a JSON route cannot answer with a stream
export const streamsJson: Handlers['receiveWebhook'] = () => stream(csv());
`;

describe('generated TypeScript with upload, raw and stream routes', () => {
  it('type-checks handlers using UploadInput, RawBodyInput, stream() and sse(), and refuses misuse', () => {
    writeFileSync(join(app.dir, 'app.ts'), HANDLERS);
    writeFileSync(
      join(app.dir, 'tsconfig.json'),
      appTsconfig(['app.ts', 'generated/*.ts'], { exactOptionalPropertyTypes: true, noUnusedLocals: true }),
    );
    // Only problems in the generated files and the handlers count; runtime/ is checked by its own suites.
    const ours = typeCheckProject(join(app.dir, 'tsconfig.json'), (file) =>
      /^(app\.ts|generated\/)/.test(file),
    );
    expect(ours).toEqual([]);
  });
});
