// `svc make:resource` writes its schemas, routes and error codes into the user's svc.config.yaml. The file
// is the user's: every comment, blank line, quote and fold outside the inserted lines must stay as it was,
// and what is inserted must read like the rest of the spec and load.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse, parseDocument } from 'yaml';
import { loadSpec } from 'svckit/spec';
import { editSpec, type SpecEntries } from '../../make/spec-edit.js';

const fixture = (name: string): string =>
  readFileSync(fileURLToPath(new URL(`../fixtures/make/${name}`, import.meta.url)), 'utf8');
const TEMPLATE = fileURLToPath(new URL('../../templates/init/svc.config.yaml.hbs', import.meta.url));

const TEXT = { type: 'string', minLength: 1, maxLength: 200 };
const ID = { id: { type: 'string', format: 'uuid' } };

/** What make:resource declares for a blog post: four schemas, the five CRUD routes and two error codes. */
function blogPostEntries(): SpecEntries {
  return {
    resources: {
      BlogPost: {
        type: 'object',
        description:
          'A blog post: a title and a body in Markdown, written by one author and shown on the front page once published.',
        properties: {
          id: { type: 'string', format: 'uuid', readOnly: true },
          title: TEXT,
          body: { type: 'string', maxLength: 100000 },
          createdAt: { type: 'string', format: 'date-time', readOnly: true },
        },
        required: ['id', 'title', 'createdAt'],
        additionalProperties: false,
      },
      BlogPostInput: {
        type: 'object',
        description: 'What a client sends to create a blog post.',
        properties: { title: TEXT, body: { type: 'string', maxLength: 100000 } },
        required: ['title'],
        additionalProperties: false,
      },
      BlogPostPatch: {
        type: 'object',
        properties: { title: TEXT },
        minProperties: 1,
        additionalProperties: false,
      },
      BlogPostPage: {
        type: 'object',
        properties: {
          items: { type: 'array', items: { $ref: '#/resources/BlogPost' } },
          nextCursor: { type: ['string', 'null'] },
        },
        required: ['items', 'nextCursor'],
        additionalProperties: false,
      },
    },
    routes: {
      listBlogPosts: {
        method: 'GET',
        path: '/blog-posts',
        query: {
          limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
          cursor: { type: 'string', minLength: 1, maxLength: 200 },
        },
        response: { 200: 'BlogPostPage' },
        errors: ['BLOG_POST_CURSOR_INVALID'],
        meta: { summary: 'List blog posts', tags: ['blog-posts'], auth: true, mcp: true },
      },
      createBlogPost: {
        method: 'POST',
        path: '/blog-posts',
        body: 'BlogPostInput',
        response: { 201: 'BlogPost' },
        meta: { summary: 'Create a blog post', tags: ['blog-posts'], auth: true, idempotency: 'optional' },
      },
      getBlogPost: {
        method: 'GET',
        path: '/blog-posts/:id',
        params: ID,
        response: { 200: 'BlogPost' },
        errors: ['BLOG_POST_NOT_FOUND'],
        meta: { summary: 'Read a blog post', tags: ['blog-posts'], auth: true, etag: true },
      },
      updateBlogPost: {
        method: 'PATCH',
        path: '/blog-posts/:id',
        params: ID,
        body: 'BlogPostPatch',
        response: { 200: 'BlogPost' },
        errors: ['BLOG_POST_NOT_FOUND'],
        meta: { summary: 'Change a blog post', tags: ['blog-posts'], auth: true },
      },
      deleteBlogPost: {
        method: 'DELETE',
        path: '/blog-posts/:id',
        params: ID,
        response: { 204: null },
        errors: ['BLOG_POST_NOT_FOUND'],
        meta: { summary: 'Delete a blog post: it cannot be undone', tags: ['blog-posts'], auth: true },
      },
    },
    errors: {
      BLOG_POST_NOT_FOUND: { status: 404, message: 'Blog post not found.' },
      BLOG_POST_CURSOR_INVALID: {
        status: 400,
        message: 'The cursor is not valid for this list.',
        description: 'The cursor was not produced by this service, or was altered.',
      },
    },
  };
}

