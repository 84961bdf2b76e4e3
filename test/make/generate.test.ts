// The files of a resource: which ones, where, and what they say for each option. The generated code itself
// is proven by compiling and running it (test/cli/make.test.ts); here each option's effect is pinned.
import { describe, expect, test } from 'vitest';
import { format } from 'prettier';
import { generate, generateResource, GENERATORS } from '../../make/index.js';

const paths = (files: { path: string }[]) => files.map((file) => file.path);
const contentOf = (files: { path: string; content: string }[], suffix: string) => {
  const file = files.find((candidate) => candidate.path.endsWith(suffix));
  if (!file) throw new Error(`no ${suffix} among ${paths(files).join(', ')}`);
  return file.content;
};

describe('generateResource()', () => {
  test('writes the module, its migration and its test at project-relative paths', async () => {
    const files = await generateResource('BlogPost', { migrationNumber: 3 });
    expect(paths(files).sort()).toEqual([
      'migrations/0003-blog-posts.sql',
      'src/modules/blog-post/blog-post.plugin.ts',
      'src/modules/blog-post/blog-post.repository.ts',
      'src/modules/blog-post/blog-post.routes.ts',
      'src/modules/blog-post/blog-post.schema.ts',
      'src/modules/blog-post/blog-post.service.ts',
      'test/blog-post.test.ts',
    ]);
  });

  test('with prisma, a model block replaces the migration', async () => {
    const files = await generateResource('BlogPost', { prisma: true, tenant: true });
    expect(paths(files)).toContain('src/modules/blog-post/blog-post.prisma');
    expect(paths(files).some((path) => path.startsWith('migrations/'))).toBe(false);
    const model = contentOf(files, '.prisma');
    expect(model).toMatch(/^model BlogPost \{$/m);
    expect(model).toContain('@@index([tenantId, createdAt(sort: Desc), id(sort: Desc)])');
    expect(model).toContain('@@map("blog_posts")');
    const repository = contentOf(files, '.repository.ts');
    expect(repository).toContain("import type { PrismaClient } from '@prisma/client';");
    // By-id writes filter on the tenant too, so another tenant's row is never reached.
    expect(repository).toContain('updateMany({ where, data: patch })');
    expect(repository).toContain('const where = { id, tenantId };');
    expect(repository).toContain('deleteMany({ where: { id, tenantId } })');
  });

  test('is always CRUD, whatever crud says', async () => {
    const files = await generateResource('BlogPost', { crud: false });
    expect(contentOf(files, '.service.ts')).toContain(
      'constructor(private readonly repository: BlogPostRepository)',
    );
  });

  test('every TypeScript file is already formatted in the house style', async () => {
    for (const file of await generateResource('BlogPost', { tenant: true, softDelete: true })) {
      if (!file.path.endsWith('.ts')) continue;
      const formatted = await format(file.content, {
        parser: 'typescript',
        singleQuote: true,
        printWidth: 110,
        trailingComma: 'all',
      });
      expect(file.content, file.path).toBe(formatted);
    }
  });
});

describe('generate()', () => {
  test('GENERATORS names the six parts', () => {
    expect([...GENERATORS]).toEqual(['schema', 'repository', 'service', 'plugin', 'routes', 'test']);
  });

  test('tenant scoping reaches the repository, the migration, the handlers and the test', async () => {
    const scoped = await generateResource('BlogPost', { tenant: true });
    const plain = await generateResource('BlogPost', { tenant: false });
    expect(contentOf(scoped, '.sql')).toContain('tenant_id text NOT NULL');
    expect(contentOf(scoped, '.sql')).toContain(
      'CREATE INDEX "blog_posts_tenant_created" ON "blog_posts" (tenant_id, created_at DESC, id DESC)',
    );
    expect(contentOf(plain, '.sql')).not.toContain('tenant_id');
    expect(contentOf(scoped, '.repository.ts')).toContain("scope: 'tenantId'");
    expect(contentOf(plain, '.repository.ts')).not.toContain('scope:');
    expect(contentOf(scoped, '.routes.ts')).toContain("import { requireTenantId } from 'svckit/tenancy';");
    expect(contentOf(scoped, '.routes.ts')).toContain(
      'blogPostService().get(requireTenantId(context), params.id)',
    );
    expect(contentOf(plain, '.routes.ts')).not.toContain('requireTenantId');
    expect(contentOf(scoped, '.test.ts')).toContain('TENANT_REQUIRED');
    expect(contentOf(plain, '.test.ts')).not.toContain('x-tenant-id');
    expect(contentOf(scoped, '.test.ts')).toContain("'x-tenant-id': team.data.id");
  });

  test("the test names the tenant with the spec's tenancy header", async () => {
    const files = await generateResource('BlogPost', { tenant: true, tenantHeader: 'X-Team-Id' });
    expect(contentOf(files, '.test.ts')).toContain("'x-team-id': team.data.id");
    expect(contentOf(files, '.test.ts')).not.toContain('x-tenant-id');
    await expect(generateResource('BlogPost', { tenantHeader: 'x team' })).rejects.toThrow(/tenantHeader/);
  });

  test('soft delete adds the column, the option and the partial index', async () => {
    const files = await generateResource('BlogPost', { softDelete: true });
    expect(contentOf(files, '.sql')).toContain('deleted_at timestamptz');
    expect(contentOf(files, '.sql')).toContain('WHERE deleted_at IS NULL');
    expect(contentOf(files, '.repository.ts')).toContain("softDelete: 'deletedAt'");
    expect(contentOf(files, '.test.ts')).toContain('stays deleted');
    expect(contentOf(await generateResource('BlogPost'), '.test.ts')).not.toContain('stays deleted');
    const prisma = await generateResource('BlogPost', { softDelete: true, prisma: true });
    expect(contentOf(prisma, '.prisma')).toContain('deletedAt DateTime?');
    expect(contentOf(prisma, '.repository.ts')).toContain('data: { deletedAt: new Date() }');
  });

  test('auth decides whether the test signs in', async () => {
    const signedIn = contentOf(await generate('test', 'BlogPost', { auth: true }), '.test.ts');
    const publicTest = contentOf(await generate('test', 'BlogPost', { auth: false }), '.test.ts');
    expect(signedIn).toContain('AUTH_REQUIRED');
    expect(signedIn).toContain('.register(');
    expect(publicTest).not.toContain('.register(');
  });

  test('the minimal service is a class, its token and an empty constructor, importing only svckit/core', async () => {
    const [file] = await generate('service', 'BlogPost', { crud: false });
    expect(file!.path).toBe('src/modules/blog-post/blog-post.service.ts');
    const imports = [...file!.content.matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    expect(imports).toEqual(['svckit/core']);
    expect(file!.content).toContain(
      "export const BLOG_POST_SERVICE: Token<BlogPostService> = Symbol('BlogPostService');",
    );
    expect(file!.content).toContain('constructor() {}');
  });

  test('a relative Prisma client import is rewritten to resolve from src/modules/<name>/', async () => {
    const [repository] = await generate('repository', 'BlogPost', {
      prisma: true,
      prismaClient: { import: './src/db/prisma.js', type: 'Db' },
    });
    expect(repository!.content).toContain("import type { Db } from '../../db/prisma.js';");
    expect(repository!.content).toContain('export const PRISMA_CLIENT: Token<Db>');
    const [packaged] = await generate('repository', 'BlogPost', {
      prisma: true,
      prismaClient: { import: '@acme/db', type: 'Client' },
    });
    expect(packaged!.content).toContain("import type { Client } from '@acme/db';");
  });

  test('unknown options, kinds and names are refused', async () => {
    await expect(generate('schema', 'BlogPost', { tenants: true } as never)).rejects.toThrow(
      /Unknown generate option 'tenants'/,
    );
    await expect(generate('model' as never, 'BlogPost')).rejects.toThrow(/Unknown generator 'model'/);
    await expect(generate('schema', '---')).rejects.toThrow(/no words/);
    await expect(
      generate('repository', 'BlogPost', { prisma: true, prismaClient: { import: '', type: 'X' } }),
    ).rejects.toThrow(/prismaClient must be/);
    await expect(generate('repository', 'BlogPost', { migrationNumber: 10_000 })).rejects.toThrow(
      /migrationNumber/,
    );
  });

  test('a name that would shadow an identifier of the module, or a table PostgreSQL would refuse, is refused', async () => {
    for (const name of ['Token', 'Date', 'Promise', 'Repository', 'scoped repository']) {
      await expect(generate('schema', name), name).rejects.toThrow(/already uses; choose another name/);
    }
    await expect(
      generate('repository', 'Db', { prisma: true, prismaClient: { import: '@acme/db', type: 'Db' } }),
    ).rejects.toThrow(/already uses/);
    await expect(generate('repository', 'SvcUser')).rejects.toThrow(/svc_ tables are svckit's own/);
    const long = 'CustomerRelationshipManagementSystemQuarterlyRevenueForecast';
    await expect(generate('repository', long, { tenant: true })).rejects.toThrow(/PostgreSQL keeps 63/);
    // A table named by a reserved word is quoted, so it works.
    const [, migration] = await generate('repository', 'A');
    expect(migration!.content).toContain('CREATE TABLE "as" (');
  });
});
