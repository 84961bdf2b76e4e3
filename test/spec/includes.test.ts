// Includes: svc.config.yaml split into files with `include:` (partial specs, patterns allowed) and
// `$include` (one section or one entry). Problems point into the file holding the value; names and $refs
// resolve across files; nothing outside the project directory is read; the IR lists every file read.
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadSpec, SpecError, type SpecIR, type SpecProblem } from 'svckit/spec';
import { HEAD } from './helpers.js';

type Files = Record<string, string>;

/** A project directory holding `files` (svc.config.yaml among them). */
function project(files: Files): string {
  const dir = mkdtempSync(join(tmpdir(), 'svc-include-'));
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  return dir;
}

function loadProject(dir: string, env: Record<string, string> = {}): Promise<SpecIR> {
  return loadSpec(join(dir, 'svc.config.yaml'), { env });
}

async function failure(dir: string): Promise<SpecError> {
  try {
    await loadProject(dir);
  } catch (error) {
    if (error instanceof SpecError) return error;
    throw error;
  }
  throw new Error('expected the spec to fail to load');
}

/** line:column (1-based) of the first `needle` in `text`, `skip` characters into the match. */
function position(text: string, needle: string, skip = 0): { line: number; column: number } {
  const index = text.indexOf(needle);
  if (index < 0) throw new Error(`'${needle}' not in the text`);
  const before = text.slice(0, index + skip);
  return { line: before.split('\n').length, column: index + skip - before.lastIndexOf('\n') };
}

/** The one problem at `file` `needle`, asserting there is exactly one there. */
function problemAt(
  error: SpecError,
  dir: string,
  file: string,
  text: string,
  needle: string,
  skip = 0,
): SpecProblem {
  const at = position(text, needle, skip);
  const here = error.problems.filter(
    (p) => p.file === join(dir, file) && p.line === at.line && p.column === at.column,
  );
  expect(here, JSON.stringify(error.problems, null, 1)).toHaveLength(1);
  return here[0]!;
}

const NOTE = `  Note:
    type: object
    properties: { id: { type: string }, title: { type: string } }
    required: [id, title]
`;