/** The original's lines, in order, are all in the result: what is left over is what was inserted. */
function insertedLines(original: string, result: string): string[] {
  const originalLines = original.split('\n');
  const inserted: string[] = [];
  let next = 0;
  for (const line of result.split('\n')) {
    if (next < originalLines.length && line === originalLines[next]) next++;
    else inserted.push(line);
  }
  expect(next, 'every line of the original is kept, in order').toBe(originalLines.length);
  return inserted;
}

/** The document as data, with the entries added to their sections. */
function merged(original: string, entries: SpecEntries): Record<string, unknown> {
  const data = parse(original) as Record<string, Record<string, unknown> | null>;
  for (const section of ['resources', 'routes', 'errors'] as const) {
    if (entries[section]) data[section] = { ...data[section], ...entries[section] };
  }
  return data;
}

const crlf = (text: string): string => text.replaceAll('\n', '\r\n');

/** The spec loader's reading of an edited text, as the spec of a project folder of its own. */
function loadEdited(text: string): ReturnType<typeof loadSpec> {
  const file = join(mkdtempSync(join(tmpdir(), 'svc-spec-edit-')), 'svc.config.yaml');
  writeFileSync(file, text);
  return loadSpec(file, { env: {} });
}

describe('editSpec on a commented spec', () => {
  const input = fixture('commented.svc.yaml');
  const expected = fixture('commented.expected.yaml');

  it('adds the entries and modules and keeps every other byte (golden file)', () => {
    const edit = editSpec(input, blogPostEntries(), { enableModules: ['auth', 'tenancy'] });
    expect(edit.text).toBe(expected);
    expect(edit.conflicts).toEqual([]);
    expect(edit.enabled).toEqual(['auth', 'tenancy']);
  });

  it('only inserts lines, besides switching tenancy from false to true', () => {
    const edit = editSpec(input, blogPostEntries(), { enableModules: ['auth', 'tenancy'] });
    const switched = input.replace('  tenancy: false # teams', '  tenancy: true # teams');
    expect(switched).not.toBe(input);
    const inserted = insertedLines(switched, edit.text);
    expect(inserted).toContain('  auth: true');
    expect(inserted).toContain('  BlogPost:');
    expect(inserted.filter((line) => line !== '').every((line) => line.startsWith('  '))).toBe(true);

    const withoutModules = editSpec(input, blogPostEntries());
    expect(insertedLines(input, withoutModules.text)).toHaveLength(inserted.length - 1);
  });

  it('reads back as the original content plus exactly the inserted entries', () => {
    const entries = blogPostEntries();
    const edit = editSpec(input, entries, { enableModules: ['auth'] });
    const data = merged(input, entries) as { modules: Record<string, unknown> };
    data.modules = { ...data.modules, auth: true };
    expect(parse(edit.text)).toEqual(data);
  });

  it('keeps CRLF line endings, also in the inserted lines', () => {
    const edit = editSpec(crlf(input), blogPostEntries(), { enableModules: ['auth', 'tenancy'] });
    expect(edit.text).toBe(crlf(expected));
  });
});

