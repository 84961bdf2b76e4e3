// errors.ts: svckit's own catalog (generated/modules/errors.ts, kept fresh) and an application's codes.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { BootError, HttpError } from 'svckit';
import { describe, expect, it } from 'vitest';
import { buildModules } from '../../generator/index.js';
import { catalog, errors } from '../../generated/modules/errors.js';
import { appError, notesSpec } from './fixtures.js';
import { createProject, generateInto } from './project.js';

describe('generated/modules/errors.ts', () => {
  it('is what spec/errors.yaml compiles to (svc build --check would pass)', async () => {
    const result = await buildModules({ check: true });
    const shown = (path: string) => path.slice(path.lastIndexOf('/generated/') + 1);
    expect(result.files.map((file) => [shown(file.path), file.status])).toEqual([
      ['generated/modules/errors.ts', 'unchanged'],
      ['generated/modules/auth/types.ts', 'unchanged'],
      ['generated/modules/auth/validators.ts', 'unchanged'],
      ['generated/modules/auth/serializers.ts', 'unchanged'],
      ['generated/modules/auth/routes.ts', 'unchanged'],
      ['generated/modules/files/types.ts', 'unchanged'],
      ['generated/modules/files/validators.ts', 'unchanged'],
      ['generated/modules/files/serializers.ts', 'unchanged'],
      ['generated/modules/files/routes.ts', 'unchanged'],
      ['generated/modules/tenancy/types.ts', 'unchanged'],
      ['generated/modules/tenancy/validators.ts', 'unchanged'],
      ['generated/modules/tenancy/serializers.ts', 'unchanged'],
      ['generated/modules/tenancy/routes.ts', 'unchanged'],
    ]);
  });

  it('builds typed constructors: HTTP codes make HttpError, boot codes BootError, extra statuses allowed', () => {
    const notFound = errors.NOT_FOUND();
    expect(notFound).toBeInstanceOf(HttpError);
    expect([notFound.status, notFound.code, notFound.message]).toEqual([
      404,
      'NOT_FOUND',
      'Route not found.',
    ]);
    expect(errors.CONFIG_INVALID({ message: 'server.port: bad' })).toBeInstanceOf(BootError);
    expect(errors.AUTH_TOKEN_INVALID({ status: 400 }).status).toBe(400);
    expect(catalog.AUTH_TOKEN_INVALID).toEqual({
      status: 401,
      statuses: [400],
      message: 'Token is invalid.',
      module: 'auth',
    });
  });
});

describe("an application's errors.ts", () => {
  it('holds only its own codes, with descriptions as doc comments that cannot end early', async () => {
    const app = createProject('# files are generated from IR\n');
    try {
      const ir = notesSpec();
      ir.errors.push(appError('NOTE_LOCKED', 423, 'Note is locked.', 'Ends a comment */ here? No.'));
      await generateInto(app, ir, 'source');
      const source = app.read('errors.ts');
      expect(source).toContain('/** Ends a comment *\\/ here? No. */');
      expect(source).not.toContain('HTTP_VALIDATION');
      const generated = (await import(pathToFileURL(join(app.outDir, 'errors.ts')).href)) as {
        catalog: Record<string, unknown>;
        errors: Record<string, (options?: object) => HttpError>;
      };
      expect(Object.keys(generated.catalog)).toEqual(['NOTE_NOT_FOUND', 'NOTE_LOCKED']);
      const locked = generated.errors.NOTE_LOCKED?.({ details: { id: 1 } });
      expect([locked?.status, locked?.code, locked?.details]).toEqual([423, 'NOTE_LOCKED', { id: 1 }]);
    } finally {
      app.remove();
    }
  });
});
