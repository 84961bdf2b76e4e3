// `svc make:resource BlogPost` in an app fresh from `svc init`: the app's own `npm test` passes with the
// generated test in it, `npm start` serves the five routes and keeps their rows across a restart, and the MCP
// tools and the typed client know them; a public resource beside it runs its generated test in the same
// npm test. Then the flavours, each in a fresh copy of the same init app and checked in this process:
// --public, --no-register and --prisma.
//
// The apps' node_modules are symlinks into this checkout (linked-app.ts), not `npm install`: init.test.ts
// proves the install once; here it would only add a minute.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { parse } from 'yaml';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startProcess, type RunningService } from '../e2e/service-process.js';
import { typeCheckProject } from '../generator/ts-compile.js';
import { appEnv, copyApp, linkNodeModules, linkPackage } from './linked-app.js';
import { REPO_ROOT, SVC_BIN, runCommand, runSvc } from './run-svc.js';

/** The five routes a resource adds, by operation id. */
const ROUTES = ['listBlogPosts', 'createBlogPost', 'getBlogPost', 'updateBlogPost', 'deleteBlogPost'];
const MODULE_FILES = ['plugin', 'repository', 'routes', 'schema', 'service'].map(
  (part) => `src/modules/blog-post/blog-post.${part}.ts`,
);

interface Spec {
  modules: Record<string, unknown>;
  routes: Record<string, { meta?: Record<string, unknown> }>;
}

async function readSpec(app: string): Promise<Spec> {
  return parse(await readFile(join(app, 'svc.config.yaml'), 'utf8')) as Spec;
}

/** The app's own files, not svckit's sources it reaches through node_modules/svckit. */
const appsOwn = (path: string) => !path.startsWith('..') && !path.includes('node_modules');