describe('rendering in the specs’ house style', () => {
  const base = 'svc: 1\nname: blog-api\nversion: 1.0.0\nroutes:\n';

  it('writes the CRUD routes in block style with small flow maps, numbers as keys and quoted refs', () => {
    const { routes } = blogPostEntries();
    const edit = editSpec(base, { routes });
    expect(edit.text).toBe(
      base +
        [
          '  listBlogPosts:',
          '    method: GET',
          '    path: /blog-posts',
          '    query:',
          '      limit: { type: integer, minimum: 1, maximum: 100, default: 20 }',
          '      cursor: { type: string, minLength: 1, maxLength: 200 }',
          '    response: { 200: BlogPostPage }',
          '    errors: [BLOG_POST_CURSOR_INVALID]',
          '    meta: { summary: List blog posts, tags: [blog-posts], auth: true, mcp: true }',
          '  createBlogPost:',
          '    method: POST',
          '    path: /blog-posts',
          '    body: BlogPostInput',
          '    response: { 201: BlogPost }',
          '    meta: { summary: Create a blog post, tags: [blog-posts], auth: true, idempotency: optional }',
          '  getBlogPost:',
          '    method: GET',
          '    path: /blog-posts/:id',
          '    params:',
          '      id: { type: string, format: uuid }',
          '    response: { 200: BlogPost }',
          '    errors: [BLOG_POST_NOT_FOUND]',
          '    meta: { summary: Read a blog post, tags: [blog-posts], auth: true, etag: true }',
          '  updateBlogPost:',
          '    method: PATCH',
          '    path: /blog-posts/:id',
          '    params:',
          '      id: { type: string, format: uuid }',
          '    body: BlogPostPatch',
          '    response: { 200: BlogPost }',
          '    errors: [BLOG_POST_NOT_FOUND]',
          '    meta: { summary: Change a blog post, tags: [blog-posts], auth: true }',
          '  deleteBlogPost:',
          '    method: DELETE',
          '    path: /blog-posts/:id',
          '    params:',
          '      id: { type: string, format: uuid }',
          '    response: { 204: null }',
          '    errors: [BLOG_POST_NOT_FOUND]',
          "    meta: { summary: 'Delete a blog post: it cannot be undone', tags: [blog-posts], auth: true }",
          '',
        ].join('\n'),
    );
    expect(parse(edit.text)).toEqual({ svc: 1, name: 'blog-api', version: '1.0.0', routes });
  });

  it('writes schemas with flow children, quoted refs and a folded long description', () => {
    const { resources } = blogPostEntries();
    const edit = editSpec('svc: 1\nresources:\n', { resources: { BlogPost: resources!.BlogPost } });
    expect(edit.text).toBe(
      [
        'svc: 1',
        'resources:',
        '  BlogPost:',
        '    type: object',
        '    description: >-',
        '      A blog post: a title and a body in Markdown, written by one author and shown on the front page once',
        '      published.',
        '    properties:',
        '      id: { type: string, format: uuid, readOnly: true }',
        '      title: { type: string, minLength: 1, maxLength: 200 }',
        '      body: { type: string, maxLength: 100000 }',
        '      createdAt: { type: string, format: date-time, readOnly: true }',
        '    required: [id, title, createdAt]',
        '    additionalProperties: false',
        '',
      ].join('\n'),
    );
    expect(parse(edit.text)).toEqual({ svc: 1, resources: { BlogPost: resources!.BlogPost } });
  });

  it('breaks a collection that does not fit on its line into a block, and keeps strings exact', () => {
    const value = {
      type: 'object',
      oneOf: [
        { required: ['a'] },
        {
          required: ['aVeryVeryLongPropertyName', 'anotherVeryLongPropertyName', 'aThirdPropertyName'],
          minProperties: 2,
        },
      ],
      examples: ['multi\nline', 'a: b', '#hash', 'yes', '200', 'true', ' padded', ''],
      enum: [1, 2.5, true, null],
      default: {},
      items: [],
      'x-odd key': { 'a,b': 1, '404': 'Not found' },
    };
    const edit = editSpec('svc: 1\n', { resources: { Odd: value } });
    for (const line of edit.text.split('\n')) expect(line.length).toBeLessThanOrEqual(110);
    expect(edit.text).toContain('      - { required: [a] }\n');
    expect(edit.text).toContain(
      [
        '      - required: [aVeryVeryLongPropertyName, anotherVeryLongPropertyName, aThirdPropertyName]',
        '        minProperties: 2',
      ].join('\n'),
    );
    expect(edit.text).toContain("    x-odd key: { 404: Not found, 'a,b': 1 }\n");
    expect(edit.text).toContain("      - '200'\n      - 'true'\n      - ' padded'\n      - ''\n");
    expect(edit.text).toContain('    default: {}\n    items: []\n');
    expect(edit.text).toContain('      - |-\n        multi\n        line\n');
    expect(parse(edit.text)).toEqual({ svc: 1, resources: { Odd: value } });
  });
});

