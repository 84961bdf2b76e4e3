// A throwaway application folder for generator tests: svc.config.yaml, and node_modules/svckit linked to this
// checkout so generated code importing 'svckit' resolves exactly as in a real application.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFiles } from '../../generator/index.js';
import type { SpecIR } from '../../shared/ir.js';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface TestProject {
  dir: string;
  specFile: string;
  outDir: string;
  read(name: string): string;
  write(name: string, content: string): void;
  remove(): void;
}

export function createProject(spec: string): TestProject {
  const dir = mkdtempSync(join(tmpdir(), 'svc-gen-'));
  mkdirSync(join(dir, 'node_modules'));
  symlinkSync(REPO_ROOT, join(dir, 'node_modules', 'svckit'), 'dir');
  const specFile = join(dir, 'svc.config.yaml');
  writeFileSync(specFile, spec);
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: 'test-app', private: true, type: 'module' })}\n`,
  );
  // The application's own prettier config, as `svc init` would leave it: generated files follow it.
  writeFileSync(join(dir, '.prettierrc.json'), readFileSync(join(REPO_ROOT, '.prettierrc.json')));
  const outDir = join(dir, 'generated');
  return {
    dir,
    specFile,
    outDir,
    read: (name) => readFileSync(join(outDir, name), 'utf8'),
    write: (name, content) => writeFileSync(join(dir, name), content),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** A small but complete spec: resources referencing each other, params, query, bodies, 204, errors, meta. */
export const NOTES_YAML = `svc: 1
name: notes-api
version: 0.1.0
title: Notes API
server:
  adapter: \${SVC_ADAPTER:-fastify}
  port: \${PORT:-3000}
  host: \${HOST:-127.0.0.1}
resources:
  Note:
    type: object
    description: A note.
    properties:
      id: { type: string, format: uuid, readOnly: true, description: Server-assigned identifier. }
      title: { type: string, minLength: 1, maxLength: 200 }
      body: { type: string, maxLength: 10000 }
      createdAt: { type: string, format: date-time, readOnly: true }
    required: [id, title, createdAt]
    additionalProperties: false
  NoteInput:
    type: object
    properties:
      title: { type: string, minLength: 1, maxLength: 200 }
      body: { type: string, maxLength: 10000 }
    required: [title]
    additionalProperties: false
  NoteList:
    type: object
    properties:
      items: { type: array, items: { $ref: '#/resources/Note' } }
      nextCursor: { type: [string, 'null'] }
    required: [items, nextCursor]
    additionalProperties: false
routes:
  listNotes:
    method: GET
    path: /notes
    query:
      limit: { type: integer, minimum: 1, maximum: 100, default: 20 }
      cursor: { type: string, minLength: 1 }
    response: { 200: NoteList }
    meta: { summary: List notes, tags: [notes], mcp: true }
  createNote:
    method: POST
    path: /notes
    body: NoteInput
    response: { 201: Note }
    meta: { summary: Create a note, tags: [notes] }
  getNote:
    method: GET
    path: /notes/:id
    params:
      id: { type: string, format: uuid }
    response: { 200: Note }
    errors: [NOTE_NOT_FOUND]
    meta: { summary: Read one note, etag: true }
  deleteNote:
    method: DELETE
    path: /notes/:id
    params:
      id: { type: string, format: uuid }
    response: { 204: null }
    errors: [NOTE_NOT_FOUND]
errors:
  NOTE_NOT_FOUND:
    status: 404
    message: Note not found.
modules:
  mcp: true
`;

/** Every file `svc build` writes for an application. */
export const GENERATED_FILES = [
  'types.ts',
  'validators.js',
  'validators.d.ts',
  'serializers.js',
  'serializers.d.ts',
  'errors.ts',
  'routes.ts',
  'config.ts',
  'service.ts',
  'client.ts',
  'openapi.json',
  'openapi.d.ts',
  'mcp-tools.json',
];

/**
 * Writes every generated file of `ir` into the project. `runtime: 'source'` makes the files import this
 * checkout's runtime/ by relative path (as svckit's own generated/modules do), so they load and type-check
 * before 'svckit' exports everything; 'package' imports 'svckit' like an application.
 */
export async function generateInto(
  app: TestProject,
  ir: SpecIR,
  runtime: 'source' | 'package',
): Promise<void> {
  const runtimeImport = runtime === 'package' ? 'svckit' : relative(app.outDir, join(REPO_ROOT, 'runtime'));
  const files = await generateFiles({ ir, outDir: app.outDir, source: 'svc.config.yaml', runtimeImport });
  mkdirSync(app.outDir, { recursive: true });
  for (const file of files) writeFileSync(file.path, file.content);
}
