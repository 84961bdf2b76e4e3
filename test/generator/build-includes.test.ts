// svc build over a spec split into files: the no-op cache holds only while every included file is unchanged
// and every directory an include pattern listed holds the same names (a new file may match), and --check
// sees a change in an included file.
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'svckit/generator';
import { afterEach, describe, expect, it } from 'vitest';
import { cachedOutputs, type CacheScope } from '../../generator/build-cache.js';
import { createProject, type TestProject } from './project.js';

const ROOT = `svc: 1
name: split-api
version: 1.0.0
include: [specs/*.yaml, meta.yaml]
routes:
  health: { method: GET, path: /health, response: { 200: null } }
`;
const NOTES = `routes:
  listNotes: { method: GET, path: /notes, response: { 200: null }, meta: { summary: List notes } }
`;

let app: TestProject | undefined;
afterEach(() => app?.remove());

describe('svc build with included files', () => {
  it('rebuilds when an included file changes, a pattern matches a new file, or a file without routes changes', async () => {
    app = createProject(ROOT);
    const dir = app.dir;
    mkdirSync(join(dir, 'specs'));
    writeFileSync(join(dir, 'specs/notes.yaml'), NOTES);
    // Only a meta key: nothing in the IR carries this file's location.
    writeFileSync(join(dir, 'meta.yaml'), 'metaKeys:\n  audit: {}\n');
    const first = await build({ specFile: app.specFile, env: {} });
    expect(first.cached).toBe(false);
    expect(app.read('openapi.json')).toContain('List notes');

    const scope: CacheScope = {
      projectDir: dir,
      specFile: app.specFile,
      outDir: app.outDir,
      runtimeImport: 'svckit',
      env: {},
    };
    expect(await cachedOutputs(scope)).toBeDefined();

    writeFileSync(join(dir, 'specs/tags.yaml'), 'routes:\n  listTags: { method: GET, path: /tags }\n');
    expect(await cachedOutputs(scope)).toBeUndefined();
    rmSync(join(dir, 'specs/tags.yaml'));
    // A dot-file (an editor's swap file) is no match and changes nothing.
    writeFileSync(join(dir, 'specs/.notes.yaml.swp'), '');
    expect(await cachedOutputs(scope)).toBeDefined();

    writeFileSync(join(dir, 'meta.yaml'), 'metaKeys:\n  audit: { guarded: true }\n');
    expect(await cachedOutputs(scope)).toBeUndefined();
    writeFileSync(join(dir, 'meta.yaml'), 'metaKeys:\n  audit: {}\n');
    expect(await cachedOutputs(scope)).toBeDefined();

    writeFileSync(join(dir, 'specs/notes.yaml'), NOTES.replace('List notes', 'List every note'));
    const check = await build({ specFile: app.specFile, env: {}, check: true });
    expect(check.files.filter((file) => file.status === 'stale').map((file) => file.path)).toContain(
      join(app.outDir, 'openapi.json'),
    );
    const again = await build({ specFile: app.specFile, env: {} });
    expect(again.cached).toBe(false);
    expect(app.read('openapi.json')).toContain('List every note');
  });
});