describe('where new entries go', () => {
  it('appends missing sections at the end, in the order resources, routes, errors, after a blank line', () => {
    const text = 'svc: 1\nname: x\n';
    const edit = editSpec(text, {
      errors: { GONE: { status: 410, message: 'Gone.' } },
      routes: { ping: { method: 'GET', path: '/ping', response: { 204: null } } },
      resources: { Thing: { type: 'string' } },
    });
    expect(edit.text).toBe(
      text +
        [
          '',
          'resources:',
          '  Thing:',
          '    type: string',
          '',
          'routes:',
          '  ping:',
          '    method: GET',
          '    path: /ping',
          '    response: { 204: null }',
          '',
          'errors:',
          '  GONE:',
          '    status: 410',
          '    message: Gone.',
          '',
        ].join('\n'),
    );
  });

  it('writes into `routes: {}`, `routes:` and `routes: ~ # comment` as a block under the key', () => {
    const route = { ping: { method: 'GET', path: '/ping' } };
    const block = '  ping:\n    method: GET\n    path: /ping\n';
    expect(editSpec('svc: 1\nroutes: {}\nerrors: {}\n', { routes: route }).text).toBe(
      `svc: 1\nroutes:\n${block}errors: {}\n`,
    );
    expect(editSpec('svc: 1\nroutes:\n\nerrors: {}\n', { routes: route }).text).toBe(
      `svc: 1\nroutes:\n${block}\nerrors: {}\n`,
    );
    expect(editSpec('svc: 1\nroutes: ~ # none yet\n', { routes: route }).text).toBe(
      `svc: 1\nroutes: # none yet\n${block}`,
    );
  });

  it('inserts after the section’s own trailing comments, before the comments that open the next key', () => {
    const text = [
      'routes:',
      '  a:',
      '    method: GET',
      '    # path: /old',
      '',
      '  # b:',
      '  #   method: GET',
      '',
      '# The errors.',
      'errors:',
      '  E:',
      '    status: 400',
      '',
    ].join('\n');
    const edit = editSpec(text, { routes: { c: { method: 'PUT' } }, errors: { F: { status: 409 } } });
    expect(edit.text).toBe(
      [
        'routes:',
        '  a:',
        '    method: GET',
        '    # path: /old',
        '',
        '  # b:',
        '  #   method: GET',
        '  c:',
        '    method: PUT',
        '',
        '# The errors.',
        'errors:',
        '  E:',
        '    status: 400',
        '  F:',
        '    status: 409',
        '',
      ].join('\n'),
    );
  });

  it('follows the section’s indentation and its blank lines between entries', () => {
    const text = 'routes:\n    a:\n        method: GET\n\n    b:\n        method: GET\n';
    const edit = editSpec(text, { routes: { c: { method: 'PUT', meta: { tags: ['x'] } } } });
    expect(edit.text).toBe(`${text}\n    c:\n        method: PUT\n        meta: { tags: [x] }\n`);
  });

  it('keeps a file without a final line break without one', () => {
    const text = 'svc: 1\nroutes:\n  a:\n    method: GET';
    const edit = editSpec(text, {
      routes: { b: { method: 'PUT' } },
      errors: { E: { status: 400 } },
    });
    expect(edit.text).toBe(`${text}\n  b:\n    method: PUT\n\nerrors:\n  E:\n    status: 400`);
    expect(insertedLines(text, edit.text)).toEqual([
      '  b:',
      '    method: PUT',
      '',
      'errors:',
      '  E:',
      '    status: 400',
    ]);
  });

  it('returns the text itself when there is nothing to add', () => {
    const text = '# a spec\nsvc: 1\n';
    expect(editSpec(text, {})).toEqual({ text, conflicts: [], enabled: [] });
    expect(editSpec(text, { routes: {} })).toEqual({ text, conflicts: [], enabled: [] });
  });

  it('puts new sections and a new `modules:` before a document-end marker and the comments after it', () => {
    const text = 'svc: 1\nname: x\n... # the end\n# Notes after the document.\n\n';
    const edit = editSpec(
      text,
      { routes: { ping: { method: 'GET' } }, errors: { E: { status: 400 } } },
      { enableModules: ['auth'] },
    );
    expect(edit.text).toBe(
      'svc: 1\nname: x\n\nmodules:\n  auth: true\n\nroutes:\n  ping:\n    method: GET\n' +
        '\nerrors:\n  E:\n    status: 400\n... # the end\n# Notes after the document.\n\n',
    );
    expect(parseDocument(edit.text).errors).toEqual([]);
  });

  it('extends the last section before a document-end marker, also in a CRLF file', () => {
    const text = crlf('svc: 1\nroutes:\n  a:\n    method: GET\n...\n');
    const edit = editSpec(text, { routes: { b: { method: 'PUT' } }, resources: { A: { type: 'string' } } });
    expect(edit.text).toBe(
      crlf(
        'svc: 1\nroutes:\n  a:\n    method: GET\n  b:\n    method: PUT\n\nresources:\n  A:\n    type: string\n...\n',
      ),
    );
    expect(parseDocument(edit.text).errors).toEqual([]);
  });
});