describe('include: partial specs', () => {
  it('merges the files a pattern matches, in name order after the root, with $refs across files', async () => {
    const root = `${HEAD}include: [specs/*.yaml]\nresources:\n${NOTE}routes:\n  health: { method: GET, path: /health }\n`;
    const notes = `routes:
  listNotes:
    method: GET
    path: /notes
    response: { 200: { type: array, items: { $ref: '#/resources/Note' } } }
  createNote:
    method: POST
    path: /notes
    body: NoteInput
    response: { 201: Note }
    errors: [NOTE_LOCKED]
`;
    const shared = `resources:
  NoteInput: { type: object, properties: { title: { type: string } }, required: [title] }
errors:
  NOTE_LOCKED: { status: 423, message: Note is locked. }
metaKeys:
  audit: { schema: { enum: [quiet, verbose] } }
`;
    const dir = project({ 'svc.config.yaml': root, 'specs/notes.yaml': notes, 'specs/shared.yaml': shared });
    const ir = await loadProject(dir);
    expect(ir.routes.map((route) => route.id)).toEqual(['health', 'listNotes', 'createNote']);
    expect(ir.resources.map((resource) => resource.name)).toEqual(['Note', 'NoteInput']);
    expect(ir.errors.map((error) => error.code)).toEqual(['NOTE_LOCKED']);
    expect(ir.metaKeys.map((key) => key.name)).toEqual(['audit']);
    const createNote = ir.routes.find((route) => route.id === 'createNote')!;
    expect(createNote.body).toEqual({
      kind: 'json',
      schema: { $ref: '#/resources/NoteInput' },
      required: true,
    });
    expect(createNote.loc).toEqual({ file: join(dir, 'specs/notes.yaml'), ...position(notes, 'createNote') });
    expect(ir.resources[1]!.loc.file).toBe(join(dir, 'specs/shared.yaml'));
    expect(ir.sources).toEqual({
      files: [join(dir, 'svc.config.yaml'), join(dir, 'specs/notes.yaml'), join(dir, 'specs/shared.yaml')],
      directories: [join(dir, 'specs')],
    });
  });

  it('supplies routes: to a root that has none, and lets an included file include more, relative to itself', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [api/index.yaml]\n`,
      'api/index.yaml': 'include: [parts/**/*.yaml]\nroutes:\n  a: { method: GET, path: /a }\n',
      'api/parts/b.yaml': 'routes:\n  b: { method: GET, path: /b }\n',
      'api/parts/deep/c.yaml': 'routes:\n  c: { method: GET, path: /c }\n',
    });
    const ir = await loadProject(dir);
    expect(ir.routes.map((route) => route.id)).toEqual(['a', 'b', 'c']);
    expect(ir.sources?.files).toEqual([
      join(dir, 'svc.config.yaml'),
      join(dir, 'api/index.yaml'),
      join(dir, 'api/parts/b.yaml'),
      join(dir, 'api/parts/deep/c.yaml'),
    ]);
  });

  it('includes a file matched by two patterns once', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [specs/*.yaml, specs/a.yaml]\n`,
      'specs/a.yaml': 'routes:\n  a: { method: GET, path: /a }\n',
    });
    expect((await loadProject(dir)).routes.map((route) => route.id)).toEqual(['a']);
  });

  it('includes a file reached through a symbolic link once, matched or named', async () => {
    for (const include of ['[specs/*.yaml]', '[specs/a.yaml, specs/b.yaml]']) {
      const dir = project({
        'svc.config.yaml': `${HEAD}include: ${include}\n`,
        'specs/a.yaml': 'routes:\n  a: { method: GET, path: /a }\n',
      });
      symlinkSync(join(dir, 'specs/a.yaml'), join(dir, 'specs/b.yaml'));
      expect((await loadProject(dir)).routes.map((route) => route.id)).toEqual(['a']);
    }
  });

  it('a pattern matching the file it is written in means the other files', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}include: ['*.yaml']\nroutes:\n  health: { method: GET, path: /health }\n`,
      'notes.yaml': "include: ['*.yaml', 'more/*.yaml']\nroutes:\n  a: { method: GET, path: /a }\n",
      'more/b.yaml': "include: ['../*.yaml']\nroutes:\n  b: { method: GET, path: /b }\n",
    });
    expect((await loadProject(dir)).routes.map((route) => route.id).sort()).toEqual(['a', 'b', 'health']);
    // Matching only itself, it merges nothing; a file naming itself outright is a cycle.
    const aloneDir = project({ 'svc.config.yaml': `${HEAD}include: ['*.yaml']\nroutes: {}\n` });
    expect((await loadProject(aloneDir)).routes).toEqual([]);
    const self = `${HEAD}include: [svc.config.yaml]\nroutes: {}\n`;
    const selfDir = project({ 'svc.config.yaml': self });
    expect(
      problemAt(await failure(selfDir), selfDir, 'svc.config.yaml', self, 'svc.config.yaml]'),
    ).toMatchObject({
      message: expect.stringMatching(/^include cycle: .*svc\.config\.yaml → .*svc\.config\.yaml$/),
    });
  });

  it('reports a mistake inside an included file at its own line and column, with the did-you-mean', async () => {
    const notes = `routes:
  getNote:
    methd: GET
    path: /notes/:id
    params: { id: { type: string } }
    response: { 200: { $ref: '#/resources/Nte' } }