/** The names of the tests a node:test file declares at its top level. */
async function testNames(file: string): Promise<string[]> {
  const source = await readFile(file, 'utf8');
  return [...source.matchAll(/^test\((['"])(.*?)\1,/gm)].map((match) => match[2]!);
}

let root: string;
/** The app of the main story, made by `svc init` and never copied after make:resource. */
let app: string;
/** An untouched copy of the init app, for the flavours. */
let pristine: string;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-make-e2e-'));
  app = join(root, 'app');
  const created = await runSvc(['init', app]);
  expect(created.code, created.output).toBe(0);
  await linkNodeModules(app);
  pristine = join(root, 'pristine');
  await copyApp(app, pristine);
});

// After the service has stopped (the describe's own afterAll runs first): the apps hold a database each.
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A fresh copy of the init app named `name`. */
async function freshApp(name: string): Promise<string> {
  const dir = join(root, name);
  await copyApp(pristine, dir);
  return dir;
}

describe('svc init, then svc make:resource BlogPost --tenant', () => {
  const json = { 'content-type': 'application/json' };
  let service: RunningService | undefined;
  /** The Authorization header of the account the served test signs up. */
  let authorization = '';

  beforeAll(async () => {
    const made = await runSvc(['make:resource', 'BlogPost', '--tenant'], { cwd: app, env: appEnv() });
    expect(made.code, made.output).toBe(0);
    expect(made.stdout).toContain('src/app.ts: registered blogPostHandlers and blogPostPlugin');
    expect(made.stdout).toMatch(/^svc build: /m);
    // A public, soft-deleting resource beside it (its tests run in the same npm test): not tenant-scoped.
    const publicMade = await runSvc(['make:resource', 'Comment', '--public', '--soft-delete'], {
      cwd: app,
      env: appEnv(),
    });
    expect(publicMade.code, publicMade.output).toBe(0);
  }, 90_000);

  afterAll(async () => {
    await service?.stop();
  });

  test('npm test passes, the generated tests among the ones it runs', async () => {
    const blogPostTests = await testNames(join(app, 'test/blog-post.test.ts'));
    expect(blogPostTests).toHaveLength(6);
    const commentTests = await testNames(join(app, 'test/comment.test.ts'));
    expect(commentTests).toHaveLength(4);
    const generatedTests = [...blogPostTests, ...commentTests];
    const result = await runCommand('npm', ['test'], { cwd: app, env: appEnv() });
    expect(result.code, result.output).toBe(0);
    const passed = [...result.output.matchAll(/^ok \d+ - (.*)$/gm)].map((match) => match[1]);
    expect(passed).toEqual(expect.arrayContaining(generatedTests));
    // The three task tests of the init app, the six of the blog posts and the four of the comments.
    expect(result.output).toMatch(/^# pass 13$/m);
    expect(result.output).toMatch(/^# fail 0$/m);
  }, 120_000);

  test('npm start serves the blog posts, kept in the app database across a restart', async () => {
    // npm start's NODE_ENV defaults to development (no SVC_SECRET needed; the signing key is kept under .svc/);
    // no SVC_PGLITE_DIR, so the rows live in the embedded database under the app's .svc/data.
    service = await startProcess('npm', ['start'], app, { timeoutMs: 60_000, env: appEnv({ NODE_ENV: '' }) });
    const registered = await fetch(`${service.url}/auth/register`, {
      method: 'POST',
      headers: json,
      body: JSON.stringify({ email: 'ada@example.com', password: 'a long enough password' }),
    });
    expect(registered.status).toBe(201);
    const { accessToken } = (await registered.json()) as { accessToken: string };
    authorization = `Bearer ${accessToken}`;
    const team = await fetch(`${service.url}/tenants`, {
      method: 'POST',
      headers: { ...json, authorization },
      body: JSON.stringify({ name: 'Editors' }),
    });
    expect(team.status).toBe(201);
    const { id: tenantId } = (await team.json()) as { id: string };
    const headers = { ...json, authorization, 'x-tenant-id': tenantId };
    const created = await fetch(`${service.url}/blog-posts`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'Hello, world' }),
    });
    expect(created.status).toBe(201);
    const post = (await created.json()) as { id: string; name: string };
    expect(post.name).toBe('Hello, world');

    await service.stop();
    service = undefined;
    expect(existsSync(join(app, '.svc', 'data', 'PG_VERSION'))).toBe(true);
    // The restart is the `svc start` of npm start alone: the build before it has nothing left to do.
    service = await startProcess(process.execPath, [SVC_BIN, 'start'], app, {
      timeoutMs: 60_000,
      env: appEnv({ NODE_ENV: 'development' }),
    });

    const read = await fetch(`${service.url}/blog-posts/${post.id}`, { headers });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(post);
    const listed = await fetch(`${service.url}/blog-posts`, { headers });
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({ items: [post], nextCursor: null });
  }, 150_000);

  // npm test's tsc also type-checks the generated test's calls of the typed client (listBlogPosts…).
  test('the MCP tools and the typed client know the five routes', async () => {
    const tools = JSON.parse(await readFile(join(app, 'generated/mcp-tools.json'), 'utf8')) as {
      tools: { name: string; route: string }[];
    };
    const blogPostTools = tools.tools.filter((tool) => ROUTES.includes(tool.route));
    expect(blogPostTools.map((tool) => tool.route).sort()).toEqual([...ROUTES].sort());
    const client = await readFile(join(app, 'generated/client.ts'), 'utf8');
    for (const route of ROUTES) expect(client).toMatch(new RegExp(`\\b${route}\\(`));

    // The running service lists them to a signed-in agent (an anonymous one sees the public tools only).
    expect(service, 'the service of the previous test').toBeDefined();
    const mcp = new Client({ name: 'make-e2e', version: '1.0.0' });
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${service!.url}/mcp`), {
        requestInit: { headers: { authorization } },
      }),
    );
    try {
      const listed = await mcp.listTools();
      expect(listed.tools.map((tool) => tool.name)).toEqual(
        expect.arrayContaining(blogPostTools.map((tool) => tool.name)),
      );
    } finally {
      await mcp.close();
    }
  });
});

describe('svc make:resource BlogPost --public', () => {
  let publicApp: string;
  let made: Awaited<ReturnType<typeof runSvc>>;

  beforeAll(async () => {
    publicApp = await freshApp('public');
    made = await runSvc(['make:resource', 'BlogPost', '--public'], { cwd: publicApp, env: appEnv() });
    expect(made.code, made.output).toBe(0);
  }, 60_000);

  test('its routes need no signed-in user, and auth stays off', async () => {
    const spec = await readSpec(publicApp);
    for (const route of ROUTES) {
      expect(spec.routes[route], route).toBeDefined();
      expect(spec.routes[route]!.meta?.auth, route).toBeUndefined();
    }
    expect(spec.modules.auth).toBeUndefined();
    expect(made.stdout).not.toContain('modules.auth');
  });

  // Its generated test runs in the main app's npm test (the public Comment resource there).
  test('the app type-checks', () => {
    expect(typeCheckProject(join(publicApp, 'tsconfig.json'), appsOwn)).toEqual([]);
  });
});

describe('svc make:resource BlogPost --no-register', () => {
  test('writes the spec and the module, builds, leaves src/app.ts alone and prints the lines to add', async () => {
    const dir = await freshApp('no-register');
    const appTs = await readFile(join(dir, 'src/app.ts'), 'utf8');
    const made = await runSvc(['make:resource', 'BlogPost', '--no-register'], { cwd: dir, env: appEnv() });
    expect(made.code, made.output).toBe(0);

    expect(await readFile(join(dir, 'src/app.ts'), 'utf8')).toBe(appTs);
    expect(made.stdout).toContain('src/app.ts left alone (--no-register)');
    expect(made.stdout).toContain(
      "import { blogPostHandlers } from './modules/blog-post/blog-post.routes.js';",
    );
    expect(made.stdout).toContain(
      "import { blogPostPlugin } from './modules/blog-post/blog-post.plugin.js';",
    );
    expect(made.stdout).toContain('...blogPostHandlers(service)');
    expect(made.stdout).toContain('blogPostPlugin(service)');

    const spec = await readSpec(dir);
    for (const route of ROUTES) expect(spec.routes[route]?.meta?.auth, route).toBe(true);
    for (const file of [...MODULE_FILES, 'migrations/0001-blog-posts.sql', 'test/blog-post.test.ts']) {
      expect(existsSync(join(dir, file)), file).toBe(true);
    }
    // svc build ran: the generated routes and client have the new routes.
    expect(made.stdout).toMatch(/^svc build: /m);
    expect(await readFile(join(dir, 'generated/client.ts'), 'utf8')).toContain('listBlogPosts(');
  }, 60_000);
});

describe('svc make:resource BlogPost --prisma, with the client import from package.json', () => {
  let dir: string;

  beforeAll(async () => {
    dir = await freshApp('prisma');
    // The project default for a client generated into the app (the `prisma-client` generator's output):
    // written from the project root, rewritten to resolve from src/modules/blog-post/.
    const manifestFile = join(dir, 'package.json');
    const manifest = JSON.parse(await readFile(manifestFile, 'utf8')) as Record<string, unknown>;
    manifest.svc = {
      make: { prismaClient: { import: './src/generated/prisma/client.js', type: 'PrismaClient' } },
    };
    await writeFile(manifestFile, `${JSON.stringify(manifest, null, 2)}\n`);
    const made = await runSvc(['make:resource', 'BlogPost', '--prisma'], { cwd: dir, env: appEnv() });
    expect(made.code, made.output).toBe(0);
  }, 60_000);

  test('writes a Prisma model and repository, and no migration', async () => {
    expect(existsSync(join(dir, 'src/modules/blog-post/blog-post.prisma'))).toBe(true);
    for (const file of MODULE_FILES) expect(existsSync(join(dir, file)), file).toBe(true);
    expect(existsSync(join(dir, 'migrations'))).toBe(false);
    const repository = await readFile(join(dir, 'src/modules/blog-post/blog-post.repository.ts'), 'utf8');
    expect(repository).toContain("import type { PrismaClient } from '../../generated/prisma/client.js';");
  });

  test('with the Prisma client generated from its model, the app type-checks', async () => {
    // A schema as the user would write it: a generator writing into the app (never into the checkout's
    // node_modules, which a linked @prisma/client would point prisma-client-js at), and the model.
    const model = await readFile(join(dir, 'src/modules/blog-post/blog-post.prisma'), 'utf8');
    const schema = join(dir, 'prisma', 'schema.prisma');
    await mkdir(join(dir, 'prisma'));
    await writeFile(
      schema,
      [
        'generator client {',
        '  provider = "prisma-client"',
        '  output   = "../src/generated/prisma"',
        '}',
        '',
        'datasource db {',
        '  provider = "postgresql"',
        '}',
        '',
        model,
      ].join('\n'),
    );
    // Offline: generate needs no engine binary (a stand-in satisfies the lookup), nor the update check.
    const generated = await runCommand(
      process.execPath,
      [join(REPO_ROOT, 'node_modules/prisma/build/index.js'), 'generate', '--schema', schema],
      {
        cwd: dir,
        env: appEnv({ PRISMA_SCHEMA_ENGINE_BINARY: '/bin/true', CHECKPOINT_DISABLE: '1' }),
      },
    );
    expect(generated.code, generated.output).toBe(0);
    expect(existsSync(join(dir, 'src/generated/prisma/client.ts'))).toBe(true);
    // The generated client imports its runtime from @prisma/client; without it the rows' types would
    // degrade and the repository would be checked against less than the model.
    await linkPackage(dir, '@prisma/client', join(REPO_ROOT, 'node_modules/@prisma/client'));
    expect(typeCheckProject(join(dir, 'tsconfig.json'), appsOwn)).toEqual([]);
  }, 60_000);
});