describe('existing keys', () => {
  const text = [
    'routes:',
    '  # Reads one.',
    '  get: # the old one',
    '    method: GET',
    '    # path: /old',
    '  # Lists.',
    '  list:',
    '    method: GET',
    'errors:',
    '  E:',
    '    status: 400',
    '',
  ].join('\n');
  const entries: SpecEntries = {
    routes: {
      list: { method: 'GET', path: '/things' },
      get: { method: 'GET', path: '/things/:id' },
      put: { method: 'PUT' },
    },
    errors: { E: { status: 409 }, F: { status: 410 } },
  };

  it('are conflicts, in section order, and nothing changes', () => {
    const edit = editSpec(text, entries, { enableModules: ['auth'], file: 'api/svc.config.yaml' });
    expect(edit).toEqual({
      text,
      conflicts: [
        'api/svc.config.yaml#/routes/list',
        'api/svc.config.yaml#/routes/get',
        'api/svc.config.yaml#/errors/E',
      ],
      enabled: [],
    });
  });

  it('are replaced in place with force, keeping the comments above them', () => {
    const edit = editSpec(text, entries, { force: true });
    expect(edit.conflicts).toEqual([]);
    expect(edit.text).toBe(
      [
        'routes:',
        '  # Reads one.',
        '  get:',
        '    method: GET',
        '    path: /things/:id',
        '  # Lists.',
        '  list:',
        '    method: GET',
        '    path: /things',
        '  put:',
        '    method: PUT',
        'errors:',
        '  E:',
        '    status: 409',
        '  F:',
        '    status: 410',
        '',
      ].join('\n'),
    );
  });
});

