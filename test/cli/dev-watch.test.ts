// What `svc dev` watches for spec changes: svc.config.yaml and every file it includes, and the folders an
// include pattern lists (a file added there can change the spec), read from what the loader last read,
// even when that load failed (so fixing a broken included file rebuilds).
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { loadSpec, SpecError } from 'svckit/spec';
import { watchedSpecFiles } from '../../cli/commands/dev.js';
import { tempProject } from './run-svc.js';

const ROOT = `svc: 1
name: areas
version: 1.0.0
include: [specs/*.yaml]
routes: {}
`;

const NOTES = `routes:
  listNotes:
    method: GET
    path: /notes
    response: { 200: { type: string } }
`;

describe('watchedSpecFiles', () => {
  test('before any load: svc.config.yaml alone', () => {
    expect(watchedSpecFiles('/app', undefined)).toEqual({ files: ['svc.config.yaml'], directories: [] });
  });

  test('the spec file, its includes and the folders its patterns list, relative to the project', async () => {
    const dir = await tempProject({ 'svc.config.yaml': ROOT, 'specs/notes.yaml': NOTES });
    const spec = await loadSpec(join(dir, 'svc.config.yaml'), { env: {} });
    expect(watchedSpecFiles(dir, spec.sources)).toEqual({
      files: ['svc.config.yaml', 'specs/notes.yaml'],
      directories: ['specs'],
    });
  });

  test('a load that failed in an included file still names that file', async () => {
    const dir = await tempProject({
      'svc.config.yaml': ROOT,
      'specs/notes.yaml': NOTES.replace('method: GET', 'methd: GET'),
    });
    const error = await loadSpec(join(dir, 'svc.config.yaml'), { env: {} }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SpecError);
    expect(watchedSpecFiles(dir, (error as SpecError).sources).files).toContain('specs/notes.yaml');
  });
});
