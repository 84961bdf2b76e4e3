// Writing generated files: every conflict is found before the first byte is written, so a refused run
// changes nothing; with `force`, existing files are overwritten.
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { formatForProject } from './format.js';
import type { GeneratedFile } from './generate.js';

/** Files (or spec entries) that exist already; `paths` lists every one, project-relative. */
export class FileExistsError extends Error {
  readonly code = 'MAKE_FILE_EXISTS';

  constructor(readonly paths: readonly string[]) {
    super(
      `Nothing was written: ${paths.length === 1 ? 'this exists' : 'these exist'} already:\n${paths.map((path) => `  ${path}`).join('\n')}\nRun again with --force to overwrite.`,
    );
    this.name = 'FileExistsError';
  }
}

/** The paths of `files` that exist under `baseDir`. */
export function existingPaths(files: readonly GeneratedFile[], baseDir: string): string[] {
  return files.map((file) => file.path).filter((path) => existsSync(join(baseDir, path)));
}

/**
 * Writes `files` under `baseDir` (default the current directory) and answers their paths, sorted. Throws
 * FileExistsError naming every existing one, before writing anything, unless `force`. TypeScript files are
 * formatted with the project's prettier config when it has one.
 */
export async function writeGenerated(
  files: readonly GeneratedFile[],
  options: { baseDir?: string; force?: boolean } = {},
): Promise<string[]> {
  const baseDir = options.baseDir ?? process.cwd();
  if (!options.force) {
    const existing = existingPaths(files, baseDir);
    if (existing.length > 0) throw new FileExistsError(existing);
  }
  const prepared = await Promise.all(
    files.map(async (file) => {
      const target = join(baseDir, file.path);
      const content = file.path.endsWith('.ts') ? await formatForProject(target, file.content) : file.content;
      return { target, content };
    }),
  );
  for (const { target, content } of prepared) {
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, content);
  }
  return files.map((file) => file.path).sort();
}