`;
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [specs/notes.yaml]\nresources:\n${NOTE}`,
      'specs/notes.yaml': notes,
    });
    const error = await failure(dir);
    expect(error.problems).toHaveLength(2);
    expect(problemAt(error, dir, 'specs/notes.yaml', notes, 'methd')).toMatchObject({
      message: "unknown key 'methd' in routes.getNote",
      hint: "did you mean 'method'?",
    });
    expect(problemAt(error, dir, 'specs/notes.yaml', notes, "'#/resources/Nte'")).toMatchObject({
      hint: "did you mean '#/resources/Note'?",
    });
    expect(error.message).toMatch(/^specs[/\\]notes\.yaml:3:5 error|notes\.yaml:3:5 error/m);
  });

  it('refuses a name defined in two files, at both places, each naming the other', async () => {
    const root = `${HEAD}include: [specs/more.yaml]\nroutes:\n  listNotes: { method: GET, path: /notes }\n`;
    const more = 'routes:\n  listNotes: { method: GET, path: /notes/all }\n';
    const dir = project({ 'svc.config.yaml': root, 'specs/more.yaml': more });
    const error = await failure(dir);
    expect(error.problems).toHaveLength(2);
    const first = position(root, 'listNotes');
    const second = position(more, 'listNotes');
    expect(problemAt(error, dir, 'specs/more.yaml', more, 'listNotes')).toMatchObject({
      message: expect.stringMatching(
        new RegExp(
          `^route 'listNotes' is already defined at .*svc\\.config\\.yaml:${first.line}:${first.column}$`,
        ),
      ),
      path: 'routes.listNotes',
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, 'listNotes')).toMatchObject({
      message: expect.stringMatching(
        new RegExp(`^route 'listNotes' is defined again at .*more\\.yaml:${second.line}:${second.column}$`),
      ),
    });
  });

  it('refuses the same resource, error code or meta key in two included files', async () => {
    const a = 'resources:\n  Tag: { type: string }\nerrors:\n  TAG_GONE: { status: 410, message: Gone. }\n';
    const b =
      'resources:\n  Tag: { type: integer }\nerrors:\n  TAG_GONE: { status: 404, message: Gone. }\nmetaKeys:\n  audit: {}\n';
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [a.yaml, b.yaml]\nroutes: {}\nmetaKeys:\n  audit: {}\n`,
      'a.yaml': a,
      'b.yaml': b,
    });
    const messages = (await failure(dir)).problems.map((p) => p.message);
    expect(messages.filter((m) => m.startsWith("resource 'Tag'"))).toHaveLength(2);
    expect(messages.filter((m) => m.startsWith("error code 'TAG_GONE'"))).toHaveLength(2);
    expect(messages.filter((m) => m.startsWith("meta key 'audit'"))).toHaveLength(2);
  });

  it('holds only resources, routes, errors, metaKeys and include', async () => {
    const partial = 'name: other\nroute:\n  a: { method: GET, path: /a }\n';
    const dir = project({ 'svc.config.yaml': `${HEAD}include: [p.yaml]\nroutes: {}\n`, 'p.yaml': partial });
    const error = await failure(dir);
    expect(problemAt(error, dir, 'p.yaml', partial, 'name')).toMatchObject({
      message:
        "'name' cannot be in an included file, which holds only resources, routes, errors, metaKeys, include",
      hint: expect.stringMatching(/^keep name in .*svc\.config\.yaml$/),
    });
    expect(problemAt(error, dir, 'p.yaml', partial, 'route')).toMatchObject({
      hint: "did you mean 'routes'?",
    });
  });
});

describe('$include: one section or one entry', () => {
  it('replaces a section and a single route with the file content', async () => {
    const root = `${HEAD}resources: { $include: specs/resources.yaml }
routes:
  createNote: { $include: routes/create-note.yaml }
  listNotes: { method: GET, path: /notes, response: { 200: { type: array, items: { $ref: '#/resources/Note' } } } }
`;
    const createNote = 'method: POST\npath: /notes\nbody: Note\nresponse: { 201: Note }\n';
    const dir = project({
      'svc.config.yaml': root,
      'specs/resources.yaml': NOTE.replace(/^ {2}/gm, ''),
      'routes/create-note.yaml': createNote,
    });
    const ir = await loadProject(dir);
    expect(ir.resources.map((resource) => resource.name)).toEqual(['Note']);
    expect(ir.resources[0]!.loc).toEqual({ file: join(dir, 'specs/resources.yaml'), line: 1, column: 1 });
    expect(ir.routes.map((route) => route.id)).toEqual(['createNote', 'listNotes']);
    expect(ir.routes[0]).toMatchObject({
      method: 'POST',
      body: { kind: 'json', schema: { $ref: '#/resources/Note' } },
      loc: { file: join(dir, 'svc.config.yaml'), ...position(root, 'createNote') },
    });
    expect(ir.sources?.files).toEqual([
      join(dir, 'svc.config.yaml'),
      join(dir, 'specs/resources.yaml'),
      join(dir, 'routes/create-note.yaml'),
    ]);
  });

  it('points a mistake in an included route into that file', async () => {
    const route = 'method: GETS\npath: /notes\n';
    const dir = project({
      'svc.config.yaml': `${HEAD}routes:\n  listNotes: { $include: list.yaml }\n`,
      'list.yaml': route,
    });
    const error = await failure(dir);
    expect(error.problems).toHaveLength(1);
    expect(problemAt(error, dir, 'list.yaml', route, 'GETS')).toMatchObject({ hint: "did you mean 'GET'?" });
  });

  it('takes no other key beside it and is refused where it is not allowed', async () => {
    const root = `${HEAD}routes:
  a: { $include: a.yaml, meta: { summary: A } }
  b:
    method: POST
    path: /b
    body: { $include: body.yaml }
`;
    const dir = project({
      'svc.config.yaml': root,
      'a.yaml': 'method: GET\npath: /a\n',
      'body.yaml': '{}\n',
    });
    const error = await failure(dir);
    expect(problemAt(error, dir, 'svc.config.yaml', root, 'meta')).toMatchObject({
      message: 'routes.a: $include replaces the whole value, so it takes no other key',
      hint: 'move meta into the included file, or write the value here without $include',
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, '$include: body')).toMatchObject({
      message: '$include is not allowed in routes.b.body',
    });
  });

  it('takes one file, not a pattern', async () => {
    const root = `${HEAD}routes: { $include: 'routes/*.yaml' }\n`;
    const dir = project({ 'svc.config.yaml': root, 'routes/a.yaml': 'a: { method: GET, path: /a }\n' });
    const error = await failure(dir);
    expect(problemAt(error, dir, 'svc.config.yaml', root, "'routes/*")).toMatchObject({
      message: "$include takes one file, but 'routes/*.yaml' is a pattern",
    });
  });
});

describe('files an include may not read', () => {
  it('refuses a path outside the project directory and an absolute path, at the include', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
    writeFileSync(join(outside, 'x.yaml'), 'routes: {}\n');
    const root = `${HEAD}include: [../x.yaml, '${join(outside, 'x.yaml')}']\nroutes:\n  a: { $include: ../../a.yaml }\n`;
    const dir = project({ 'svc.config.yaml': root });
    const error = await failure(dir);
    expect(error.problems).toHaveLength(3);
    expect(problemAt(error, dir, 'svc.config.yaml', root, '../x.yaml')).toMatchObject({
      message: expect.stringMatching(/^include: '\.\.\/x\.yaml' is outside the project directory/),
      path: 'include.0',
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, `'${outside}`)).toMatchObject({
      message: expect.stringMatching(/is an absolute path/),
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, '../../a.yaml')).toMatchObject({
      message: expect.stringMatching(/^\$include: '\.\.\/\.\.\/a\.yaml' is outside the project directory/),
      path: 'routes.a.$include',
    });
  });

  it('refuses a symbolic link that resolves outside the project, named or matched by a pattern', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
    writeFileSync(join(outside, 'secret.yaml'), 'routes:\n  leak: { method: GET, path: /leak }\n');
    const root = `${HEAD}include: [specs/link.yaml, 'more/*.yaml']\nroutes: {}\n`;
    const dir = project({ 'svc.config.yaml': root });
    mkdirSync(join(dir, 'specs'));
    mkdirSync(join(dir, 'more'));
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'specs/link.yaml'));
    symlinkSync(outside, join(dir, 'more/linked-dir'));
    symlinkSync(join(outside, 'secret.yaml'), join(dir, 'more/also.yaml'));
    const error = await failure(dir);
    expect(problemAt(error, dir, 'svc.config.yaml', root, 'specs/link.yaml')).toMatchObject({
      message: expect.stringMatching(/is a symbolic link to .*secret\.yaml, outside the project directory$/),
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, "'more")).toMatchObject({
      message: expect.stringMatching(/also\.yaml' is a symbolic link to/),
    });
    expect(error.sources?.files).toEqual([join(dir, 'svc.config.yaml')]);
  });

  it('** never enters a linked folder outside the project, nor lists it for the build watch', async () => {
    const outside = mkdtempSync(join(tmpdir(), 'svc-outside-'));
    mkdirSync(join(outside, 'deep'));
    writeFileSync(join(outside, 'leak.yaml'), 'routes:\n  leak: { method: GET, path: /leak }\n');
    writeFileSync(join(outside, 'deep/leak.yaml'), 'routes:\n  deep: { method: GET, path: /deep }\n');
    for (const pattern of ['specs/**/*.yaml', 'specs/**', 'specs/*/*.yaml']) {
      const dir = project({
        'svc.config.yaml': `${HEAD}include: ['${pattern}']\n`,
        'specs/a.yaml': 'routes:\n  a: { method: GET, path: /a }\n',
        'specs/inner/b.yaml': 'routes:\n  b: { method: GET, path: /b }\n',
      });
      symlinkSync(outside, join(dir, 'specs/vendor'));
      symlinkSync(join(dir, 'specs/inner'), join(dir, 'specs/linked-inner')); // inside: entered
      const spec = await loadProject(dir);
      const expected = pattern === 'specs/*/*.yaml' ? ['b'] : ['a', 'b'];
      expect(
        spec.routes.map((route) => route.id),
        pattern,
      ).toEqual(expected);
      expect(
        spec.sources?.directories.filter((listed) => !listed.startsWith(dir)),
        pattern,
      ).toEqual([]);
    }
  });

  it('accepts a symbolic link that stays inside the project', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [specs/link.yaml]\n`,
      'real/a.yaml': 'routes:\n  a: { method: GET, path: /a }\n',
    });
    mkdirSync(join(dir, 'specs'));
    symlinkSync(join(dir, 'real/a.yaml'), join(dir, 'specs/link.yaml'));
    expect((await loadProject(dir)).routes.map((route) => route.id)).toEqual(['a']);
  });

  it('refuses an include cycle, naming the files around it', async () => {
    const a = 'include: [b.yaml]\nroutes:\n  a: { method: GET, path: /a }\n';
    const b = 'include: [a.yaml]\n';
    const loop = `${HEAD}routes:\n  self: { $include: self.yaml }\n`;
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [a.yaml]\n`,
      'a.yaml': a,
      'b.yaml': b,
    });
    const error = await failure(dir);
    expect(problemAt(error, dir, 'b.yaml', b, 'a.yaml')).toMatchObject({
      message: expect.stringMatching(/^include cycle: .*a\.yaml → .*b\.yaml → .*a\.yaml$/),
      hint: 'remove one of these includes',
    });
    const selfDir = project({ 'svc.config.yaml': loop, 'self.yaml': '$include: self.yaml\n' });
    const selfError = await failure(selfDir);
    expect(problemAt(selfError, selfDir, 'self.yaml', '$include: self.yaml\n', 'self.yaml')).toMatchObject({
      message: expect.stringMatching(/^include cycle: .*self\.yaml → .*self\.yaml$/),
    });
  });

  it('refuses a missing file, with the likely name, and a pattern matching nothing, saying which', async () => {
    const root = `${HEAD}include: [specs/notse.yaml, 'specs/*.yml']\nroutes: {}\n`;
    const dir = project({ 'svc.config.yaml': root, 'specs/notes.yaml': 'routes: {}\n' });
    const error = await failure(dir);
    expect(error.problems).toHaveLength(2);
    expect(problemAt(error, dir, 'svc.config.yaml', root, 'specs/notse.yaml')).toMatchObject({
      message: expect.stringMatching(/^include: file 'specs\/notse\.yaml' not found/),
      hint: "did you mean 'specs/notes.yaml'?",
    });
    expect(problemAt(error, dir, 'svc.config.yaml', root, "'specs/*.yml'")).toMatchObject({
      message: "include: no file matches 'specs/*.yml'",
    });
  });

  it('refuses a ${VAR} in an include path', async () => {
    const root = `${HEAD}include: ['\${AREA}/a.yaml']\nroutes: {}\n`;
    const dir = project({ 'svc.config.yaml': root, 'x/a.yaml': 'routes: {}\n' });
    let error: unknown;
    await loadProject(dir, { AREA: 'x' }).catch((caught: unknown) => (error = caught));
    expect(error).toBeInstanceOf(SpecError);
    expect((error as SpecError).problems.map((p) => p.message)).toEqual([
      'include: the path cannot use ${VAR}: which files make the spec must not depend on the environment',
    ]);
  });

  it('lists the files read so far on a failed load, so a watcher sees the fix', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}include: [specs/*.yaml]\n`,
      'specs/a.yaml': 'routes:\n  a: { method: GETS, path: /a }\n',
    });
    const error = await failure(dir);
    expect(error.sources).toEqual({
      files: [join(dir, 'svc.config.yaml'), join(dir, 'specs/a.yaml')],
      directories: [join(dir, 'specs')],
    });
  });
});

describe('loading a spec from text not yet written', () => {
  it('reads the given text for the spec file, and its includes from beside it', async () => {
    const dir = project({
      'svc.config.yaml': `${HEAD}routes:\n  health: { method: GET, path: /health }\n`,
      'more.yaml': `routes:\n  status: { method: GET, path: /status }\n`,
    });
    const text = `${HEAD}include: ['*.yaml']\nroutes:\n  ready: { method: GET, path: /ready }\n`;
    const ir = await loadSpec(join(dir, 'svc.config.yaml'), { env: {}, text });
    expect(ir.routes.map((route) => route.id).sort()).toEqual(['ready', 'status']);
    expect(ir.file).toBe(join(dir, 'svc.config.yaml'));
  });

  it('places the problems of the given text in the spec file', async () => {
    const dir = project({ 'svc.config.yaml': `${HEAD}routes: {}\n` });
    const text = `${HEAD}routes:\n  bad: { method: FETCH, path: /bad }\n`;
    const error = await loadSpec(join(dir, 'svc.config.yaml'), { env: {}, text }).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(SpecError);
    const [problem] = (error as SpecError).problems;
    expect(problem!.file).toBe(join(dir, 'svc.config.yaml'));
    expect(problem!.line).toBe(5);
  });
});
