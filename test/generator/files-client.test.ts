// The generated client of an application enabling `modules.files` with uploads: its upload method takes an
// UploadRequest (or a FormData) under strict types, and against filesPlugin served by Fastify it uploads,
// lists and gets a temporary URL that fetch opens without a credential.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Auth, authPlugin, createApp, type App } from 'svckit';
import { fastifyPlugin } from 'svckit/fastify';
import { loadSpec } from 'svckit/spec';
import { memoryDisk } from '../../runtime/files/disks/index.js';
import { filesPlugin } from '../../runtime/files/plugin.js';
import { createProject, generateInto, type TestProject } from './project.js';
import { compileStrict } from './ts-compile.js';

const SPEC = `svc: 1
name: files-app
version: 1.0.0
modules:
  auth: true
  files: { routes: { upload: { maxBytes: 1KiB, maxFiles: 2 } } }
routes: {}
`;

type Result = { ok: boolean; status: number; data?: unknown; error?: { code: string } };
interface FilesClient {
  [method: string]: (input?: object) => Promise<Result>;
}
interface ClientModule {
  createClient(options: { baseUrl: string; headers?: () => Record<string, string> }): FilesClient;
}

const TYPE_CHECKS = `// Type-level checks of the generated client's file routes. Never run.
import { createClient } from './client.js';

export async function calls(client: ReturnType<typeof createClient>, blob: Blob, form: FormData): Promise<void> {
  const uploaded = await client.uploadFiles({ body: { files: [{ field: 'file', file: blob, filename: 'a.txt' }] } });
  if (uploaded.ok) {
    const id: string = uploaded.data.items[0]!.id;
    const size: number = uploaded.data.items[0]!.size;
    void [id, size];
  } else if (!uploaded.unexpected && uploaded.status === 402) {
    const code: 'FILE_QUOTA_EXCEEDED' = uploaded.error.code;
    void code;
  }
  await client.uploadFiles({ body: form });
  // @ts-expect-error the upload body is required
  await client.uploadFiles({});
  const made = await client.createFileUrl({ params: { id: 'x' }, body: { expiresIn: '5m', disposition: 'inline' } });
  if (made.ok) {
    const url: string = made.data.url;
    void url;
  }
  // @ts-expect-error the disposition is attachment or inline
  await client.createFileUrl({ params: { id: 'x' }, body: { disposition: 'download' } });
}
`;

let project: TestProject;
let server: App;
let client: FilesClient;
let baseUrl: string;

beforeAll(async () => {
  project = createProject(SPEC);
  await generateInto(project, await loadSpec(project.specFile, { env: {} }), 'source');
  const auth = new Auth({ secret: 'a-test-secret-that-is-32-chars-!', passwordHash: { ln: 4, r: 8, p: 1 } });
  server = createApp({ name: 'files-app' });
  server.register(authPlugin({ auth }));
  server.register(filesPlugin({ disk: memoryDisk(), routes: { upload: { maxBytes: 1024, maxFiles: 2 } } }));
  server.register(fastifyPlugin({ onError: false, routes: [] }));
  baseUrl = (await server.listen({ port: 0, host: '127.0.0.1' })).url;
  const { createClient } = (await import(
    pathToFileURL(join(project.outDir, 'client.ts')).href
  )) as ClientModule;
  let token = '';
  client = createClient({
    baseUrl,
    headers: (): Record<string, string> => (token === '' ? {} : { authorization: `Bearer ${token}` }),
  });
  const registered = await client.register!({
    body: { email: 'ada@example.com', password: 'correct horse battery' },
  });
  token = (registered.data as { accessToken: string }).accessToken;
});
afterAll(async () => {
  await server?.close();
  project?.remove();
});

describe('generated client of modules.files', () => {
  it('types the upload as an UploadRequest or FormData and the answers as the public projection', () => {
    const files = {
      'client.ts': project.read('client.ts'),
      'types.ts': project.read('types.ts'),
      'type-checks.ts': TYPE_CHECKS,
    };
    expect(compileStrict(`${project.outDir}/`, files, 'node')).toEqual([]);
  });

  it('uploads through the client, lists the file and opens its temporary URL without a credential', async () => {
    const uploaded = await client.uploadFiles!({
      body: {
        files: [
          { field: 'file', file: new Blob(['hello'], { type: 'text/plain' }), filename: 'hello.txt' },
          { field: 'other', file: new Blob(['world'], { type: 'text/plain' }), filename: 'world.txt' },
        ],
      },
    });
    expect(uploaded).toMatchObject({ ok: true, status: 201 });
    const items = (uploaded.data as { items: { id: string; name: string }[] }).items;
    expect(items.map((item) => item.name)).toEqual(['hello.txt', 'world.txt']);
    const listed = await client.listFiles!();
    expect((listed.data as { items: unknown[] }).items).toHaveLength(2);
    const made = await client.createFileUrl!({ params: { id: items[0]!.id }, body: { expiresIn: 60 } });
    expect(made).toMatchObject({ ok: true, status: 200 });
    const opened = await fetch(`${baseUrl}${(made.data as { url: string }).url}`);
    expect(await opened.text()).toBe('hello');
    const tooMany = await client.uploadFiles!({
      body: {
        files: ['a', 'b', 'c'].map((name) => ({ field: 'file', file: new Blob([name]), filename: name })),
      },
    });
    expect(tooMany).toMatchObject({ ok: false, status: 400, error: { code: 'TOO_MANY_FILES' } });
  });
});
