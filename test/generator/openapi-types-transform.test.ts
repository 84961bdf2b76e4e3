// openapi.d.ts is printed by openapi-typescript's transform on the parsed openapi.json, without its entry's
// redocly lint and bundle: the bytes must be those the entry prints for the documents svc generates.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { emitOpenApiTypes, openApiTsOptions } from '../../generator/emit-openapi-types.js';
import { REPO_ROOT } from './project.js';

interface OpenApiTypeScriptEntry {
  default(schema: string, options: object): Promise<unknown>;
  astToString(ast: unknown): string;
}
// Imported by a name the compiler does not follow, as the generator does (its declarations are large).
const OPENAPI_TYPESCRIPT: string = 'openapi-typescript';

async function printedByEntry(openApiJson: string, outDir: string): Promise<string> {
  const library = (await import(OPENAPI_TYPESCRIPT)) as OpenApiTypeScriptEntry;
  const options = openApiTsOptions(outDir);
  return library.astToString(await library.default(openApiJson, { ...options, cwd: new URL(options.cwd) }));
}

describe('openapi.d.ts from the transform', () => {
  it.each(['generated', 'bench/spec/generated'])(
    'prints the bytes of openapi-typescript for %s/openapi.json',
    async (folder) => {
      const outDir = join(REPO_ROOT, folder);
      const openApiJson = readFileSync(join(outDir, 'openapi.json'), 'utf8');
      const printed = await emitOpenApiTypes({ openApiJson, header: '// h', outDir });
      expect(printed).toBe(`// h\n\n${await printedByEntry(openApiJson, outDir)}`);
    },
  );

  it('does not lint the document again: the spec was checked before openapi.json was printed', async () => {
    // Two operations with one id: redocly's lint refuses it; the transform prints both paths.
    const operation = { operationId: 'same', responses: { 204: { description: 'none' } } };
    const openApiJson = JSON.stringify({
      openapi: '3.1.0',
      info: { title: 't', version: '1' },
      paths: { '/a': { get: operation }, '/b': { get: operation } },
    });
    const outDir = join(REPO_ROOT, 'generated');
    const quiet = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await expect(printedByEntry(openApiJson, outDir)).rejects.toThrow();
    } finally {
      quiet.mockRestore();
    }
    const printed = await emitOpenApiTypes({ openApiJson, header: '// h', outDir });
    expect(printed).toContain('"/a": {');
    expect(printed).toContain('"/b": {');
  });
});