describe('enabling modules', () => {
  it('adds the module as the last entry of a block `modules:`, after commented-out lines', () => {
    const text = 'svc: 1\nmodules:\n  mcp: true\n  # auth: { mfa: true }\n\nroutes: {}\n';
    const edit = editSpec(text, {}, { enableModules: ['auth', 'tenancy'] });
    expect(edit.text).toBe(
      'svc: 1\nmodules:\n  mcp: true\n  # auth: { mfa: true }\n  auth: true\n  tenancy: true\n\nroutes: {}\n',
    );
    expect(edit.enabled).toEqual(['auth', 'tenancy']);
  });

  it('switches `false`, `~` and an empty value to true, keeping the rest of the line', () => {
    const text = 'modules:\n  auth: false # later\n  tenancy:\n  mail: ~\n';
    expect(editSpec(text, {}, { enableModules: ['auth', 'tenancy'] }).text).toBe(
      'modules:\n  auth: true # later\n  tenancy: true\n  mail: ~\n',
    );
  });

  it('leaves a module that is on as it is', () => {
    const text = 'modules:\n  auth: { mfa: true }\n  tenancy:\n    roles: [owner]\n';
    expect(editSpec(text, {}, { enableModules: ['auth', 'tenancy'] })).toEqual({
      text,
      conflicts: [],
      enabled: [],
    });
  });

  it('adds the key inside a flow map', () => {
    expect(editSpec('modules: { edge: true } # edge\n', {}, { enableModules: ['auth'] }).text).toBe(
      'modules: { edge: true, auth: true } # edge\n',
    );
    expect(editSpec('modules: {}\n', {}, { enableModules: ['auth', 'tenancy'] }).text).toBe(
      'modules: { auth: true, tenancy: true }\n',
    );
  });

  it('switches a module written as off inside a flow map in place, instead of adding a second key', () => {
    const enable = (text: string): string => editSpec(text, {}, { enableModules: ['auth', 'tenancy'] }).text;
    expect(enable('modules: { auth: false, edge: true } # edge\n')).toBe(
      'modules: { auth: true, edge: true, tenancy: true } # edge\n',
    );
    expect(enable('modules: { edge: true, auth: ~, tenancy: false }\n')).toBe(
      'modules: { edge: true, auth: true, tenancy: true }\n',
    );
    expect(enable('modules: { auth:, edge: true }\n')).toBe(
      'modules: { auth: true, edge: true, tenancy: true }\n',
    );
    // A bare key in a flow map is the key with a null value; the last pair is followed by the new one.
    expect(enable('modules: { edge: true, auth }\n')).toBe(
      'modules: { edge: true, auth: true, tenancy: true }\n',
    );
    expect(enable('modules: { edge: true, auth: }\n')).toBe(
      'modules: { edge: true, auth: true, tenancy: true }\n',
    );
    for (const text of ['modules: { auth: false, edge: true }\n', 'modules: { edge: true, auth }\n']) {
      const doc = parseDocument(enable(text));
      expect(doc.errors).toEqual([]);
      expect(doc.toJS()).toEqual({ modules: { auth: true, edge: true, tenancy: true } });
    }
  });

  it('leaves a module that is on inside a flow map as it is', () => {
    const edit = editSpec(
      'modules: { auth: { mfa: true }, tenancy: false }\n',
      {},
      { enableModules: ['auth', 'tenancy'] },
    );
    expect(edit).toEqual({
      text: 'modules: { auth: { mfa: true }, tenancy: true }\n',
      conflicts: [],
      enabled: ['tenancy'],
    });
  });

  it('writes a missing `modules:` before the first declaration section and its comments', () => {
    const text = 'svc: 1\nname: x\n\n# The schemas.\nresources:\n  A:\n    type: string\n';
    const edit = editSpec(text, { routes: { ping: { method: 'GET' } } }, { enableModules: ['auth'] });
    expect(edit.text).toBe(
      'svc: 1\nname: x\n\nmodules:\n  auth: true\n\n# The schemas.\nresources:\n  A:\n    type: string\n' +
        '\nroutes:\n  ping:\n    method: GET\n',
    );
  });

  it('writes a missing `modules:` at the end of a file without declarations, before new sections', () => {
    const edit = editSpec('svc: 1\n', { errors: { E: { status: 400 } } }, { enableModules: ['tenancy'] });
    expect(edit.text).toBe('svc: 1\n\nmodules:\n  tenancy: true\n\nerrors:\n  E:\n    status: 400\n');
  });

  it('fills an empty `modules:`', () => {
    expect(editSpec('modules:\nroutes: {}\n', {}, { enableModules: ['auth'] }).text).toBe(
      'modules:\n  auth: true\nroutes: {}\n',
    );
  });
});

