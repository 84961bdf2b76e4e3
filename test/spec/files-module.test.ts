// `modules.files` at build: which file routes the application documents (upload only with `routes.upload`,
// the content route gone with `download: false`, any route left out by id), the upload limits taken from the
// application's settings (per file, the request sized for maxFiles of them), the routes in openapi.json and
// the typed client, and the settings refused at file:line:col.
import { describe, expect, it } from 'vitest';
import { emitClient } from '../../generator/emit-client.js';
import { emitOpenApi } from '../../generator/emit-openapi.js';
import { filesUploadLimits } from '../../shared/files-upload.js';
import { HEAD, expectOnly, load, problemsOf } from './helpers.js';

const spec = (modules: string) => `${HEAD}modules:\n${modules}routes: {}\n`;
const filesOf = async (modules: string) => {
  const ir = await load(spec(modules));
  return { ir, files: ir.modules?.find((module) => module.name === 'files') };
};

describe('modules.files in the module model', () => {
  it('`files: true` documents every route but the opt-in upload', async () => {
    const { files } = await filesOf('  auth: true\n  files: true\n');
    expect(files?.version).toBe('6.0.0');
    expect(files?.routes.map((route) => route.id)).toEqual([
      'listFiles',
      'getFile',
      'downloadFile',
      'createFileUrl',
      'deleteFile',
      'openFileUrl',
    ]);
    expect(files?.resources.map((resource) => resource.name).sort()).toEqual([
      'FileList',
      'FileUrl',
      'FileUrlInput',
      'PublicFile',
    ]);
  });

  it('routes.upload turns POST /files on with per-file limits; the request fits maxFiles such files', async () => {
    const { files } = await filesOf(
      '  auth: true\n  files:\n    routes:\n      upload: { maxBytes: 10MiB, maxFiles: 4, allowedTypes: [image/*] }\n',
    );
    const upload = files?.routes.find((route) => route.id === 'uploadFiles');
    expect(upload?.body).toMatchObject({
      kind: 'upload',
      limits: filesUploadLimits({ maxBytes: 10 * 1024 * 1024, maxFiles: 4, allowedTypes: ['image/*'] }),
    });
    const limits = upload?.body?.kind === 'upload' ? upload.body.limits : undefined;
    expect(limits?.maxFileBytes).toBe(10 * 1024 * 1024);
    expect(limits?.maxBytes).toBeGreaterThan(4 * 10 * 1024 * 1024);
    expect(limits?.allowedTypes).toEqual(['image/*']);
  });

  it('download: false and routes.<id>: false leave routes out; the settings keys are no route ids', async () => {
    const { files } = await filesOf(
      '  auth: true\n  files:\n    routes: { download: false, shared: true, maxUrlTtl: 30m, deleteFile: false, upload: false }\n',
    );
    expect(files?.routes.map((route) => route.id)).toEqual([
      'listFiles',
      'getFile',
      'createFileUrl',
      'openFileUrl',
    ]);
    expect(files?.omittedRoutes).toEqual(['deleteFile']);
  });

  it('puts the file routes in openapi.json (the signed route without security) and the client', async () => {
    const { ir } = await filesOf(
      '  auth: true\n  files: { routes: { upload: { maxBytes: 1MiB, maxFiles: 2 } } }\n',
    );
    const document = emitOpenApi(ir, { header: 'test' });
    const paths = document.paths as Record<
      string,
      Record<string, { operationId?: string; security?: unknown[] }>
    >;
    expect(paths['/files']?.post?.operationId).toBe('uploadFiles');
    expect(paths['/files/{id}/content']?.get?.operationId).toBe('downloadFile');
    expect(paths['/files/{id}/url']?.post?.operationId).toBe('createFileUrl');
    expect(paths['/files/{id}/signed']?.get?.security ?? []).toEqual([]);
    expect(paths['/files/{id}']?.get?.security?.length).toBeGreaterThan(0);
    const text = JSON.stringify(document);
    expect(text).toContain('FILE_URL_EXPIRY_INVALID');
    expect(text).toContain('multipart/form-data');
    const client = emitClient(ir, { header: 'test' });
    expect(client).toContain('uploadFiles');
    expect(client).toContain('openFileUrl');
  });
});

describe('modules.files refused at build', () => {
  it('needs the auth module, at modules.files', async () => {
    await expectOnly(spec('  files: true\n'), {
      line: 5,
      column: 3,
      path: 'modules.files',
      message: /^modules\.files needs the auth module/,
      hint: 'enable it with modules: { auth: true }, next to files',
    });
  });

  it('refuses unknown keys with a hint, at the key', async () => {
    const { problems } = await problemsOf(
      spec('  auth: true\n  files:\n    disc: { driver: local, root: x }\n'),
    );
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatchObject({ line: 7, column: 5 });
    expect(`${problems[0]?.message} ${problems[0]?.hint ?? ''}`).toMatch(/disc/);
    expect(`${problems[0]?.message} ${problems[0]?.hint ?? ''}`).toMatch(/disk/);
  });

  it('refuses a route id the module does not have, bad sizes and media types, at each value', async () => {
    const { problems } = await problemsOf(
      spec(
        [
          '  auth: true',
          '  files:',
          '    maxTotalBytes: 10 megabytes',
          '    routes:',
          '      removeFile: false',
          '      upload: { maxBytes: 25mib, allowedTypes: [image/png; q=1] }',
          '',
        ].join('\n'),
      ),
    );
    const at = problems.map((problem) => `${problem.line}:${problem.column}`);
    expect(at).toEqual(['7:20', '9:7', '10:27', '10:49']);
    expect(problems[1]?.message).toBe("unknown key 'removeFile' in modules.files.routes");
    expect(problems[1]?.hint).toContain('deleteFile');
    expect(problems[2]?.hint).toMatch(/25MiB/);
  });

  it('refuses a URL lifetime under 1s or over 7 days, a misplaced disk option and a scanner that is not clamd', async () => {
    const { problems } = await problemsOf(
      spec(
        [
          '  auth: true',
          '  files:',
          '    disk: { driver: memory, root: x }',
          '    scan: http://scanner',
          '    routes: { maxUrlTtl: 500ms }',
          '',
        ].join('\n'),
      ),
    );
    expect(problems.map((problem) => [problem.line, problem.column, problem.message])).toEqual([
      [7, 29, 'modules.files.disk.root means nothing to the memory driver'],
      [
        8,
        11,
        'modules.files.scan: expected clamd://host:port or clamd:///path/to/socket but got "http://scanner"',
      ],
      [9, 26, 'modules.files.routes.maxUrlTtl: expected a duration from 1s to 7d but got "500ms"'],
    ]);
    const { problems: tooLong } = await problemsOf(
      spec('  auth: true\n  files:\n    routes: { maxUrlTtl: 8d }\n'),
    );
    expect(tooLong.map((problem) => problem.message)).toEqual([
      'modules.files.routes.maxUrlTtl: expected a duration from 1s to 7d but got "8d"',
    ]);
  });

  it('refuses a ${VAR} where it decides the documented routes', async () => {
    await expectOnly(
      spec('  auth: true\n  files: { routes: { download: "${DL:-true}" } }\n'),
      {
        line: 6,
        column: 32,
        message: /modules\.files\.routes\.download decides which routes the build documents/,
      },
      {},
    );
  });
});
