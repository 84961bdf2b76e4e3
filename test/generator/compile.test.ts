// Every generated TypeScript file type-checks under strict settings, and the Handlers type catches wrong
// handlers: a file using them (with @ts-expect-error lines) is type-checked as `tsc -p` would.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { relative } from 'node:path';
import { generateFiles } from '../../generator/index.js';
import { notesSpec, spec } from './fixtures.js';
import { createProject, generateInto, REPO_ROOT, type TestProject } from './project.js';
import { appTsconfig, typeCheckProject } from './ts-compile.js';

const APP = `// Handlers written against the generated types.
import { errors } from './generated/errors.js';
import { loadConfig, type SvcConfig } from './generated/config.js';
import { routes, type Handlers, type RouteId } from './generated/routes.js';
import type { Note, NoteInput } from './generated/types.js';
import * as validators from './generated/validators.js';

const notes = new Map<string, Note>();

export const handlers: Handlers = {
  listNotes: ({ query }) => {
    const limit: number | undefined = query.limit;
    return { items: [...notes.values()].slice(0, limit ?? 20), nextCursor: null };
  },
  createNote: ({ body }) => {
    const input: NoteInput = body;
    return { id: crypto.randomUUID(), title: input.title, createdAt: new Date().toISOString() };
  },
  getNote: ({ params }) => {
    const note = notes.get(params.id);
    if (!note) throw errors.NOTE_NOT_FOUND();
    return note;
  },
  updateNote: async ({ params, body }) => {
    const note = notes.get(params.id);
    if (!note) throw errors.NOTE_NOT_FOUND({ details: { id: params.id } });
    return { ...note, ...body };
  },
  deleteNote: ({ params }) => {
    notes.delete(params.id);
  },
};

export const all = routes(handlers);
export const ids: RouteId[] = ['getNote', 'deleteNote'];
export const config: SvcConfig = loadConfig({});
export const valid: boolean = validators.getNote_params({ id: 'x' });

// @ts-expect-error a route id that does not exist
export const wrongId: RouteId = 'getNotes';

// @ts-expect-error the result must be a Note
export const wrongResult: Handlers['getNote'] = () => ({ id: 1 });

// @ts-expect-error a GET route has no body
export const readsBody: Handlers['getNote'] = ({ body }) => body.title;

// @ts-expect-error a created note's title is a string
export const wrongBodyUse: Handlers['createNote'] = ({ body }) => ({ id: 'x', title: body.title.length, createdAt: 'now' });

// @ts-expect-error every route needs its handler
export const missing: Handlers = { listNotes: handlers.listNotes };

// @ts-expect-error an unknown error code has no constructor
errors.NOTE_GONE();
`;

let app: TestProject;

beforeAll(async () => {
  app = createProject('# files are generated from IR\n');
  await generateInto(app, notesSpec(), 'source');
  // A spec that declares nothing must still produce valid modules.
  const empty = join(app.dir, 'empty');
  mkdirSync(empty);
  const runtimeImport = relative(empty, join(REPO_ROOT, 'runtime'));
  for (const file of await generateFiles({
    ir: spec(),
    outDir: empty,
    source: 'svc.config.yaml',
    runtimeImport,
  })) {
    writeFileSync(file.path, file.content);
  }
  writeFileSync(join(app.dir, 'app.ts'), APP);
  writeFileSync(join(app.dir, 'tsconfig.json'), appTsconfig(['app.ts', 'generated/*.ts', 'empty/*.ts']));
});
afterAll(() => app.remove());

describe('generated TypeScript', () => {
  it('type-checks, and wrong handlers, ids and error codes do not', () => {
    // The app and the generated files are judged; the runtime they import is checked by the repository's tsconfig.
    const diagnostics = typeCheckProject(join(app.dir, 'tsconfig.json'), (file) =>
      /^(?:app\.ts|generated\/|empty\/)/.test(file),
    );
    // An unused @ts-expect-error would itself be reported, so silence proves every expected error happened.
    expect(diagnostics).toEqual([]);
  });
});