describe('what it refuses', () => {
  it('a text that is not YAML, or not a map at the top', () => {
    expect(() => editSpec('svc: 1\n  name: [\n', {})).toThrow(/not valid YAML/);
    expect(() => editSpec('- svc\n- 1\n', {})).toThrow(/block map of keys at the top level/);
    expect(() => editSpec('', {})).toThrow(/block map of keys at the top level/);
  });

  it('a section written as a non-empty flow map, or as something other than a map', () => {
    expect(() => editSpec('routes: { a: { method: GET } }\n', { routes: { b: {} } })).toThrow(
      /'routes' is written as a flow map/,
    );
    expect(() => editSpec('errors: [A]\n', { errors: { B: { status: 400 } } })).toThrow(
      /'errors' must be a map of entries, found '\[A\]'/,
    );
  });

  it('a section whose entries come from another file ($include), naming that file', () => {
    const route = { routes: { ping: { method: 'GET' } } };
    expect(() => editSpec('svc: 1\nroutes: { $include: specs/routes.yaml }\n', route)).toThrow(
      new Error(
        'svc.config.yaml: routes come from specs/routes.yaml ($include): add the entries there, or inline the section, then run again.',
      ),
    );
    const error = { errors: { E: { status: 400 } } };
    expect(() =>
      editSpec('svc: 1\nerrors:\n  $include: errors.yaml # shared\n', error, { file: 'api/svc.config.yaml' }),
    ).toThrow(
      new Error(
        'api/svc.config.yaml: errors come from errors.yaml ($include): add the entries there, or inline the section, then run again.',
      ),
    );
    expect(() =>
      editSpec('svc: 1\nresources:\n  $include: "shared/all.yaml"\n', {
        resources: { A: { type: 'string' } },
      }),
    ).toThrow(/^svc\.config\.yaml: resources come from shared\/all\.yaml \(\$include\)/);
  });

  it('nothing about an included section it does not add to', () => {
    const text = 'svc: 1\nresources: { $include: resources.yaml }\nroutes:\n  a:\n    method: GET\n';
    expect(editSpec(text, { routes: { b: { method: 'PUT' } } }).text).toBe(`${text}  b:\n    method: PUT\n`);
  });
});

describe('the result loads', () => {
  it('adding a resource, a route and an error to the init template gives a spec the loader accepts', async () => {
    const template = readFileSync(TEMPLATE, 'utf8')
      .replaceAll('{{name}}', 'blog-api')
      .replaceAll('{{title}}', 'Blog API');
    const edit = editSpec(
      template,
      {
        resources: {
          BlogPost: {
            type: 'object',
            properties: { id: { type: 'string', format: 'uuid', readOnly: true }, title: TEXT },
            required: ['id', 'title'],
            additionalProperties: false,
          },
        },
        routes: {
          getBlogPost: {
            method: 'GET',
            path: '/blog-posts/:id',
            params: ID,
            response: { 200: 'BlogPost' },
            errors: ['BLOG_POST_NOT_FOUND'],
            meta: { summary: 'Read a blog post', auth: true, mcp: true },
          },
        },
        errors: { BLOG_POST_NOT_FOUND: { status: 404, message: 'Blog post not found.' } },
      },
      { enableModules: ['auth'] },
    );
    expect(edit.enabled).toEqual(['auth']);
    const spec = await loadEdited(edit.text);
    expect(spec.resources.map((resource) => resource.name)).toContain('BlogPost');
    expect(spec.routes.find((route) => route.id === 'getBlogPost')).toMatchObject({
      method: 'GET',
      path: '/blog-posts/:id',
    });
    expect(spec.errors.map((error) => error.code)).toContain('BLOG_POST_NOT_FOUND');
    expect(spec.config.modules).toHaveProperty('auth');
  });
});

describe('the result loads (flow modules, document-end marker)', () => {
  it('switching auth on in a flow `modules:` and adding sections to a spec ending in `...`', async () => {
    const text = [
      'svc: 1',
      'name: blog-api',
      'version: 1.0.0',
      'modules: { auth: false, edge: true }',
      '...',
      '# Written by hand.',
      '',
    ].join('\n');
    const edit = editSpec(
      text,
      {
        routes: { getBlogPost: { method: 'GET', path: '/blog-posts/:id', params: ID, errors: ['GONE'] } },
        errors: { GONE: { status: 410, message: 'Gone.' } },
      },
      { enableModules: ['auth'] },
    );
    expect(edit.enabled).toEqual(['auth']);
    const spec = await loadEdited(edit.text);
    expect(spec.config.modules).toMatchObject({ auth: true, edge: true });
    expect(spec.routes.find((route) => route.id === 'getBlogPost')).toMatchObject({ method: 'GET' });
    expect(spec.errors.map((error) => error.code)).toContain('GONE');
  });
});
