// writeGenerated refuses the whole set on any conflict; the sibling helpers name what a lone part imports.
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import {
  expectedSiblings,
  FileExistsError,
  missingSiblings,
  missingSiblingsWarning,
  serviceSiblingsExist,
  writeGenerated,
} from '../../make/index.js';

const project = () => mkdtemp(join(tmpdir(), 'svc-make-write-'));

describe('writeGenerated()', () => {
  test('writes the files, making folders, and answers their paths sorted', async () => {
    const baseDir = await project();
    const written = await writeGenerated(
      [
        { path: 'test/b.test.ts', content: 'export const b = 1;\n' },
        { path: 'src/modules/a/a.ts', content: 'export const a = 1;\n' },
      ],
      { baseDir },
    );
    expect(written).toEqual(['src/modules/a/a.ts', 'test/b.test.ts']);
    expect(await readFile(join(baseDir, 'src/modules/a/a.ts'), 'utf8')).toBe('export const a = 1;\n');
  });

  test('any existing file: FileExistsError with every one of them, and nothing written', async () => {
    const baseDir = await project();
    await mkdir(join(baseDir, 'src'), { recursive: true });
    await writeFile(join(baseDir, 'src/one.ts'), 'mine\n');
    await writeFile(join(baseDir, 'src/two.ts'), 'mine too\n');
    const files = [
      { path: 'src/new.ts', content: 'new\n' },
      { path: 'src/one.ts', content: 'theirs\n' },
      { path: 'src/two.ts', content: 'theirs\n' },
    ];
    const error = await writeGenerated(files, { baseDir }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(FileExistsError);
    expect((error as FileExistsError).paths).toEqual(['src/one.ts', 'src/two.ts']);
    expect(existsSync(join(baseDir, 'src/new.ts'))).toBe(false);
    expect(await readFile(join(baseDir, 'src/one.ts'), 'utf8')).toBe('mine\n');

    await writeGenerated(files, { baseDir, force: true });
    expect(await readFile(join(baseDir, 'src/one.ts'), 'utf8')).toBe('theirs\n');
  });

  test("TypeScript follows the project's prettier config when it has one", async () => {
    const baseDir = await project();
    await writeFile(join(baseDir, '.prettierrc.json'), JSON.stringify({ singleQuote: false, semi: false }));
    await writeGenerated([{ path: 'src/x.ts', content: "export const x = 'x';\n" }], { baseDir });
    expect(await readFile(join(baseDir, 'src/x.ts'), 'utf8')).toBe('export const x = "x"\n');
  });
});

describe('siblings', () => {
  test('each part names the module files it imports', () => {
    expect(expectedSiblings('schema', 'BlogPost')).toEqual([]);
    expect(expectedSiblings('repository', 'BlogPost')).toEqual(['src/modules/blog-post/blog-post.schema.ts']);
    expect(expectedSiblings('service', 'BlogPost')).toEqual([
      'src/modules/blog-post/blog-post.repository.ts',
      'src/modules/blog-post/blog-post.schema.ts',
    ]);
    expect(expectedSiblings('service', 'BlogPost', { crud: false })).toEqual([]);
    expect(expectedSiblings('plugin', 'BlogPost', { crud: false })).toEqual([
      'src/modules/blog-post/blog-post.service.ts',
    ]);
    expect(expectedSiblings('routes', 'BlogPost')).toEqual(['src/modules/blog-post/blog-post.service.ts']);
    expect(expectedSiblings('test', 'BlogPost')).toEqual(['src/app.ts']);
  });

  test('missing ones are found, warned about, and decide the service kind', async () => {
    const baseDir = await project();
    expect(serviceSiblingsExist('BlogPost', { baseDir })).toBe(false);
    const missing = missingSiblings('plugin', 'BlogPost', { baseDir });
    expect(missing).toEqual([
      'src/modules/blog-post/blog-post.repository.ts',
      'src/modules/blog-post/blog-post.service.ts',
    ]);
    expect(missingSiblingsWarning('plugin', 'BlogPost', missing)).toBe(
      'Warning: src/modules/blog-post/blog-post.plugin.ts imports files that do not exist yet: src/modules/blog-post/blog-post.repository.ts, src/modules/blog-post/blog-post.service.ts. It was written all the same; write them with svc make:repository BlogPost, svc make:service BlogPost.',
    );
    expect(missingSiblingsWarning('plugin', 'BlogPost', [])).toBeUndefined();

    await mkdir(join(baseDir, 'src/modules/blog-post'), { recursive: true });
    await writeFile(join(baseDir, 'src/modules/blog-post/blog-post.repository.ts'), '');
    expect(serviceSiblingsExist('BlogPost', { baseDir })).toBe(false);
    await writeFile(join(baseDir, 'src/modules/blog-post/blog-post.schema.ts'), '');
    expect(serviceSiblingsExist('BlogPost', { baseDir })).toBe(true);
    expect(missingSiblings('service', 'BlogPost', { baseDir })).toEqual([]);
  });
});
