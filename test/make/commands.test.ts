// `svc make:*` as a user runs it (in this process, through cli/main.ts): the command line, the spec-first
// result, refusals that write nothing, --force, the flags and the project defaults. The generated app is
// compiled and run end to end in test/cli/make.test.ts.
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { parse } from 'yaml';
import { generatorCommands } from '../../make/index.js';
import { withProjectLock } from '../../make/project-lock.js';
import { runSvc, runSvcBinary } from '../cli/run-svc.js';

let root: string;
/** A fresh `svc init` app, built once and copied per test. */
let template: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-make-'));
  template = join(root, 'template');
  const init = await runSvc(['init', template]);
  expect(init.code, init.stderr).toBe(0);
}, 60_000);
afterAll(() => rm(root, { recursive: true, force: true }));

let copies = 0;
async function freshApp(): Promise<string> {
  const dir = join(root, `app-${++copies}`);
  await cp(template, dir, { recursive: true });
  return dir;
}

const make = (dir: string, ...args: string[]) => runSvc([...args, `--dir=${dir}`]);

/** Every file under `dir` (but generated/) with its content: a snapshot to prove nothing changed. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files.set(relative(dir, path), await readFile(path, 'utf8'));
  }
  return files;
}

const spec = async (dir: string) =>
  parse(await readFile(join(dir, 'svc.config.yaml'), 'utf8')) as Record<string, Record<string, unknown>>;

describe('the command line', () => {
  test('no name prints the usage and exits 1', async () => {
    for (const command of [
      'make:resource',
      'make:schema',
      'make:repository',
      'make:service',
      'make:plugin',
      'make:routes',
      'make:test',
    ]) {
      const result = await runSvc([command]);
      expect(result.code, command).toBe(1);
      expect(result.stderr, command).toContain('missing <Name>');
      expect(result.stderr, command).toContain(`Usage: svc ${command} <Name>`);
    }
  });

  test('--help prints the usage and exits 0; svc --help lists the commands', async () => {
    const help = await runSvc(['make:resource', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('--soft-delete');
    expect((await runSvc(['--help'])).stdout).toContain('make:resource <Name>');
  });

  test('a flag the command does not take, or a second name, is refused with the usage', async () => {
    const dir = await freshApp();
    const before = await snapshot(dir);
    const unknown = await make(dir, 'make:schema', 'BlogPost', '--prisma');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain("Unknown option '--prisma'");
    expect(unknown.stderr).toContain('Usage: svc make:schema');
    const two = await make(dir, 'make:resource', 'Blog', 'Post');
    expect(two.code).toBe(1);
    expect(two.stderr).toContain('one <Name> only');
    const contradiction = await make(dir, 'make:resource', 'BlogPost', '--public', '--auth');
    expect(contradiction.code).toBe(1);
    expect(contradiction.stderr).toContain('--public and --auth contradict');
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a name without words is refused and nothing is written', async () => {
    const dir = await freshApp();
    const before = await snapshot(dir);
    const result = await make(dir, 'make:resource', '_ _');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('no words');
    expect(await snapshot(dir)).toEqual(before);
  });

  test('outside a project it says where it looked', async () => {
    const empty = await mkdtemp(join(root, 'empty-'));
    const result = await make(empty, 'make:resource', 'BlogPost');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('svc.config.yaml not found');
  });
});

describe('make:resource', () => {
  test('adds the resource to the spec, writes the module, wires it, builds, and refuses a second run', async () => {
    const dir = await freshApp();
    const first = await make(dir, 'make:resource', 'BlogPost');
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toContain('switched modules.auth on');
    expect(first.stdout).toContain('src/app.ts: registered blogPostHandlers and blogPostPlugin');
    expect(first.stdout).toMatch(/svc build: \d+ files/);

    const document = await spec(dir);
    expect(Object.keys(document.resources!)).toEqual([
      'Task',
      'TaskInput',
      'BlogPost',
      'BlogPostInput',
      'BlogPostPatch',
      'BlogPostPage',
    ]);
    expect(document.routes!.deleteBlogPost).toMatchObject({
      method: 'DELETE',
      path: '/blog-posts/:id',
      meta: { auth: true },
    });
    expect(document.errors!.BLOG_POST_NOT_FOUND).toEqual({ status: 404, message: 'Blog post not found.' });
    expect(document.modules!.auth).toBe(true);
    expect(document.modules!.tenancy).toBeUndefined();
    // The spec's comments are still there.
    expect(await readFile(join(dir, 'svc.config.yaml'), 'utf8')).toContain(
      '# idempotency: true   # Idempotency-Key',
    );
    expect(existsSync(join(dir, 'migrations/0001-blog-posts.sql'))).toBe(true);
    expect(await readFile(join(dir, 'generated/routes.ts'), 'utf8')).toContain('listBlogPosts');

    const before = await snapshot(dir);
    const second = await make(dir, 'make:resource', 'BlogPost');
    expect(second.code).toBe(1);
    const listed = second.stderr
      .split('\n')
      .filter((line) => line.startsWith('  '))
      .map((line) => line.trim());
    expect(listed.sort()).toEqual(
      [
        'migrations/0001-blog-posts.sql',
        'src/modules/blog-post/blog-post.schema.ts',
        'src/modules/blog-post/blog-post.repository.ts',
        'src/modules/blog-post/blog-post.service.ts',
        'src/modules/blog-post/blog-post.plugin.ts',
        'src/modules/blog-post/blog-post.routes.ts',
        'test/blog-post.test.ts',
        'svc.config.yaml#/resources/BlogPost',
        'svc.config.yaml#/resources/BlogPostInput',
        'svc.config.yaml#/resources/BlogPostPatch',
        'svc.config.yaml#/resources/BlogPostPage',
        'svc.config.yaml#/routes/listBlogPosts',
        'svc.config.yaml#/routes/createBlogPost',
        'svc.config.yaml#/routes/getBlogPost',
        'svc.config.yaml#/routes/updateBlogPost',
        'svc.config.yaml#/routes/deleteBlogPost',
        'svc.config.yaml#/errors/BLOG_POST_NOT_FOUND',
        'svc.config.yaml#/errors/BLOG_POST_CURSOR_INVALID',
      ].sort(),
    );
    expect(second.stderr).toContain('--force');
    expect(await snapshot(dir)).toEqual(before);

    // --force rewrites the files and leaves one BlogPost in the spec, and app.ts registered once.
    await writeFile(join(dir, 'src/modules/blog-post/blog-post.service.ts'), '// changed by hand\n');
    const forced = await make(dir, 'make:resource', 'BlogPost', '--force');
    expect(forced.code, forced.stderr).toBe(0);
    expect(forced.stdout).toContain('src/app.ts not changed (already registered)');
    const service = await readFile(join(dir, 'src/modules/blog-post/blog-post.service.ts'), 'utf8');
    expect(service).toBe(before.get('src/modules/blog-post/blog-post.service.ts'));
    const text = await readFile(join(dir, 'svc.config.yaml'), 'utf8');
    expect(text.match(/^ {2}BlogPost:$/gm)).toHaveLength(1);
    expect(text).toBe(before.get('svc.config.yaml'));
    expect(await readFile(join(dir, 'src/app.ts'), 'utf8')).toBe(before.get('src/app.ts'));
    expect(existsSync(join(dir, 'migrations/0002-blog-posts.sql'))).toBe(false);
  });

  test('a second resource takes the next migration number and the next place in app.ts', async () => {
    const dir = await freshApp();
    expect((await make(dir, 'make:resource', 'BlogPost')).code).toBe(0);
    const result = await make(dir, 'make:resource', 'category', '--soft-delete');
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, 'migrations/0002-categories.sql'))).toBe(true);
    const app = await readFile(join(dir, 'src/app.ts'), 'utf8');
    expect(app).toMatch(/\.\.\.categoryHandlers\(service\),\s+\.\.\.blogPostHandlers\(service\)/);
    expect(app).toMatch(/blogPostPlugin\(service\),\s+categoryPlugin\(service\),?\s+\]/);
  });

  test('--public leaves auth off and the routes without meta.auth; --no-register leaves app.ts alone', async () => {
    const dir = await freshApp();
    const app = await readFile(join(dir, 'src/app.ts'), 'utf8');
    const result = await make(dir, 'make:resource', 'Comment', '--no-auth', '--no-register');
    expect(result.code, result.stderr).toBe(0);
    const document = await spec(dir);
    expect(document.modules!.auth).toBeUndefined();
    expect((document.routes!.listComments as { meta: object }).meta).toEqual({
      summary: 'List comments',
      tags: ['comments'],
      mcp: true,
    });
    expect(await readFile(join(dir, 'src/app.ts'), 'utf8')).toBe(app);
    expect(result.stdout).toContain('src/app.ts left alone (--no-register)');
    expect(result.stdout).toContain("import { commentHandlers } from './modules/comment/comment.routes.js';");
  });

  test('--tenant switches tenancy on and scopes the rows; it is the default once tenancy is on', async () => {
    const dir = await freshApp();
    const result = await make(dir, 'make:resource', 'BlogPost', '--tenant');
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('switched modules.tenancy on');
    const document = await spec(dir);
    expect(document.modules).toMatchObject({ auth: true, tenancy: true });
    expect((document.routes!.getBlogPost as { errors: string[] }).errors).toEqual([
      'BLOG_POST_NOT_FOUND',
      'TENANT_REQUIRED',
    ]);
    expect(await readFile(join(dir, 'migrations/0001-blog-posts.sql'), 'utf8')).toContain(
      'tenant_id text NOT NULL',
    );

    const next = await make(dir, 'make:repository', 'Invoice');
    expect(next.code, next.stderr).toBe(0);
    expect(await readFile(join(dir, 'migrations/0002-invoices.sql'), 'utf8')).toContain('tenant_id');
    const opted = await make(dir, 'make:repository', 'Note', '--no-tenant');
    expect(opted.code, opted.stderr).toBe(0);
    expect(await readFile(join(dir, 'migrations/0003-notes.sql'), 'utf8')).not.toContain('tenant_id');

    // The generated test names the tenant with the header the spec's tenancy module reads.
    const specPath = join(dir, 'svc.config.yaml');
    const text = await readFile(specPath, 'utf8');
    await writeFile(specPath, text.replace('  tenancy: true', '  tenancy: { header: x-team-id }'));
    const team = await make(dir, 'make:test', 'Invoice');
    expect(team.code, team.stderr).toBe(0);
    expect(await readFile(join(dir, 'test/invoice.test.ts'), 'utf8')).toContain("'x-team-id': team.data.id");
  });

  test('an entry the spec loader refuses writes nothing at all', async () => {
    const dir = await freshApp();
    // A route of the app's own already answers GET /blog-posts/:id: the new one would conflict with it.
    const specPath = join(dir, 'svc.config.yaml');
    const text = (await readFile(specPath, 'utf8')).replace(
      '    path: /tasks/:id',
      '    path: /blog-posts/:id',
    );
    await writeFile(specPath, text);
    const before = await snapshot(dir);
    const result = await make(dir, 'make:resource', 'BlogPost');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('nothing was written');
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a write that fails midway puts back everything written before it', async () => {
    const dir = await freshApp();
    // The test file is written last; a link to nowhere makes that write fail after the others succeeded.
    await symlink('/nonexistent/svc-make/blog-post.test.ts', join(dir, 'test/blog-post.test.ts'));
    const before = await snapshot(dir);
    const result = await make(dir, 'make:resource', 'BlogPost');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('ENOENT');
    expect(await snapshot(dir)).toEqual(before);
    expect(existsSync(join(dir, 'src/modules/blog-post'))).toBe(false);
    expect(existsSync(join(dir, 'migrations'))).toBe(false);
  });

  test('a spec that did not load before is reported as such, and nothing is written', async () => {
    const dir = await freshApp();
    const specPath = join(dir, 'svc.config.yaml');
    await writeFile(
      specPath,
      (await readFile(specPath, 'utf8')).replace('errors: [TASK_NOT_FOUND]', 'errors: [TASK_MISSING]'),
    );
    const before = await snapshot(dir);
    const result = await make(dir, 'make:resource', 'BlogPost');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('svc.config.yaml does not load as it is');
    expect(result.stderr).toContain('svc.config.yaml:');
    expect(await snapshot(dir)).toEqual(before);
  });

  test('a spec that includes other files by glob is checked as the spec itself, not as a copy', async () => {
    const dir = await freshApp();
    const specPath = join(dir, 'svc.config.yaml');
    const text = await readFile(specPath, 'utf8');
    // The errors move to errors.yaml, which `include: ['*.yaml']` brings back.
    const errorsAt = text.indexOf('\nerrors:');
    await writeFile(join(dir, 'errors.yaml'), text.slice(errorsAt + 1));
    await writeFile(specPath, text.slice(0, errorsAt + 1).replace('title: ', "include: ['*.yaml']\ntitle: "));
    expect((await runSvc(['build', `--dir=${dir}`])).code).toBe(0);
    const result = await make(dir, 'make:resource', 'BlogPost', '--public');
    expect(result.code, result.stderr).toBe(0);
    expect((await spec(dir)).errors!.BLOG_POST_NOT_FOUND).toBeDefined();
  });

  test("--public leaves a tenancy app's new routes unscoped, and --public --tenant is refused", async () => {
    const dir = await freshApp();
    expect((await make(dir, 'make:resource', 'Team', '--tenant')).code).toBe(0);
    const result = await make(dir, 'make:resource', 'Box', '--public');
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(join(dir, 'src/modules/box/box.routes.ts'), 'utf8')).not.toContain(
      'requireTenantId',
    );
    const refused = await make(dir, 'make:resource', 'Crate', '--public', '--tenant');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('--tenant needs signed-in callers');
  });
});

describe('the parts alone', () => {
  test('make:plugin without its siblings is written with a warning naming them', async () => {
    const dir = await freshApp();
    const result = await make(dir, 'make:plugin', 'BlogPost', '--crud');
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, 'src/modules/blog-post/blog-post.plugin.ts'))).toBe(true);
    expect(result.stderr).toContain(
      'Warning: src/modules/blog-post/blog-post.plugin.ts imports files that do not exist yet',
    );
    expect(result.stderr).toContain(
      'src/modules/blog-post/blog-post.repository.ts, src/modules/blog-post/blog-post.service.ts',
    );
  });

  test('make:service is minimal until the repository and schema exist, then CRUD; --crud/--no-crud choose', async () => {
    const dir = await freshApp();
    expect((await make(dir, 'make:service', 'BlogPost')).code).toBe(0);
    const servicePath = join(dir, 'src/modules/blog-post/blog-post.service.ts');
    expect(await readFile(servicePath, 'utf8')).toContain('constructor() {}');

    expect((await make(dir, 'make:schema', 'BlogPost')).code).toBe(0);
    expect((await make(dir, 'make:repository', 'BlogPost')).code).toBe(0);
    const crud = await make(dir, 'make:service', 'BlogPost', '--force');
    expect(crud.code, crud.stderr).toBe(0);
    expect(crud.stderr).not.toContain('Warning');
    expect(await readFile(servicePath, 'utf8')).toContain('private readonly repository: BlogPostRepository');
    expect((await make(dir, 'make:service', 'BlogPost', '--force', '--no-crud')).code).toBe(0);
    expect(await readFile(servicePath, 'utf8')).toContain('constructor() {}');
  });

  test('make:routes brings the schemas the spec lacks, make:schema adds only the schemas', async () => {
    const dir = await freshApp();
    expect((await make(dir, 'make:schema', 'Tag')).code).toBe(0);
    let document = await spec(dir);
    expect(document.resources!.TagPage).toBeDefined();
    expect(document.routes!.listTags).toBeUndefined();
    const routes = await make(dir, 'make:routes', 'Tag', '--public');
    expect(routes.code, routes.stderr).toBe(0);
    expect(routes.stdout).toContain('to serve the routes, register the module in src/app.ts');
    document = await spec(dir);
    expect(document.routes!.listTags).toBeDefined();

    const other = await freshApp();
    const alone = await make(other, 'make:routes', 'Label', '--public');
    expect(alone.code, alone.stderr).toBe(0);
    expect((await spec(other)).resources!.Label).toBeDefined();
  });

  test('make:test writes the test only', async () => {
    const dir = await freshApp();
    const before = await readFile(join(dir, 'svc.config.yaml'), 'utf8');
    const result = await make(dir, 'make:test', 'BlogPost');
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(join(dir, 'test/blog-post.test.ts'))).toBe(true);
    expect(await readFile(join(dir, 'svc.config.yaml'), 'utf8')).toBe(before);
  });
});

describe('project defaults in package.json', () => {
  async function withDefaults(make: unknown): Promise<string> {
    const dir = await freshApp();
    const manifestPath = join(dir, 'package.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8')) as Record<string, unknown>;
    await writeFile(manifestPath, JSON.stringify({ ...manifest, svc: { make } }, null, 2));
    return dir;
  }

  test('prisma and the client import apply unless a flag says otherwise', async () => {
    const dir = await withDefaults({
      prisma: true,
      prismaClient: { import: './src/db/client.js', type: 'Db' },
    });
    const result = await make(dir, 'make:repository', 'BlogPost');
    expect(result.code, result.stderr).toBe(0);
    const repository = await readFile(join(dir, 'src/modules/blog-post/blog-post.repository.ts'), 'utf8');
    expect(repository).toContain("import type { Db } from '../../db/client.js';");
    expect(existsSync(join(dir, 'src/modules/blog-post/blog-post.prisma'))).toBe(true);

    const plain = await make(dir, 'make:repository', 'Invoice', '--no-prisma');
    expect(plain.code, plain.stderr).toBe(0);
    expect(existsSync(join(dir, 'migrations/0001-invoices.sql'))).toBe(true);
  });

  test('malformed defaults are refused', async () => {
    const dir = await withDefaults({ prisma: 'yes', orm: 'prisma' });
    const result = await make(dir, 'make:resource', 'BlogPost');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('"svc.make"');
    expect(result.stderr).toContain("unknown key 'orm'");
  });
});

describe('generatorCommands()', () => {
  const captured = () => {
    const out = { stdout: '', stderr: '' };
    const io = {
      stdout: { write: (text: string) => (out.stdout += text) },
      stderr: { write: (text: string) => (out.stderr += text) },
      env: process.env,
      cwd: root,
    };
    return { out, io };
  };

  test('answers the seven commands, with the defaults given', async () => {
    const commands = generatorCommands({ prisma: true });
    expect(Object.keys(commands).sort()).toEqual([
      'make:plugin',
      'make:repository',
      'make:resource',
      'make:routes',
      'make:schema',
      'make:service',
      'make:test',
    ]);
    const dir = await freshApp();
    const { out, io } = captured();
    expect(await commands['make:repository']!(['Gadget', `--dir=${dir}`], io)).toBe(0);
    expect(out.stdout).toContain('wrote src/modules/gadget/gadget.prisma');
    const { io: second } = captured();
    expect(await commands['make:repository']!(['Widget', '--no-prisma', `--dir=${dir}`], second)).toBe(0);
    expect(existsSync(join(dir, 'migrations/0001-widgets.sql'))).toBe(true);
  });

  test('refuses defaults it does not know, or of the wrong type', () => {
    expect(() => generatorCommands({ prisma: 'yes' } as never)).toThrow(/prisma must be true or false/);
    expect(() => generatorCommands({ orm: 'prisma' } as never)).toThrow(/unknown key 'orm'/);
    expect(() => generatorCommands({ prismaClient: { import: '@prisma/client' } } as never)).toThrow(
      /prismaClient must be/,
    );
  });
});

describe('two runs at once on one project', () => {
  async function bothLanded(dir: string, results: { code: number | null; stderr: string }[]): Promise<void> {
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const document = await spec(dir);
    expect(document.routes!.listAlphas).toBeDefined();
    expect(document.routes!.listBetas).toBeDefined();
    const migrations = (await readdir(join(dir, 'migrations'))).sort();
    expect(migrations.map((file) => file.slice(0, 4)).sort()).toEqual(['0001', '0002']);
    const app = await readFile(join(dir, 'src/app.ts'), 'utf8');
    expect(app).toContain('alphaPlugin(service)');
    expect(app).toContain('betaPlugin(service)');
  }

  test("in one process: the second waits for the first, and neither loses the other's entries", async () => {
    const dir = await freshApp();
    const results = await Promise.all([
      make(dir, 'make:resource', 'Alpha', '--public'),
      make(dir, 'make:resource', 'Beta', '--public'),
    ]);
    await bothLanded(dir, results);
    expect(existsSync(join(dir, '.svc/make.lock'))).toBe(false);
  });

  // Repositories: no build, so the two processes overlap as they pick their migration numbers.
  test('in two processes: each takes its own migration number', async () => {
    const dir = await freshApp();
    const results = await Promise.all([
      runSvcBinary(['make:repository', 'Alpha', `--dir=${dir}`]),
      runSvcBinary(['make:repository', 'Beta', `--dir=${dir}`]),
    ]);
    for (const result of results) expect(result.code, result.stderr).toBe(0);
    const numbers = (await readdir(join(dir, 'migrations'))).map((file) => file.slice(0, 4)).sort();
    expect(numbers).toEqual(['0001', '0002']);
  }, 60_000);

  test('a lock left by a run that was killed stops the next one, saying what to do', async () => {
    const dir = await freshApp();
    await writeFile(join(dir, '.svc/make.lock'), '999999999');
    const before = await readFile(join(dir, 'svc.config.yaml'), 'utf8');
    const result = await make(dir, 'make:resource', 'Alpha');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('delete .svc/make.lock and run again');
    expect(await readFile(join(dir, 'svc.config.yaml'), 'utf8')).toBe(before);
  });

  test("a run removes only its own lock: one deleted by hand and taken by another run stays that run's", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'svc-make-lock-'));
    const lock = join(dir, '.svc/make.lock');
    const other = `${process.pid}\nanother run\n`;
    await withProjectLock(dir, async () => {
      await rm(lock);
      await writeFile(lock, other);
    });
    expect(await readFile(lock, 'utf8')).toBe(other);
    await rm(dir, { recursive: true, force: true });
  });
});
